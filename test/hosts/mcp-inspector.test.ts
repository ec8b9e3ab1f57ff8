// `hcpx mcp` seen by an outside client: the MCP Inspector CLI (0.15.x), installed by
// scripts/install-hosts.sh. Part of the optional host e2e suite: skipped unless
// HCPX_HOSTS_DIR points at such an install.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, tmp } from "../support/hcpx";
import { ledgerProject } from "../mcp/support";

const HOSTS_DIR = process.env.HCPX_HOSTS_DIR;
const INSPECTOR = HOSTS_DIR ? join(HOSTS_DIR, "node_modules", ".bin", "mcp-inspector") : "";
const available = !!HOSTS_DIR && existsSync(INSPECTOR);

/** `mcp-inspector --cli [-e K=V] -- node hcpx --config … mcp [shape] --method …` (server after `--`, see HOST-PROBES.md). */
function inspector(config: string, env: Record<string, string>, method: string[], serverArgs: string[] = []) {
  const home = tmp("hcpx-insp-home-");
  const a = ["--cli"];
  for (const [k, v] of Object.entries(env)) a.push("-e", `${k}=${v}`);
  a.push("--", process.execPath, HCPX, "--config", config, "mcp", ...serverArgs, ...method);
  const r = spawnSync(INSPECTOR, a, {
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 60_000,
    killSignal: "SIGKILL",
  });
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

describe.skipIf(!available)("hcpx mcp under the MCP Inspector CLI", () => {
  it("lists the tools of both shapes", () => {
    const p = ledgerProject({
      packs: ["ledger", "inbox-watch"],
      allow: ["ledger.*", "inbox-watch.*"],
      deny: ["ledger.entry.delete"],
    });
    const single = inspector(p.config, { LEDGER_FILE: p.ledger }, ["--method", "tools/list"]);
    expect(single.code, single.stderr).toBe(0);
    const names = (single.json!.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(["hcp", "hcp__read_skill"]);
    const per = inspector(p.config, { LEDGER_FILE: p.ledger }, ["--method", "tools/list"], ["--shape", "per-command"]);
    expect(per.code, per.stderr).toBe(0);
    const perNames = (per.json!.tools as { name: string }[]).map((t) => t.name);
    expect(perNames).toContain("ledger__transfer");
    expect(perNames).not.toContain("ledger__entry_delete");
    expect(perNames.some((n) => n.startsWith("inbox"))).toBe(false);
  });

  it("calls hcp: a read, and a confirm-gated write refused without confirm (file unchanged)", () => {
    const p = ledgerProject({ packs: ["ledger"] });
    const read = inspector(p.config, { LEDGER_FILE: p.ledger }, [
      "--method",
      "tools/call",
      "--tool-name",
      "hcp",
      "--tool-arg",
      "pack=ledger",
      "verb=balance",
      'args={"account":"checking"}',
    ]);
    expect(read.code, read.stderr).toBe(0);
    expect(read.json).toMatchObject({
      isError: false,
      structuredContent: { ok: true, data: { account: "checking", balance: 1200 } },
    });
    const before = readFileSync(p.ledger);
    const write = inspector(p.config, { LEDGER_FILE: p.ledger }, [
      "--method",
      "tools/call",
      "--tool-name",
      "hcp",
      "--tool-arg",
      "pack=ledger",
      "verb=transfer",
      'args={"from":"checking","to":"savings","amount":5}',
    ]);
    expect(write.code, write.stderr).toBe(0); // the inspector exits 0 even for isError results
    expect(write.json).toMatchObject({
      isError: true,
      structuredContent: { ok: false, error: { code: "confirm_required" } },
    });
    expect(readFileSync(p.ledger).equals(before)).toBe(true);
  });
});
