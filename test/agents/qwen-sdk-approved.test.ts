// The confirm table, Qwen Code, column C: a headless run where the person's yes to the one
// gated call comes through Qwen Code's own approval channel. `qwen --input-format stream-json`
// (its SDK mode: the first stdin message a control_request `initialize`) does not decline a call
// that needs approval: it sends the SDK client a `can_use_tool` control_request and waits for its
// answer (qwen 0.24.4, PermissionController.handleOutgoingPermissionRequest: "stream-json mode:
// Send can_use_tool to SDK and await response"). The client here is the test: it allows each
// call of the gated tool once. adopt's permissions.ask rule is in force (`--host qwen`), so
// hcpx does not ask again: the write runs once (the confirmed call), the unconfirmed one is
// hcpx's confirm_required, and Qwen asked once per gated call (the read is adopt's allow rule).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { startFakeModel, type FakeModel } from "../support/fake-model";
import { hc, rm } from "../hosts/e2e/support";
import { adopted, ECHO_TEXT, envelopeIn, HOSTS, side, type Call } from "./support";

const spec = HOSTS.qwen;
const PROMPT = "Use the probe pack: echo, then stamp a note.";

interface Asked {
  tool: string;
  input: Record<string, unknown>;
}
interface AuditLine {
  host?: string;
  verb?: string;
  confirm?: unknown;
  result: string;
}

