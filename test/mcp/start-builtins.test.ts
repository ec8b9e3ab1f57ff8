// issue 29: what `hcpx mcp` loads on a host's start. node:crypto (~25 M instructions with its ~15 internal
// modules) and node:child_process (~12 M, dgram and net's socket list with it) were loaded at every start
// (callgrind: a start to the first tools/list, ~874 M -> ~835 M), though a start until its first tools/list
// neither hashes with node:crypto, signs, nor spawns: they load when first used (src/util/builtins.ts), and
// the random requestState key is made at the first state minted or checked (src/mcp/confirm-state.ts). Node
// itself lists what it loaded (process.moduleLoadList, test/fixtures/preload/loaded-at-exit.cjs).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, REPO, scratchProject, tmp } from "../support/hcpx";
import { mcpLine, mcpRequest, mcpStart } from "../support/mcp-lines.mjs";
import { ledgerProject, writeConfig } from "./support";

const PRELOAD = join(REPO, "test", "fixtures", "preload", "loaded-at-exit.cjs");
const LATE = /^NativeModule (crypto|child_process)$/;

/**
 * One `hcpx mcp` given `input`, stdin closed once every request in it is answered (a call running at stdin's end
 * would be cancelled): its answers by id, and the builtins of LATE it loaded.
 */
async function session(dir: string, home: string, input: string, env: Record<string, string> = {}) {
  const out = join(tmp("hcpx-mcp-loaded-"), "report.txt");
  const child = spawn(process.execPath, ["-r", PRELOAD, HCPX, "mcp"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: home, LOADED_AT_EXIT: out, HCPX_AUDIT_LOG: "off", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const ids = input
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { id?: number }).id)
    .filter((id) => id !== undefined);
  const byId = new Map<number, { result?: Record<string, unknown> }>();
  let buf = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const m = JSON.parse(buf.slice(0, nl)) as { id?: number; result?: Record<string, unknown> };
      buf = buf.slice(nl + 1);
      if (m.id !== undefined) byId.set(m.id, m);
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
    const l = ledgerProject({ packs: ["ledger"] });
    writeConfig(l.config, {
      packs: ["./packs/ledger"],
      principal: { id: "test", kind: "agent" },
      grants: { allow: ["ledger.*"], deny: [] },
      sandbox: { bins: {}, roots: ["."], cwd: "." },
      confirm: { by: "person" },
    });
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    };
    const args = { pack: "ledger", verb: "transfer", args: { from: "checking", to: "savings", amount: 7 } };
    const transfer = mcpLine({ id: 3, method: "tools/call", params: { name: "hcp", arguments: args, _meta } });
    const asked = await session(l.dir, l.home, mcpStart("modern") + transfer, { LEDGER_FILE: l.ledger });
    expect(asked.byId.get(3)?.result).toMatchObject({ resultType: "input_required" });
    expect(typeof asked.byId.get(3)?.result?.requestState).toBe("string");
    expect(asked.late).toEqual(["NativeModule crypto"]);
  });
});
