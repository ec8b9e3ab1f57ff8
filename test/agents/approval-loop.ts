// The per-host confirm table (issue 23 §2, docs/confirm.md "Per host, from the agent
// loops"): the host's own headless agent with the host's own per-tool approval of the
// gated write `probe.stamp`, given the way the host documents it (Claude Code's
// --permission-prompt-tool, Codex's per-tool approval_mode for the run, a Gemini CLI
// policy). The script calls the gated write without and with the model's confirm: true.
// Proven here: the write ran exactly once (the confirmed call), hcpx asked nobody (its
// audit log has no confirm on any stamp call: the host's approval was the one
// question), and the host asked at most once per call. The headless run WITHOUT that
// approval is the plain agent loop (agent-loop.ts: the gated write never runs).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel } from "../support/fake-model";
import { hc, rm, type Raw } from "../hosts/e2e/support";
import { adopted, ECHO_TEXT, envelopeIn, HOSTS, PROMPT, side, type Call, type HostId } from "./support";

export interface ApprovalCase {
  host: HostId;
  /** the approval, in words (the table's cell) */
  how: string;
  /** files the person keeps (their approval), written after adopt; paths relative to the scratch HOME (`~/`) or the project */
  files?: (o: { dir: string; home: string; fixtures: string }) => Record<string, string>;
  /** the host's argv for the run with the approval */
  argv: (prompt: string, o: { dir: string; home: string }) => string[];
  /** where the host's own prompts are counted (a JSON line per prompt), relative to the project; absent: the host asks nobody at run time */
  promptLog?: string;
  /**
   * "once" (column C, the default): the approval is given and the confirmed write runs once;
   * "never" (column B): no approval is given, and the gated write never runs, with or without
   * the model's confirm: true
   */
  runs?: "once" | "never";
}

interface AuditLine {
  client?: string;
  host?: string;
  tool: string;
  verb?: string;
  confirm?: { answer: string };
  result: string;
}

const FIXTURES = join(dirname(new URL(import.meta.url).pathname), "fixtures");

