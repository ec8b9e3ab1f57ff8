// Issue 26: the newcomer walk with the host's own program. A project of one's
// own (its own CLAUDE.md, and a .mcp.json with another server), the README's
// "Use it on your own project" commands as written (two hosts adopted), then
// `claude mcp list` in the project lists hcp ✔ Connected next to the project's
// own server; `--remove` gives the project back byte for byte.
import { describe, expect, it } from "vitest";
import { snapshot } from "../../support/snapshot";
import { newcomerWalk } from "../../support/newcomer";
import { availability, expectConnected, hc, hostHome, removeAfterAll, TINY } from "./support";

const avail = availability();
const cleanup = removeAfterAll();

describe.skipIf(!avail.has.claude)("the newcomer walk, read by Claude Code", () => {
  it("README quick start as written: `claude mcp list` shows hcp ✔ Connected next to the project's own server; removal byte for byte", async () => {
    const w = await newcomerWalk(["node", TINY]);
    cleanup(w.dir, w.home);
    // the person approves the project's servers once (README: Claude Code asks)
    const h = cleanup(hostHome(w.home, { ".claude/settings.json": '{ "enableAllProjectMcpServers": true }\n' }));
    const list = await hc.claudeMcpList({ home: h, cwd: w.dir, env: { PATH: w.env.PATH } });
    expectConnected(list, ["hcp", "other"], "claude mcp list (newcomer project)");
    const hosts = /^hcpx adopt (.*?) --write$/m.exec(Object.keys(w.outputs).join("\n"))![1]!;
    const rm = await w.sh(`hcpx adopt ${hosts} --remove --write`);
    expect(rm.code, rm.stderr + rm.stdout).toBe(0);
    expect(snapshot(w.dir)).toEqual(w.before.project);
  });
});
