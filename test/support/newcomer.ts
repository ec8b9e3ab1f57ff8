// The newcomer walk (issue 26): a scratch project of someone's own — a git
// repository with its own CLAUDE.md and .mcp.json (another MCP server) — and
// the README's "Use it on your own project" commands run as written, in order,
// with `hcpx` on PATH and a HOME of its own. Shared by test/adopt/newcomer.test.ts
// and the host suite's test/hosts/e2e/newcomer.test.ts (the hosts' own programs).
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { cleanPath, HCPX, REPO, run } from "./cli";
import { tmp } from "./project";
import { snapshot } from "./snapshot";

export const OWN_HEADING = "## Use it on your own project";

/** The commands of the first ```sh block under the README's "Use it on your own project". */
export function ownProjectCommands(readme = readFileSync(join(REPO, "README.md"), "utf8")): string[] {
  const start = readme.indexOf(`\n${OWN_HEADING}\n`);
  if (start < 0) return [];
  const rest = readme.slice(start + OWN_HEADING.length + 2);
  const section = rest.slice(0, rest.search(/\n## /) < 0 ? undefined : rest.search(/\n## /));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l && !l.startsWith("#"));
}

export const OWN_CLAUDE_MD = "# My project\n\nBuild with `make`; never push to main.\n";

export interface Walk {
  dir: string;
  home: string;
  env: Record<string, string>;
  /** the project and HOME just before the first `adopt … --write` */
  before: { project: Record<string, string>; home: Record<string, string> };
  outputs: Record<string, string>;
  sh: (cmd: string) => Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Run the README's quick start in a fresh project of one's own; `otherServer`: the argv of the .mcp.json server already there. */
export async function newcomerWalk(otherServer: string[] = ["node", "--version"]): Promise<Walk> {
  const bin = tmp("hcpx-newcomer-bin-");
  symlinkSync(HCPX, join(bin, "hcpx"));
  const dir = tmp("hcpx-newcomer-");
  const home = tmp("hcpx-newcomer-home-");
  const env = { PATH: `${bin}:${cleanPath()}`, HOME: home, NO_COLOR: "1" };
  const sh = (cmd: string) => run("bash", ["-c", cmd], { cwd: dir, env, timeoutMs: 60_000 });
  const init = await sh(
    "git init -q && git -c user.email=dev@example.com -c user.name=dev commit -q --allow-empty -m first",
  );
  expect(init.code, init.stderr).toBe(0);
  writeFileSync(join(dir, "CLAUDE.md"), OWN_CLAUDE_MD);
  writeFileSync(
    join(dir, ".mcp.json"),
    JSON.stringify(
      { mcpServers: { other: { type: "stdio", command: otherServer[0], args: otherServer.slice(1) } } },
      null,
      2,
    ) + "\n",
  );
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "main.c"), "int main(void) { return 0; }\n");
  const cmds = ownProjectCommands();
  expect(cmds.length, "the README has its quick start").toBeGreaterThanOrEqual(4);
  const outputs: Record<string, string> = {};
  let before: Walk["before"] | undefined;
  for (const cmd of cmds) {
    if (!before && /^hcpx adopt .*--write/.test(cmd)) before = { project: snapshot(dir), home: snapshot(home) };
    const r = await sh(cmd);
    expect(r.code, `${cmd}\n${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    outputs[cmd] = r.stdout;
  }
  expect(before, "the quick start adopts with --write").toBeDefined();
  return { dir, home, env, before: before!, outputs, sh };
}