describe.skipIf(!existsSync(hc.hostBin("qwen")))(
  "qwen: stream-json (SDK) mode — the client's can_use_tool answer allows the gated call once (column C)",
  () => {
    let dir: string,
      home: string,
      fake: FakeModel,
      asked: Asked[],
      results: string[],
      audit: AuditLine[],
      calls: Call[],
      stderr: string,
      resultMsg: unknown;
    const plan = [
      { what: "echo", call: { ...spec.tool("probe__echo"), input: { text: ECHO_TEXT } } },
      { what: "unconfirmed", call: { ...spec.tool("probe__stamp"), input: { note: "unconfirmed-1" } } },
      { what: "confirmed", call: { ...spec.tool("probe__stamp"), input: { note: "confirmed-1", confirm: true } } },
    ];
    const why = () =>
      `asked: ${JSON.stringify(asked)}\nresults: ${JSON.stringify(results).slice(0, 2500)}\naudit: ${JSON.stringify(audit)}\nresult: ${JSON.stringify(resultMsg).slice(0, 500)}\nstderr: ${stderr.slice(-2000)}`;

    beforeAll(async () => {
      const a = await adopted("qwen", true);
      dir = a.dir;
      home = a.home;
      fake = await startFakeModel({
        script: Array.from({ length: plan.length * 2 + 4 }, () => (req: { toolResults: unknown[] }) => {
          const step = plan[req.toolResults.length];
          return step ? { text: `step: ${step.what}`, toolCalls: [step.call] } : { text: "PROBE-FINISHED" };
        }),
        side,
      });
      for (const [rel, text] of Object.entries(spec.homeFiles(fake.url, dir))) {
        mkdirSync(dirname(join(home, rel)), { recursive: true });
        writeFileSync(join(home, rel), text);
      }
      const env = hc.hostEnv(home, {
        ...spec.env(fake.url, home),
        PATH: a.path,
        PWD: dir,
        PROBE_TOKEN: `tok-${randomBytes(12).toString("hex")}`,
      });
      for (const args of spec.prepare ?? []) {
        const r = await hc.run(hc.hostBin("qwen"), args, { cwd: dir, env, timeoutMs: 60_000 });
        if (r.code !== 0) throw new Error(`qwen ${args.join(" ")} failed (${r.code}):\n${r.stderr}${r.stdout}`);
      }
      // default approval mode (no --approval-mode): only the client's answer can let the gated call through
      const child = spawn(
        hc.hostBin("qwen"),
        ["--input-format", "stream-json", "--output-format", "stream-json", "--auth-type", "openai"],
        { cwd: dir, env, stdio: ["pipe", "pipe", "pipe"] },
      );
      stderr = "";
      child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
      asked = [];
      const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + "\n");
      const done = new Promise<void>((resolve) => {
        createInterface({ input: child.stdout }).on("line", (line) => {
          let m: {
            type?: string;
            request_id?: string;
            request?: { subtype?: string; tool_name?: string; input?: Record<string, unknown> };
          };
          try {
            m = JSON.parse(line) as typeof m;
          } catch {
            return;
          }
          if (m.type === "control_request" && m.request?.subtype === "can_use_tool") {
            asked.push({ tool: m.request.tool_name ?? "", input: m.request.input ?? {} });
            // the person's yes to exactly this call of exactly this tool; anything else: no
            const yes = m.request.tool_name === spec.tool("probe__stamp").name;
            send({
              type: "control_response",
              response: {
                subtype: "success",
                request_id: m.request_id,
                response: yes
                  ? { behavior: "allow", updatedInput: m.request.input }
                  : { behavior: "deny", message: "not approved" },
              },
            });
          } else if (m.type === "control_request") {
            send({
              type: "control_response",
              response: { subtype: "error", request_id: m.request_id, error: `not supported: ${m.request?.subtype}` },
            });
          } else if (m.type === "result") {
            resultMsg = m;
            resolve();
          }
        });
        child.on("exit", () => resolve());
      });
      send({ type: "control_request", request_id: "init-1", request: { subtype: "initialize" } });
      send({ type: "user", session_id: "probe", message: { role: "user", content: PROMPT }, parent_tool_use_id: null });
      const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
      await done;
      clearTimeout(timer);
      child.stdin.end();
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const t = setTimeout(() => child.kill("SIGKILL"), 15_000);
        child.on("exit", () => {
          clearTimeout(t);
          resolve();
        });
      });
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
      const main = fake.modelRequests.filter((r) => r.tools.length > 0);
      const last = main.reduce((x, y) => (y.toolResults.length >= x.toolResults.length ? y : x), main[0]!);
      results = (last?.toolResults ?? []).map((r) => r.output);
      console.log(
        `[agents] qwen (stream-json, can_use_tool): asked ${JSON.stringify(asked.map((x) => x.tool))}, stamp calls ${JSON.stringify(calls.filter((x) => x.verb === "stamp").map((x) => x.argv[0]))}, audit ${JSON.stringify(audit.filter((l) => l.verb === "stamp"))}`,
      );
    }, 240_000);
    afterAll(async () => {
      await fake?.close();
      if (!process.env.HCPX_E2E_KEEP) for (const d of [dir, home]) if (d) rm(d);
    });

    it("the gated write ran exactly once: the call with the model's confirm: true (hcpx's confirm_required without it)", () => {
      expect(results.length, why()).toBe(plan.length);
      expect(envelopeIn(results[0] ?? ""), why()).toMatchObject({ ok: true, data: { echo: ECHO_TEXT } });
      expect(
        calls.filter((x) => x.verb === "stamp").map((x) => x.argv[0]),
        why(),
      ).toEqual(["confirmed-1"]);
      expect(envelopeIn(results[1] ?? "")?.error?.code, why()).toBe("confirm_required");
      expect(envelopeIn(results[2] ?? ""), why()).toMatchObject({ ok: true, data: { stamped: "confirmed-1" } });
    });

    it("one question, not two: Qwen asked the client once per gated call (never for the allowed read), hcpx asked nobody", () => {
      expect(
        asked.map((x) => x.tool),
        why(),
      ).toEqual([spec.tool("probe__stamp").name, spec.tool("probe__stamp").name]);
      const stamps = audit.filter((l) => l.verb === "stamp");
      expect(
        stamps.filter((l) => l.confirm !== undefined),
        why(),
      ).toEqual([]);
      expect(
        stamps.map((l) => l.result),
        why(),
      ).toEqual(["confirm_required", "ok"]);
    });
  },
);
