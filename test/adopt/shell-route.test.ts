// The prompt block advertises the shell route (`hcpx exec …`) only where the
// host's shell can run it: `hcpx` on PATH (the MCP entry runs a bare `hcpx`),
// and not for a host whose descriptor says `shellRoute: false` (Codex). A block
// two hosts share (AGENTS.md: Codex and opencode) advertises it only if both
// can. And Gemini's MCP entry names the Binding env names (else Gemini strips
// them). The agent-loop suite (test/agents/) proves each with the hosts' agents.
import { mkdirSync, realpathSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { HCPX, tmp } from "../support/hcpx";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

const SHELL = "hcpx exec <pack> <verb>";
const block = (text: string) => /<!-- hcp:begin -->\n([\s\S]*?)<!-- hcp:end -->/.exec(text)![1]!;

function withHcpxOnPath() {
  const s = scratch();
  const bin = tmp("hcpx-shell-bin-");
  mkdirSync(bin, { recursive: true });
  symlinkSync(HCPX, join(bin, "hcpx"));
  // executable as the build leaves it (scripts/build.mjs); never changed here: other files run it meanwhile
  expect(statSync(HCPX).mode & 0o111, `${HCPX} is executable`).toBe(0o111);
  const path = `${bin}:${s.env.PATH}`;
  return { s, adopt: (...a: string[]) => s.run(["adopt", ...a], { PATH: path }) };
}

describe("shell route in the prompt block", () => {
  it("hcpx on PATH: advertised to Claude Code and opencode, not to Codex; Codex + opencode share one AGENTS.md block without it, and --check is in sync", async () => {
    const { s, adopt } = withHcpxOnPath();
    expect((await adopt("claude", "--write")).code).toBe(0);
    expect(block(s.read("CLAUDE.md"))).toContain(SHELL);
    const oc = await adopt("opencode", "--write");
    expect(oc.code, oc.stderr).toBe(0);
    expect(block(s.read("AGENTS.md"))).toContain(SHELL);
    // adding Codex (recorded opencode + this run): the shared block loses the route for both
    const both = await adopt("codex", "opencode", "--write");
    expect(both.code, both.stderr + both.stdout).toBe(0);
    const agents = block(s.read("AGENTS.md"));
    expect(agents).not.toContain("hcpx exec");
    expect(agents).toContain("`<pack>__<verb>`"); // both are served one tool per command
    const check = await adopt("claude", "codex", "opencode", "--check");
    expect(check.code, check.stdout + check.stderr).toBe(0);
    for (const host of ["codex", "opencode"]) {
      const one = await adopt(host, "--check");
      expect(one.code, `${host}: ${one.stdout}${one.stderr}`).toBe(0);
    }
  });

  it("no hcpx on PATH (the entry runs node + dist): the block names that command for the shell route, never a bare `hcpx exec`", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const b = block(s.read("CLAUDE.md"));
    expect(b).not.toMatch(/`hcpx exec/);
    expect(b).toContain(`\`${process.execPath} ${realpathSync(HCPX)} exec <pack> <verb> --json -- key=value …\``);
    expect(b).toContain("`hcpx` is not on PATH here");
    // a --command that is not `… mcp` has no shell form: the block offers the MCP tools only, without --confirm
    expect((await s.adopt("claude", "--write", "--command", "my-wrapper")).code).toBe(0);
    const w = block(s.read("CLAUDE.md"));
    expect(w).not.toContain(" exec <pack>");
    expect(w).not.toContain("--confirm");
    expect(w).toContain("runs only with `confirm: true` in the tool call");
  });
});

describe("Gemini CLI's MCP entry names the Binding env names", () => {
  it('env: {LEDGER_TOKEN: "$LEDGER_TOKEN", …} from the active packs\' binding.env; --remove takes it out', async () => {
    const s = scratch();
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    const doc = parseJsonc(s.read(".gemini/settings.json")) as {
      mcpServers: { hcp: { env?: Record<string, string> } };
    };
    expect(doc.mcpServers.hcp.env).toEqual({ LEDGER_TOKEN: "$LEDGER_TOKEN" });
    expect((await s.adopt("gemini", "--check")).code).toBe(0);
    expect((await s.adopt("gemini", "--remove", "--write")).code).toBe(0);
  });
});
