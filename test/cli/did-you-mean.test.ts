// "Did you mean" (issue 17): a mistyped host, command, pack or verb is a usage
// error (exit 64) whose hint names the closest real one; nothing is written.
// Every run is in this process (test/support/inproc.ts), with the run checks (no stack, no internal
// error): the hint is the command's (commander's for a command, the runtime's for a pack or verb), not
// the process's; the bin's own forms of exec and adopt are test/cli/fast-exec.test.ts's.
import { describe, expect, it } from "vitest";
import { envelope, noStack, project } from "./helpers";
import { execInProcess, runInProcessChecked } from "../support/inproc";
import { closest } from "../../src/util/suggest";

/** `hcpx ...args` in `cwd`, in this process: exec through execInProcess, each run with the no-stack checks. */
async function hcpx(args: string[], cwd: string) {
  if (args[0] !== "exec") return runInProcessChecked(args, { cwd });
  const r = await execInProcess(args, { cwd });
  noStack(r);
  return r;
}

describe("did you mean", () => {
  it("adopt claud → did you mean 'claude', exit 64, nothing written", async () => {
    const p = project();
    const r = await hcpx(["adopt", "claud", "--write", "--json"], p.dir);
    expect(r.code).toBe(64);
    expect(envelope(r).error).toMatchObject({ code: "unknown_host" });
    expect(envelope(r).error.hint).toMatch(/^did you mean 'claude' or 'claude-desktop'\?/); // two known ids are one edit or a suffix away
    const g = await hcpx(["generate", "--host", "cursr"], p.dir);
    expect(g.code).toBe(64);
    expect(g.stderr).toContain("did you mean 'cursor'?");
  });

  it("an unknown command and subcommand", async () => {
    const p = project();
    const r = await hcpx(["genrate", "--json"], p.dir);
    expect(r.code).toBe(64);
    expect(envelope(r).error.message).toMatch(/Did you mean generate\?/);
    const s = await hcpx(["pack", "nwe"], p.dir);
    expect(s.code).toBe(64);
    expect(s.stderr).toMatch(/Did you mean new\?/);
  });

  it("exec of an unknown pack or verb: the closest active pack / granted verb, exit 64", async () => {
    const p = project();
    const r = await hcpx(["exec", "ledgr", "balance", "--json"], p.dir);
    expect(r.code).toBe(64);
    expect(envelope(r).error).toMatchObject({ code: "unknown_pack" });
    expect(envelope(r).error.hint).toMatch(/^did you mean 'ledger'\?/);
    const v = await hcpx(["exec", "ledger", "balanse", "--json"], p.dir);
    expect(v.code).toBe(64);
    expect(envelope(v).error.hint).toMatch(/^did you mean 'balance'\?/);
  });

  it("grant and deactivate of a mistyped name", async () => {
    const p = project();
    const before = p.read();
    const g = await hcpx(["grant", "ledger.acounts"], p.dir);
    expect(g.code).toBe(64);
    expect(g.stderr).toContain("did you mean 'ledger.accounts'?");
    const d = await hcpx(["deactivate", "ledgr"], p.dir);
    expect(d.code).toBe(64);
    expect(d.stderr).toContain("did you mean 'ledger'?");
    expect(p.read()).toBe(before);
  });

  it("suggests only what is close", () => {
    expect(closest("claud", ["claude", "codex", "cursor"])).toEqual(["claude"]);
    expect(closest("stauts", ["status", "show", "log"])).toEqual(["status"]);
    expect(closest("xyz", ["status", "show", "log"])).toEqual([]);
    expect(closest("gemeni", ["gemini", "opencode"])).toEqual(["gemini"]);
  });
});
