// The README tutorial is a test: every command of its ```sh blocks runs, in
// order, in one scratch directory with `hcpx` on PATH, and must exit 0.
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { REPO, run } from "../support/hcpx";
import { hcpxBin, noStack, tmp } from "../cli/helpers";
import { listHosts, loadDescriptor } from "../../src/host/descriptor";

const HEADING = "## Tutorial: wrap a CLI you already have in five minutes";

export function tutorialCommands(readme: string): string[] {
  const start = readme.indexOf(`\n${HEADING}\n`);
  if (start < 0) return [];
  const rest = readme.slice(start + HEADING.length + 2);
  const end = rest.search(/\n## /);
  const section = end < 0 ? rest : rest.slice(0, end);
  const cmds: string[] = [];
  for (const m of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of m[1]!.split("\n")) {
      const cmd = line.replace(/\s+#.*$/, "").trim();
      if (cmd && !cmd.startsWith("#")) cmds.push(cmd);
    }
  }
  return cmds;
}

describe("README tutorial", () => {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const cmds = tutorialCommands(readme);

  it("has the tutorial, from hcpx init to hcpx adopt claude --write", () => {
    expect(cmds[0]).toBe("hcpx init --yes");
    expect(cmds).toContain("hcpx adopt claude --write");
    expect(cmds.length).toBeGreaterThanOrEqual(8);
    expect(readme).toContain("\n## Exit codes\n");
  });

  it("every command runs and exits 0, with the real git", async () => {
    const bin = tmp("hcpx-docbin-");
    symlinkSync(hcpxBin(), join(bin, "hcpx"));
    const dir = tmp("hcpx-tutorial-");
    const home = tmp("hcpx-dochome-");
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home };
    // "your project's directory": a git repository with one commit
    const init = await run(
      "bash",
      ["-c", "git init -q && git -c user.email=dev@example.com -c user.name=dev commit -q --allow-empty -m first"],
      { cwd: dir, env },
    );
    expect(init.code, init.stderr).toBe(0);
    const outputs: Record<string, string> = {};
    for (const cmd of cmds) {
      const r = await run("bash", ["-c", cmd], { cwd: dir, env, timeoutMs: 30_000 });
      expect(r.signal, cmd).toBeNull();
      expect(r.code, `${cmd}\n${r.stdout}\n${r.stderr}`).toBe(0);
      noStack(r);
      outputs[cmd] = r.stdout;
    }
    // the wrapped git really ran, with the {{rev}} argument as one argv element
    expect(outputs["hcpx exec gitx status"]).toMatch(/^## /m);
    expect(outputs["hcpx exec gitx show -- rev=HEAD"]).toContain("first");
    // what the tutorial promises is there
    expect(existsSync(join(dir, "packs/gitx/SKILL.md"))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, ".mcp.json"), "utf8")).mcpServers.hcp).toEqual({
      type: "stdio",
      command: "hcpx",
      args: ["mcp", "--shape", "per-command", "--client-host", "claude"],
    });
    expect(readFileSync(join(dir, "CLAUDE.md"), "utf8")).toContain("gitx");
    expect(readFileSync(join(dir, "hcp.config.json5"), "utf8")).toMatch(/bins: \{ git: "\/[^"]+\/git" \}/);
  });
});

describe("README hosts", () => {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");

  it("the Hosts table has one row per hosts/<id>.json5, and the opening's count is the table's", () => {
    const ids = readdirSync(join(REPO, "hosts"))
      .filter((f) => f.endsWith(".json5"))
      .map((f) => f.slice(0, -".json5".length))
      .sort();
    // the first table after the heading: its consecutive "|" lines
    const lines = readme.slice(readme.indexOf("\n## Hosts\n")).split("\n");
    const first = lines.findIndex((l) => l.startsWith("|"));
    const end = lines.findIndex((l, i) => i > first && !l.startsWith("|"));
    // each row's first cell: "Name (`id`, alias …)"; the header and the rule row have no id
    const rows = lines
      .slice(first, end)
      .map((l) => /^\| [^|]*?\(`([a-z0-9-]+)`/.exec(l)?.[1])
      .filter((id): id is string => id !== undefined);
    expect([...rows].sort()).toEqual(ids);
    // "… Claude Code, Cursor, Codex, Gemini CLI, VS Code Copilot and N more ([Hosts](#hosts))"
    const opening = /— ([^—]+?) and (\d+) more \(\[Hosts\]\(#hosts\)\)/.exec(readme.replace(/\s+/g, " "));
    expect(opening, "the opening names hosts and says how many more").not.toBeNull();
    const named = opening![1]!.split(", ").length;
    expect(named + Number(opening![2])).toBe(ids.length);
  });

  it("the --detected section names every project trace and program of the hosts' descriptors", () => {
    const text = readme.slice(readme.indexOf("### The hosts you use: `--detected`"));
    const next = text.indexOf("\n#", 5); // the next heading ends the section
    const section = next > 0 ? text.slice(0, next) : text;
    const missing: string[] = [];
    for (const host of listHosts()) {
      const d = loadDescriptor(host);
      for (const [scope, sc] of Object.entries(d.scopes ?? {})) {
        const det = (sc as { detect?: { paths?: string[]; programs?: string[] } } | undefined)?.detect;
        if (scope === "project")
          for (const p of det?.paths ?? [])
            if (!section.includes(`\`${p}\``) && !section.includes(`\`${p}/\``)) missing.push(`${host}: ${p}`);
        for (const g of det?.programs ?? []) if (!section.includes(`\`${g}\``)) missing.push(`${host}: program ${g}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
