// issue 29: what `hcpx mcp` loads on a host's start. node:crypto (~25 M instructions with its ~15 internal
// modules) and node:child_process (~12 M, dgram and net's socket list with it) were loaded at every start
// (callgrind: a start to the first tools/list, ~874 M -> ~835 M), though a start until its first tools/list
// neither hashes with node:crypto, signs, nor spawns: they load when first used (src/util/builtins.ts), and
// the random requestState key is made at the first state minted or checked (src/mcp/confirm-state.ts). Node
// itself lists what it loaded (process.moduleLoadList, test/fixtures/preload/loaded-at-exit.cjs).
// Likewise the SDK's JSON Schema validator, ajv (~15 M: ~835 M -> ~820 M): its modules ran with the SDK's
// platform shim; they run at the first schema the server validates, a legacy client's answer to a form
// question (src/mcp/sdk-shims.ts), seen here as the ~40 modules ajv marks __esModule when they run.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, REPO, scratchProject, tmp } from "../support/hcpx";
import { mcpLine, mcpRequest, mcpStart } from "../support/mcp-lines.mjs";
import { grantedLedger } from "./support";

const PRELOAD = join(REPO, "test", "fixtures", "preload", "loaded-at-exit.cjs");
const LATE = /^NativeModule (crypto|child_process)$/;

/** counts the modules marked __esModule as they run (ajv's ~40 in hcpx mcp's bundle), into $ES_MODULES_AT_EXIT */
const ES_MODULES = join(REPO, "test", "fixtures", "preload", "es-modules-at-exit.cjs");

type Msg = { id?: number; method?: string; result?: Record<string, unknown> };

/**
 * One `hcpx mcp` given `input`, stdin closed once every request in it is answered (a call running at stdin's end
 * would be cancelled), a request of the server's answered with `answer`'s result: its answers by id, the builtins
 * of LATE it loaded, and the modules marked __esModule (ES_MODULES).
 */
async function session(
  dir: string,
  home: string,
  input: string,
  opts: { env?: Record<string, string>; answer?: (m: Msg) => unknown } = {},
) {
  const out = join(tmp("hcpx-mcp-loaded-"), "report.txt");
  const esOut = join(tmp("hcpx-mcp-loaded-"), "es-modules.txt");
  const child = spawn(process.execPath, ["-r", PRELOAD, "-r", ES_MODULES, HCPX, "mcp"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      LOADED_AT_EXIT: out,
      ES_MODULES_AT_EXIT: esOut,
      HCPX_AUDIT_LOG: "off",
      ...opts.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const ids = input
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { id?: number }).id)
    .filter((id) => id !== undefined);
  const byId = new Map<number, Msg>();
  let buf = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const m = JSON.parse(buf.slice(0, nl)) as Msg;
      buf = buf.slice(nl + 1);
      if (m.method !== undefined && m.id !== undefined)
        child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: opts.answer?.(m) ?? {} }) + "\n");
      else if (m.id !== undefined) byId.set(m.id, m);
      if (ids.every((id) => byId.has(id))) child.stdin.end();
    }
  });
  // a guard against a hung server, not a timing assertion
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const code = await new Promise<number | null>((r) => {
    child.on("close", r);
    child.stdin.write(input);
  });
  clearTimeout(guard);
  expect(code, err).toBe(0);
  return {
    byId,
    late: readFileSync(out, "utf8")
      .split("\n")
      .filter((m) => LATE.test(m)),
    esModules: Number(readFileSync(esOut, "utf8")),
  };
}

describe("hcpx mcp's start path", () => {
  it("a host's start to its first tools/list loads neither node:crypto nor node:child_process, either era, first start or not", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    for (const era of ["legacy", "modern"] as const) {
      const home = tmp("hcpx-mcp-loaded-home-");
      // the first start builds the tool list (and fills the caches); the second takes it from the start cache
      for (const start of ["first", "second"]) {
        const s = await session(p.dir, home, mcpStart(era));
        const tools = (s.byId.get(2)?.result?.tools ?? []) as { name: string }[];
        expect(
          tools.map((t) => t.name),
          `${era}, ${start} start`,
        ).toContain("hcp");
        expect(s.late, `${era}, ${start} start`).toEqual([]);
        // ajv's modules did not run (it marks ~40; whatever else of the bundle does is far fewer)
        expect(s.esModules, `${era}, ${start} start`).toBeLessThan(10);
      }
    }
  });

  it("the check sees them: a wrap call loads node:child_process, a modern client's confirm question (a signed requestState) node:crypto", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    const ping = mcpRequest("legacy", 3, "tools/call", { name: "hcp", arguments: { pack: "calc-wrap", verb: "ping" } });
    const wrap = await session(p.dir, tmp("hcpx-mcp-loaded-home-"), mcpStart("legacy") + ping);
    expect(wrap.byId.get(3)?.result?.structuredContent).toEqual({ ok: true, data: { pong: true } });
    expect(wrap.late).toEqual(["NativeModule child_process"]);

    // a gated write asked of a modern client that can be asked: an InputRequiredResult with its requestState, nothing run
    const l = grantedLedger({ confirm: { by: "person" } });
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    };
    const args = { pack: "ledger", verb: "transfer", args: { from: "checking", to: "savings", amount: 7 } };
    const transfer = mcpLine({ id: 3, method: "tools/call", params: { name: "hcp", arguments: args, _meta } });
    const asked = await session(l.dir, l.home, mcpStart("modern") + transfer, { env: { LEDGER_FILE: l.ledger } });
    expect(asked.byId.get(3)?.result).toMatchObject({ resultType: "input_required" });
    expect(typeof asked.byId.get(3)?.result?.requestState).toBe("string");
    expect(asked.late).toEqual(["NativeModule crypto"]);
  });

  it("ajv runs at the first schema the server validates: a legacy client's accepted answer to hcpx's confirm question, which runs the write", async () => {
    const l = grantedLedger({ confirm: { by: "person" } });
    const before = readFileSync(l.ledger, "utf8");
    const clientInfo = { name: "raw", version: "1" };
    const opening =
      mcpLine({
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: { elicitation: {} }, clientInfo },
      }) + mcpLine({ method: "notifications/initialized" });
    const args = { pack: "ledger", verb: "transfer", args: { from: "checking", to: "savings", amount: 7 } };
    const asked: string[] = [];
    const s = await session(
      l.dir,
      l.home,
      opening + mcpRequest("legacy", 3, "tools/call", { name: "hcp", arguments: args }),
      {
        env: { LEDGER_FILE: l.ledger, LEDGER_NOW: "2026-01-01T00:00:00Z" },
        answer: (m) => (asked.push(m.method!), { action: "accept", content: {} }),
      },
    );
    expect(asked).toEqual(["elicitation/create"]);
    expect(s.byId.get(3)?.result?.structuredContent).toMatchObject({ ok: true });
    expect(readFileSync(l.ledger, "utf8")).not.toBe(before);
    expect(s.esModules).toBeGreaterThan(30);
  });
});
