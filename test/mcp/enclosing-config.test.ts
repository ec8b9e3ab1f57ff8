// Whether a project config is used at all also depends on the configs of the projects enclosing it
// (src/pack/nested.ts: a config in a writable root of a project whose OS sandbox is on is refused unless that
// project names its folder). hcpx exec reads them on every call; hcpx mcp keeps the project it loaded while
// the files it came from keep their stamps (src/mcp/view-cache.ts), and keeps a start's tool list for the next
// start (start-cache.ts): both stamp the enclosing configs too, there or not. Before they did, a running
// server went on calling on a config hcpx exec refused, and a restarted one listed its tools from the start
// cache (found in review, stop 63).
import { cpSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { envelope, ledgerProject, startMcp, writeConfig, type McpSession } from "./support";
import { RACY_MS } from "../../src/mcp/stamp";
import { runHcpx } from "../support/cli";

const balance = { name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } } };
const call = async (s: McpSession) => envelope(await s.client.callTool(balance));

/** An enclosing project (its sandbox off) and, inside its folder, the ledger project the server serves. */
function nested() {
  const outer = ledgerProject({ packs: ["ledger"] });
  const dir = join(outer.dir, "inner");
  mkdirSync(dir);
  for (const d of ["packs", "bins"]) cpSync(join(outer.dir, d), join(dir, d), { recursive: true });
  const ledger = join(dir, "ledger.json");
  cpSync(outer.ledger, ledger);
  writeConfig(join(dir, "hcp.config.json5"), {
    packs: ["./packs/ledger"],
    principal: { id: "test", kind: "agent" },
    grants: { allow: ["ledger.*"], deny: [] },
    sandbox: { roots: ["."], cwd: "." },
  });
  writeConfig(outer.config, { packs: [], grants: { allow: [] } });
  /** the person turns the OS sandbox on in the enclosing project (an editor's save: a new file renamed over it) */
  const enforce = () => {
    const t = join(outer.dir, ".hcp.config.json5.tmp");
    writeFileSync(t, JSON.stringify({ packs: [], grants: { allow: [] }, sandbox: { enforce: "os" } }));
    renameSync(t, outer.config);
  };
  const exec = () =>
    runHcpx(["exec", "ledger", "balance", "checking", "--json"], {
      cwd: dir,
      env: { HOME: outer.home, LEDGER_FILE: ledger },
    });
  return { p: { dir, home: outer.home, ledger }, enforce, exec };
}

let running: ReturnType<typeof nested>;
let restarted: ReturnType<typeof nested>;
let made: number;
beforeAll(() => {
  running = nested();
  restarted = nested();
  made = Date.now();
});
/** every file settled: the stamps vouch for them from then on (src/util/stamp.ts RACY_MS) */
const settled = () => new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 100 - Date.now())));

describe("hcpx mcp and the configs of enclosing projects", () => {
  it("a running server refuses the next call once the enclosing project turns its OS sandbox on, as hcpx exec does", async () => {
    await settled();
    const { p, enforce, exec } = running;
    const s = await startMcp(p, { args: ["--no-watch"] });
    try {
      expect((await call(s)).ok).toBe(true);
      expect((await call(s)).ok).toBe(true); // the project kept, vouched for by its stamps
      enforce();
      expect(JSON.parse((await exec()).stdout).error.code).toBe("nested_config");
      expect((await call(s)).error?.code).toBe("nested_config");
    } finally {
      await s.close();
    }
  });

  it("a restart after that edit does not start from the start cache: it fails as a start without the cache does", async () => {
    await settled();
    const { p, enforce } = restarted;
    const s = await startMcp(p, { args: ["--no-watch"] });
    expect((await call(s)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // the start's listing is kept after its first turn (setImmediate)
    await s.close();
    enforce();
    const r = await runHcpx(["mcp", "--no-watch"], { cwd: p.dir, env: { HOME: p.home }, input: "" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("lies in a writable root of the project of");
  });
});
