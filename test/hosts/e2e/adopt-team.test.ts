// Host e2e for "adoption that fits a team": the hosts' own programs prove that
// what `adopt` calls healthy is what the host uses.
// - Codex starts user-scope servers in ~/.codex with a short environment (no
//   XDG_CONFIG_HOME): the user-scope entry names the user config (`--config`), so
//   `codex app-server` `mcpServerStatus/list` (no thread: started in ~/.codex) lists
//   the user's packs' tools.
// - Gemini CLI blocks a server its user settings' `mcp.allowed` does not list
//   (`⛔ … Blocked`): `adopt gemini --scope user --write` adds hcp to that list and
//   `gemini mcp list` shows it Connected; at project scope adopt does not edit the user
//   file, and `--check` says why Gemini will not use it (exit 1), as Gemini shows.
import { describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { availability, hc, hostHome, makeWorld, removeAfterAll, expectConnected, TINY, LEDGER_READS } from "./support";

const avail = availability();
const cleanup = removeAfterAll();
const PER_COMMAND_TOOLS = ["hcp__read_skill", "ledger__accounts", "ledger__balance", "ledger__entries"];

/** A user config (under $XDG_CONFIG_HOME/hcp, as many people keep it) activating the world's ledger pack. */
function userConfig(dir: string, xdg: string): string {
  mkdirSync(join(xdg, "hcp"), { recursive: true });
  const file = join(xdg, "hcp", "config.json5");
  writeFileSync(
    file,
    JSON.stringify(
      {
        packs: [join(dir, "packs", "ledger")],
        principal: { id: "me", kind: "agent" },
        grants: { allow: LEDGER_READS },
        sandbox: { roots: [dir], cwd: dir },
      },
      null,
      2,
    ) + "\n",
  );
  return file;
}

describe.skipIf(!avail.has.codex || !avail.has.gemini)("adoption that fits a team, proven by the hosts", () => {
  it("Codex: the user-scope entry serves the user config's packs from ~/.codex, without XDG_CONFIG_HOME (mcpServerStatus/list, no thread)", async () => {
    const w = makeWorld();
    cleanup(w.dir, w.home);
    const xdg = join(w.home, "xdg");
    const file = userConfig(w.dir, xdg);
    const r = await w.hcpx(["adopt", "codex", "--scope", "user", "--write"], { XDG_CONFIG_HOME: xdg });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(w.read("~/.codex/config.toml")).toContain(JSON.stringify(file));
    const check = await w.hcpx(["adopt", "codex", "--scope", "user", "--check"], { XDG_CONFIG_HOME: xdg });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    // Codex gets XDG_CONFIG_HOME in its own environment and does not pass it on
    const st = await hc.codexMcpServerStatus({
      home: cleanup(hostHome(w.home)),
      cwd: w.dir,
      thread: false,
      env: { XDG_CONFIG_HOME: xdg },
    });
    expect(st.error, st.raw.stderr.slice(-2000)).toBeUndefined();
    expectConnected(st, ["hcp-user"], "codex mcpServerStatus/list");
    expect(st.servers.find((s) => s.name === "hcp-user")!.tools!.sort()).toEqual(PER_COMMAND_TOOLS);
  });

  it("Gemini CLI: mcp.allowed in the user settings — project adopt --check names it (Gemini shows Blocked); user adopt adds hcp and Gemini connects", async () => {
    const settings = `{\n  // mine\n  "mcp": { "allowed": ["tiny-user"] },\n  "mcpServers": { "tiny-user": { "command": "$NODE", "args": ["$TINY"] } }\n}\n`;
    const w = makeWorld({ "~/.gemini/settings.json": settings });
    cleanup(w.dir, w.home);
    const xdg = join(w.home, "xdg");
    userConfig(w.dir, xdg);
    // project scope: the user's list is not adopt's to edit; --check says why the host will not use the server
    expect((await w.adopt("gemini", "--write")).code).toBe(0);
    const check = await w.adopt("gemini", "--check");
    expect(check.code, check.stdout).toBe(1);
    expect(check.stdout).toMatch(
      /~\/\.gemini\/settings\.json: Gemini CLI blocks a server that your user settings' mcp\.allowed does not list/,
    );
    const blocked = await hc.geminiMcpList({ home: cleanup(hostHome(w.home)), cwd: w.dir });
    expect(blocked.raw.stderr + blocked.raw.stdout).toMatch(/hcp\b.*Blocked/);
    // user scope: hcp goes onto the list (the person's entries and comment kept); Gemini connects it
    const u = await w.hcpx(["adopt", "gemini", "--scope", "user", "--write"], { XDG_CONFIG_HOME: xdg });
    expect(u.code, u.stderr + u.stdout).toBe(0);
    const text = w.read("~/.gemini/settings.json");
    expect(text).toContain("// mine");
    expect(text).toMatch(/"allowed": \[\s*"tiny-user",\s*"hcp-user"\s*\]/);
    const list = await hc.geminiMcpList({ home: cleanup(hostHome(w.home)), cwd: w.home });
    expectConnected(list, ["hcp-user", "tiny-user"], "gemini mcp list");
    // and --remove gives the list back as it was
    const rm = await w.hcpx(["adopt", "gemini", "--scope", "user", "--remove", "--write"], { XDG_CONFIG_HOME: xdg });
    expect(rm.code, rm.stderr).toBe(0);
    expect(w.read("~/.gemini/settings.json")).toBe(
      settings.replaceAll("$NODE", process.execPath).replaceAll("$TINY", TINY),
    );
  });
});

if (!avail.has.codex || !avail.has.gemini) {
  describe("adoption that fits a team (host e2e)", () => {
    it.skip(`SKIPPED — ${avail.reason}`, () => {});
  });
}
