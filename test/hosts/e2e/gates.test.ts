// Issue 27 §2 with the host's own program: the approval rules adopt writes from the
// Policy are the ones the host applies. Amp answers `amp permissions test <tool>` from
// its settings without a model or a login: a granted read is "allow", a confirm-gated
// write "ask"; a rule of the person's that comes first and allows every hcp tool makes
// Amp allow the gated write, and that is exactly what `adopt --check` names
// (policy_widened). Then `amp mcp doctor` connects to the per-command tools, and
// `--remove --write` gives the project back byte for byte.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffSnapshots, hc, hostHome, makeWorld, removeAfterAll, snapshot } from "./support";

const has = existsSync(join(hc.HOSTS_DIR, "node_modules", ".bin", "amp"));
if (!has) console.warn(`[host e2e] amp SKIPPED: not installed in ${hc.HOSTS_DIR} (scripts/install-hosts.sh)`);
const cleanup = removeAfterAll();

interface Decision {
  action: string;
  matchedEntry?: { tool: string; action: string };
  source?: string;
}

describe.skipIf(!has)("Amp applies the approval rules adopt writes (amp permissions test)", () => {
  const env = (h: string) => hc.hostEnv(h, { AMP_API_KEY: "x" });
  const decide = async (cwd: string, home: string, tool: string): Promise<Decision> => {
    // -w: the workspace's settings (.amp/settings.json), where a project adopt writes
    const r = await hc.run(hc.hostBin("amp"), ["permissions", "test", tool, "--json", "-w"], {
      cwd,
      env: env(home),
      timeoutMs: 60_000,
    });
    expect(r.stdout, r.stderr).toMatch(/^\{/);
    return JSON.parse(r.stdout) as Decision;
  };

  it("reads allow, the gated write asks (Amp's own default would allow it); a person's earlier `mcp__hcp__*` allow wins in Amp and adopt --check names it", async () => {
    const w = makeWorld();
    cleanup(w.dir, w.home);
    expect((await w.hcpx(["grant", "ledger.transfer"])).code).toBe(0);
    const before = snapshot(w.dir);
    const h = cleanup(hostHome(w.home));
    // before adopt: Amp's built-in `mcp__*` allow lets the gated write run without asking
    expect((await decide(w.dir, h, "mcp__hcp__ledger__transfer")).action).toBe("allow");
    const a = await w.adopt("amp", "--write");
    expect(a.code, a.stderr).toBe(0);
    const read = await decide(w.dir, h, "mcp__hcp__ledger__balance");
    expect(read.action).toBe("allow");
    expect(read.matchedEntry?.tool).toBe("mcp__hcp__ledger__balance");
    const gated = await decide(w.dir, h, "mcp__hcp__ledger__transfer");
    expect(gated.action).toBe("ask");
    expect(gated.matchedEntry?.tool).toBe("mcp__hcp__ledger__transfer");
    expect((await w.adopt("amp", "--check")).code).toBe(0);

    // the person puts their own rule first: Amp now allows the gated write, and hcpx says so
    const file = w.abs(".amp/settings.json");
    const text = w.read(".amp/settings.json");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      file,
      text.replace('"amp.permissions": [', '"amp.permissions": [\n    { "tool": "mcp__hcp__*", "action": "allow" },'),
    );
    const widened = await decide(w.dir, h, "mcp__hcp__ledger__transfer");
    expect(widened.action).toBe("allow");
    expect(widened.matchedEntry?.tool).toBe("mcp__hcp__*");
    const c = await w.adopt("amp", "--check");
    expect(c.code).toBe(1);
    expect(c.stdout + c.stderr).toMatch(/mcp__hcp__\*.*lets mcp__hcp__ledger__transfer run without asking/);
    writeFileSync(file, text);

    // the server itself: approved, connected, one tool per command
    const ap = await hc.run(hc.hostBin("amp"), ["mcp", "approve", "hcp"], {
      cwd: w.dir,
      env: env(h),
      timeoutMs: 60_000,
    });
    expect(ap.code, ap.stdout + ap.stderr).toBe(0);
    const d = await hc.run(hc.hostBin("amp"), ["mcp", "doctor"], { cwd: w.dir, env: env(h), timeoutMs: 90_000 });
    const line = d.stdout.split("\n").find((l) => l.startsWith("hcp ("));
    expect(line, d.stdout + d.stderr).toMatch(/: connected \(\d+ tools: .*ledger__balance/);
    expect(line).toMatch(/ledger__transfer/);

    const r = await w.adopt("amp", "--remove", "--write");
    expect(r.code, r.stderr).toBe(0);
    expect(diffSnapshots(before, snapshot(w.dir))).toEqual([]);
  });
});
