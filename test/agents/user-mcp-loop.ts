// Agent loop for hosts that read MCP servers from the user file only (Cline,
// Continue), or connect only the user's in a headless run (Kimi: a project's needs a trusted folder): `hcpx adopt <host> --scope user` (the MCP entry, the user rules) and
// `hcpx adopt <host>` (the project's rule file and Skills) in a scratch probe
// project with hcpx on PATH, then the host's own headless agent against the
// scripted fake model: the Skill through the host's own skill tool, a granted read
// through the single `hcp` tool, an ungranted command, the confirm-gated write
// without and with confirm, and the shell route. Asserted from the logged requests and the probe bin's
// side effects; then `hcpx exec` through the host's own shell tool.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { runHcpx, tmp } from "../support/hcpx";
import { userConfigOf } from "../support/userconfig";
import { startFakeModel, type FakeModel, type ModelRequest, type Turn } from "../support/fake-model";
import { hc, pathWithoutHcpx, rm, type Raw } from "../hosts/e2e/support";
import {
  allText,
  ECHO_TEXT,
  SHELL_TEXT,
  envelopeIn,
  hcpxBinDir,
  probeProject,
  sha12,
  SKILL_MARKER,
  UNGRANTED_WORDS,
  type Call,
} from "./support";

export interface UserMcpHost {
  id: "cline" | "continue" | "kimi";
  bin: string;
  /** the program and its leading arguments when it is no bin in the hosts dir (Kimi: the pinned Node 22 and its main.mjs); present: it is installed */
  command?: string[];
  /** the hcp tool and hcp__read_skill as the host names them to its model */
  hcpTool: string;
  readSkillTool: string;
  /** the host's own skill tool and its input for the probe Skill */
  skillTool: string;
  skillInput: Record<string, unknown>;
  /** what the host shows its model of the probe Skill before it is called (Cline lists names only) */
  skillListed: RegExp;
  /** the host's shell tool running `cmd`; none: its shell cannot run `hcpx exec` (descriptor `shellRoute: false`) */
  shellCall?: (cmd: string) => { name: string; input: Record<string, unknown> };
  /** files in HOME pointing the host at the fake model (besides what adopt wrote) */
  setup: (fakeUrl: string, home: string, dir: string, env: Record<string, string>) => Promise<void>;
  argv: (prompt: string) => string[];
  /** the clientInfo name the host sends, as hcpx's audit log records it: checks that hcpx asked nobody (docs/confirm.md, column D) */
  clientInfo?: string;
  /** after the run: end what the host leaves running (resolves once it is gone) */
  after?: (dir: string) => Promise<void>;
}

const PROMPT = "Use the probe pack: read its Skill, echo, then stamp a note.";