export function approvalLoop(c: ApprovalCase): void {
  const spec = HOSTS[c.host];
  const never = c.runs === "never";
  describe(
    never
      ? `${spec.id}: a headless run without approval never runs the gated write (${c.how})`
      : `${spec.id}: a headless run with the host's own per-tool approval of the gated write (${c.how})`,
    () => {
      let dir: string, home: string, fake: FakeModel, raw: Raw, audit: AuditLine[], calls: Call[], results: string[];
      beforeAll(async () => {
        const a = await adopted(c.host, true);
        dir = a.dir;
        home = a.home;
        const plan = [
          // a granted read first: a host that starts its MCP servers alongside the first turn (Codex: "unsupported call") has them by the write
          { what: "echo", call: { ...spec.tool("probe__echo"), input: { text: ECHO_TEXT } } },
          { what: "unconfirmed", call: { ...spec.tool("probe__stamp"), input: { note: "unconfirmed-1" } } },
          { what: "confirmed", call: { ...spec.tool("probe__stamp"), input: { note: "confirmed-1", confirm: true } } },
        ];
        fake = await startFakeModel({
          script: Array.from({ length: plan.length * 2 + 4 }, () => (req: { toolResults: unknown[] }) => {
            const step = plan[req.toolResults.length];
            return step ? { text: `step: ${step.what}`, toolCalls: [step.call] } : { text: "PROBE-FINISHED" };
          }),
          side,
        });
        const files = {
          ...spec.homeFiles(fake.url, dir),
          ...Object.fromEntries(Object.entries(c.files?.({ dir, home, fixtures: FIXTURES }) ?? {})),
        };
        for (const [rel, text] of Object.entries(files)) {
          const abs = rel.startsWith("~/")
            ? join(home, rel.slice(2))
            : rel.startsWith("./")
              ? join(dir, rel.slice(2))
              : join(home, rel);
          mkdirSync(dirname(abs), { recursive: true });
          writeFileSync(abs, text);
        }
        const token = `tok-${randomBytes(12).toString("hex")}`;
        const env = hc.hostEnv(home, { ...spec.env(fake.url, home), PATH: a.path, PWD: dir, PROBE_TOKEN: token });
        if (env.TMPDIR) mkdirSync(env.TMPDIR, { recursive: true });
        for (const args of spec.prepare ?? []) {
          const r = await hc.run(hc.hostBin(c.host), args, { cwd: dir, env, timeoutMs: 60_000 });
          if (r.code !== 0) throw new Error(`${c.host} ${args.join(" ")} failed (${r.code}):\n${r.stderr}${r.stdout}`);
        }
        raw = await hc.run(hc.hostBin(c.host), c.argv(PROMPT, { dir, home }), { cwd: dir, env, timeoutMs: 120_000 });
        const jsonl = <T>(f: string): T[] =>
          existsSync(f)
            ? readFileSync(f, "utf8")
                .trim()
                .split("\n")
                .filter(Boolean)
                .map((l) => JSON.parse(l) as T)
            : [];
        const state = env.XDG_STATE_HOME ?? join(home, ".local", "state");
        audit = jsonl<AuditLine>(join(state, "hcpx", "audit.jsonl"));
        calls = jsonl<Call>(join(dir, "probe-calls.jsonl"));
        const main = fake.modelRequests.filter((r) => r.tools.length > 0);
        const last = main.reduce((x, y) => (y.toolResults.length >= x.toolResults.length ? y : x), main[0]!);
        results = (last?.toolResults ?? []).map((r) => r.output);
        console.log(
          `[agents] ${c.host} (${never ? "no approval" : "approved"}): exit ${raw.code}, stamp calls ${JSON.stringify(calls.filter((x) => x.verb === "stamp").map((x) => x.argv[0]))}, audit ${JSON.stringify(audit.filter((l) => l.verb === "stamp"))}, gated results ${JSON.stringify(results.slice(1)).slice(0, 600)}`,
        );
      }, 300_000);
      afterAll(async () => {
        await fake?.close();
        if (!process.env.HCPX_E2E_KEEP) for (const d of [dir, home]) if (d) rm(d);
      });
      const why = () =>
        `exit ${raw.code}\nresults: ${JSON.stringify(results).slice(0, 3000)}\naudit: ${JSON.stringify(audit)}\nstdout: ${raw.stdout.slice(-2000)}\nstderr: ${raw.stderr.slice(-2000)}`;

      if (never) {
        it("the gated write never ran, with or without the model's confirm: true; the granted read ran", () => {
          expect(
            calls.filter((x) => x.verb === "stamp"),
            why(),
          ).toEqual([]);
          for (const i of [1, 2]) expect(envelopeIn(results[i] ?? "")?.ok, why()).not.toBe(true);
          expect(results.length, why()).toBe(3);
          expect(envelopeIn(results[0] ?? ""), why()).toMatchObject({ ok: true });
        });

        it("one asker at most: hcpx asked nobody, and no gated call ran through hcpx", () => {
          const stamps = audit.filter((l) => l.verb === "stamp");
          expect(
            stamps.filter((l) => l.confirm !== undefined),
            why(),
          ).toEqual([]);
          expect(
            stamps.filter((l) => l.result === "ok"),
            why(),
          ).toEqual([]);
        });
        return;
      }

      it("the gated write ran exactly once: the call with the model's confirm: true", () => {
        expect(
          calls.filter((x) => x.verb === "stamp").map((x) => x.argv[0]),
          why(),
        ).toEqual(["confirmed-1"]);
        expect(envelopeIn(results[2] ?? ""), why()).toMatchObject({ ok: true, data: { stamped: "confirmed-1" } });
        // without the model's confirm: true hcpx still refuses (the host's yes is not the model's ask)
        expect(envelopeIn(results[1] ?? "")?.error?.code, why()).toBe("confirm_required");
      });

      it("one question, not two: hcpx asked nobody (the host's approval was the question), and the host asked at most once per call", () => {
        const stamps = audit.filter((l) => l.verb === "stamp");
        expect(stamps.length, why()).toBe(2);
        expect(
          stamps.filter((l) => l.confirm !== undefined),
          why(),
        ).toEqual([]);
        expect(
          stamps.map((l) => l.result),
          why(),
        ).toEqual(["confirm_required", "ok"]);
        if (c.promptLog) {
          const asked = existsSync(join(dir, c.promptLog))
            ? readFileSync(join(dir, c.promptLog), "utf8")
                .trim()
                .split("\n")
                .filter(Boolean)
                .map((l) => JSON.parse(l) as { tool: string })
            : [];
          const stampAsks = asked.filter((a) => a.tool === spec.tool("probe__stamp").name);
          expect(stampAsks.length, JSON.stringify(asked)).toBeLessThanOrEqual(2);
          expect(stampAsks.length, JSON.stringify(asked)).toBeGreaterThanOrEqual(1);
        }
      });
    },
  );
}
