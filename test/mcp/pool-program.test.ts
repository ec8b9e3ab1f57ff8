// hcpx mcp keeps each mcp pack's stdio server running between calls (src/runtime/mcp-adapter.ts, the pool),
// and hcpx exec starts one per call: both must answer with the server program as it is on disk now. The pool
// reuses a server only while its program's files (the pack's bin, and Node when it runs a .mjs) have the
// identity they had when it started, and never keeps one started within RACY_MS of a change to them (the racy
// rule, src/util/stamp.ts). Before, a program replaced at the same path (an editor's save, an upgrade) went on
// answering from the old process (found in review: "mcp after" said v1 where exec said v2).
import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope, ledgerProject, startMcp } from "./support";
import { RACY_MS } from "../../src/mcp/stamp";
import { runHcpx } from "../support/cli";
import { alive } from "../runtime/support";

/** A stdio MCP server whose one tool `ver` answers `answer` and the server's pid. */
const server = (answer: string) => `#!/usr/bin/env node
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
let buf = "";
process.stdin.on("data", (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf("\\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const { id, method, params } = JSON.parse(line);
    if (id === undefined) continue;
    if (method === "initialize") send({ jsonrpc: "2.0", id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "ver", version: "1" } } });
    else if (method === "tools/list") send({ jsonrpc: "2.0", id, result: { tools: [{ name: "ver", inputSchema: { type: "object", properties: {} } }] } });
    else if (method === "tools/call") send({ jsonrpc: "2.0", id, result: { structuredContent: { answer: ${JSON.stringify(answer)}, pid: process.pid } } });
    else send({ jsonrpc: "2.0", id, result: {} });
  }
});
process.stdin.on("end", () => process.exit(0));
`;

/** A project with the mcp pack `ver` over bins/ver.mjs; put() replaces the program as an editor saves it. */
function verProject() {
  const p = ledgerProject({ packs: ["ledger"] });
  const pack = join(p.dir, "packs", "ver");
  mkdirSync(pack);
  const bin = join(p.dir, "bins", "ver.mjs");
  const put = (answer: string) => {
    writeFileSync(`${bin}.tmp`, server(answer));
    chmodSync(`${bin}.tmp`, 0o755);
    renameSync(`${bin}.tmp`, bin);
  };
  put("v1");
  writeFileSync(
    join(pack, "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      id: "ver",
      version: "0.1.0",
      description: "A server that says its version",
      kind: "mcp",
      mcp: { bin: "../../bins/ver.mjs", timeout_ms: 10000 },
      commands: [{ verb_key: "ver", summary: "Say the version", tool: "ver", args: {} }],
    }),
  );
  writeFileSync(join(pack, "policy.json"), JSON.stringify({ rows: { ver: { operation: "read" } } }));
  writeFileSync(
    join(pack, "SKILL.md"),
    '---\nname: ver\ndescription: "Say the version."\nleads:\n  - "ver: say the version"\n---\n\n# ver\n\n| verb | what it does | read/write |\n|---|---|---|\n| `ver` | say it | read |\n',
  );
  writeFileSync(
    p.config,
    JSON.stringify({
      packs: ["./packs/ver"],
      principal: { id: "test", kind: "agent" },
      grants: { allow: ["ver.*"], deny: [] },
      sandbox: { roots: ["."], cwd: "." },
    }),
  );
  return { p, put, made: Date.now() };
}

describe("hcpx mcp's kept stdio server and its program on disk", () => {
  it("a replaced program answers the next call (the old server closed); one changed within RACY_MS is not kept", async () => {
    const { p, put, made } = verProject();
    const s = await startMcp(p, { args: ["--no-watch"] });
    try {
      const ver = async () => {
        const e = envelope(await s.client.callTool({ name: "hcp", arguments: { pack: "ver", verb: "ver", args: {} } }));
        expect(e.ok, JSON.stringify(e)).toBe(true);
        return e.data as { answer: string; pid: number };
      };
      // the program settled: its stamp vouches for it, and the server is kept
      await new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 100 - Date.now())));
      const first = await ver();
      expect(first.answer).toBe("v1");
      expect(await ver()).toEqual(first);

      put("v2");
      const exec = await runHcpx(["exec", "ver", "ver", "--json"], { cwd: p.dir, env: { HOME: p.home } });
      expect(exec.stdout).toContain('"v2"');
      const after = await ver();
      expect(after.answer).toBe("v2");
      expect(after.pid).not.toBe(first.pid);
      expect(alive(first.pid)).toBe(false);

      // v2 was written within RACY_MS of its server's start: that server answered its call only
      const again = await ver();
      expect(again.answer).toBe("v2");
      expect(again.pid).not.toBe(after.pid);
    } finally {
      await s.close();
    }
  }, 30_000);
});