export function userMcpLoop(spec: UserMcpHost): void {
  const available = spec.command
    ? spec.command.every((f) => existsSync(f))
    : existsSync(join(hc.HOSTS_DIR, "node_modules", ".bin", spec.bin));
  describe.skipIf(!available)(
    `${spec.id}: the host's own agent against the fake model (MCP entry at user scope)`,
    () => {
      let fake: FakeModel;
      let dir: string;
      let home: string;
      let raw: Raw;
      let token: string;
      let first: ModelRequest;
      let last: ModelRequest;
      const hcp = (input: Record<string, unknown>) => ({ name: spec.hcpTool, input });
      const plan = [
        { what: "skill", call: { name: spec.skillTool, input: spec.skillInput } },
        { what: "echo", call: hcp({ pack: "probe", verb: "echo", args: { text: ECHO_TEXT } }) },
        { what: "ungranted", call: hcp({ pack: "vault", verb: "purge" }) },
        // the route the block advertises (hcpx is on PATH): the host's own shell tool
        ...(spec.shellCall
          ? [{ what: "shell", call: spec.shellCall(`hcpx exec probe echo --json -- text=${SHELL_TEXT}`) }]
          : []),
        { what: "unconfirmed", call: hcp({ pack: "probe", verb: "stamp", args: { note: "unconfirmed-1" } }) },
        {
          what: "confirmed",
          call: hcp({ pack: "probe", verb: "stamp", args: { note: "confirmed-1" }, confirm: true }),
        },
      ];
      // Continue sends a tool result back as the MCP content blocks' JSON, Cline a shell result as
      // [{query, result, success}]: their text is what hcpx answered
      const unwrap = (out: string) => {
        try {
          const v = JSON.parse(out) as unknown;
          if (Array.isArray(v))
            return v.map((b: { text?: string; result?: string }) => b.text ?? b.result ?? "").join("\n");
        } catch {
          // plain text
        }
        return out;
      };
      const result = (what: string) => unwrap(last.toolResults[plan.findIndex((p) => p.what === what)]?.output ?? "");
      const calls = (): Call[] => {
        const f = join(dir, "probe-calls.jsonl");
        return existsSync(f)
          ? readFileSync(f, "utf8")
              .trim()
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Call)
          : [];
      };
      const why = () =>
        `exit ${raw.code}${raw.timedOut ? " (timed out)" : ""} in ${raw.ms} ms\nrequests: ${fake.modelRequests.map((r) => `#${r.n} tools=${r.tools.length} results=${JSON.stringify(r.toolResults).slice(0, 800)}`).join("\n")}\nstdout:\n${raw.stdout.slice(-2500)}\nstderr:\n${raw.stderr.slice(-2500)}`;

      beforeAll(async () => {
        dir = probeProject();
        home = tmp("hcpx-agents-home-");
        const path = [hcpxBinDir(), pathWithoutHcpx()].join(delimiter);
        // the user's own config (~/.config/hcp/config.json5) is what user scope serves: the probe project's, with absolute paths
        userConfigOf(dir, home);
        for (const scope of ["user", "project"]) {
          const r = await runHcpx(["adopt", spec.id, "--scope", scope, "--write"], {
            cwd: dir,
            env: { HOME: home, PATH: path },
            timeoutMs: 60_000,
          });
          if (r.code !== 0) throw new Error(`adopt ${spec.id} --scope ${scope} failed: ${r.stderr}${r.stdout}`);
        }
        token = `tok-${randomBytes(12).toString("hex")}`;
        const turn: Turn = (req) => {
          const step = plan[req.toolResults.length];
          return step ? { text: `step: ${step.what}`, toolCalls: [step.call] } : { text: "PROBE-FINISHED" };
        };
        fake = await startFakeModel({
          script: Array.from({ length: plan.length * 2 + 4 }, () => turn),
          side: (r) => (r.tools.length === 0 ? { text: "probe session" } : undefined),
        });
        const env = hc.hostEnv(home, { PATH: path, PWD: dir, PROBE_TOKEN: token });
        await spec.setup(fake.url, home, dir, env);
        const [cmd, ...lead] = spec.command ?? [hc.hostBin(spec.bin)];
        raw = await hc.run(cmd!, [...lead, ...spec.argv(PROMPT)], { cwd: dir, env, timeoutMs: 150_000 });
        await spec.after?.(dir);
        const main = fake.modelRequests.filter((r) => r.tools.length > 0);
        first = main[0]!;
        last = main.reduce((a, b) => (b.toolResults.length >= a.toolResults.length ? b : a), main[0]!);
      }, 200_000);
      afterAll(async () => {
        await fake?.close();
        if (!process.env.HCPX_E2E_KEEP) for (const d of [dir, home]) if (d) rm(d);
      });

      it("the agent ran the whole script and exited 0", () => {
        expect(raw.code, why()).toBe(0);
        expect(
          fake.unexpected.map((u) => u.path),
          why(),
        ).toEqual([]);
        expect(last.toolResults.length, why()).toBe(plan.length);
      });

      it("the prompt blocks (the project's rule, the user's rules) reached the model; the tools are offered; no ungranted command anywhere", () => {
        const text = allText(first.body);
        expect(text, why()).toContain("Verbs: echo (r), stamp (w, confirm required)");
        for (const t of [spec.hcpTool, spec.readSkillTool])
          expect(
            first.tools.map((o) => o.name),
            why(),
          ).toContain(t);
        const seen = first.raw.toLowerCase();
        for (const w of UNGRANTED_WORDS) expect(seen.includes(w), `'${w}' is in what the model saw`).toBe(false);
      });

      it("the Skill is discovered by the host's own skill tool and its body reaches the model after the call", () => {
        expect(allText(first.body)).toMatch(spec.skillListed);
        expect(first.raw.includes(SKILL_MARKER)).toBe(false);
        const after = fake.modelRequests.find((r) => r.toolResults.length === 1);
        expect(after && allText(after.body).includes(SKILL_MARKER), why()).toBe(true);
      });

      it("a granted read ran exactly once through hcpx with the Binding value, and hcpx's envelope came back", () => {
        expect(envelopeIn(result("echo")), result("echo")).toMatchObject({
          ok: true,
          data: { echo: ECHO_TEXT, tokenSha: sha12(token) },
        });
        expect(calls().filter((c) => c.verb === "echo" && c.argv[0] === ECHO_TEXT)).toHaveLength(1);
        const leaked = fake.requests.filter((r) => r.raw.includes(token) || JSON.stringify(r.headers).includes(token));
        expect(leaked.map((r) => r.path)).toEqual([]);
      });

      if (spec.shellCall) {
        it("the shell route the block advertises works through the host's shell tool", () => {
          expect(allText(first.body)).toContain("hcpx exec <pack> <verb>");
          expect(envelopeIn(result("shell")), result("shell")).toMatchObject({
            ok: true,
            data: { echo: SHELL_TEXT, tokenSha: sha12(token) },
          });
          expect(calls().filter((c) => c.verb === "echo" && c.argv[0] === SHELL_TEXT)).toHaveLength(1);
        });
      } else {
        it("the blocks do not advertise the shell route, which cannot work in this host's shell", () => {
          expect(allText(first.body)).toContain("Verbs: echo (r), stamp (w, confirm required)");
          expect(allText(first.body)).not.toContain("hcpx exec");
        });
      }

      it("the ungranted command never ran", () => {
        expect(envelopeIn(result("ungranted"))?.ok, result("ungranted")).not.toBe(true);
        expect(calls().filter((c) => c.verb === "vault")).toEqual([]);
      });

      // headless with its tools auto-approved (cline's default, cn --auto, kimi -p's auto permission mode) the host's own approval does not
      // stop the write: it reaches hcpx, whose gate refuses it without confirm; with the model's confirm: true it runs
      it("the gated write reaches hcpx: without confirm confirm_required and nothing ran; with confirm it ran once", () => {
        expect(envelopeIn(result("unconfirmed"))?.error?.code, result("unconfirmed")).toBe("confirm_required");
        expect(envelopeIn(result("confirmed")), result("confirmed")).toMatchObject({
          ok: true,
          data: { stamped: "confirmed-1" },
        });
        expect(
          calls()
            .filter((c) => c.verb === "stamp")
            .map((c) => c.argv[0]),
        ).toEqual(["confirmed-1"]);
      });

      if (spec.clientInfo) {
        it("no path asks twice: hcpx's audit log names the host's client and shows hcpx asked nobody (confirm_required, then the confirmed run)", () => {
          const f = join(home, ".local", "state", "hcpx", "audit.jsonl");
          const lines = existsSync(f)
            ? readFileSync(f, "utf8")
                .trim()
                .split("\n")
                .filter(Boolean)
                .map(
                  (l) =>
                    JSON.parse(l) as {
                      via?: string;
                      client?: string;
                      verb?: string;
                      confirm?: unknown;
                      result: string;
                    },
                )
            : [];
          const mcp = lines.filter((l) => l.via === "stdio");
          expect(mcp.length, JSON.stringify(lines)).toBeGreaterThan(0);
          for (const l of mcp) expect(l.client, JSON.stringify(l)).toBe(spec.clientInfo);
          const stamps = mcp.filter((l) => l.verb === "stamp");
          expect(
            stamps.filter((l) => l.confirm !== undefined),
            JSON.stringify(stamps),
          ).toEqual([]);
          expect(stamps.map((l) => l.result)).toEqual(["confirm_required", "ok"]);
        });
      }
    },
  );
}

/**
 * Cline's hub daemon (`--cline-hub-daemon --cwd <project>`) outlives the run: end the one
 * of this project, by pid, and wait until it is gone (it writes in ~/.cline until then).
 */
export async function endClineDaemons(project: string): Promise<void> {
  const pids: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const i = cmd.indexOf("--cwd");
      if (cmd.includes("--cline-hub-daemon") && i >= 0 && cmd[i + 1] === project) {
        process.kill(Number(pid), "SIGTERM");
        pids.push(Number(pid));
      }
    } catch {
      // gone
    }
  }
  for (let t = 0; t < 50 && pids.some((p) => existsSync(`/proc/${p}`)); t++)
    await new Promise((r) => setTimeout(r, 100));
  for (const p of pids) if (existsSync(`/proc/${p}`)) process.kill(p, "SIGKILL");
}

export function writeHome(home: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
}
