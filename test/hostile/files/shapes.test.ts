// Host files in odd shapes (issue 6 item 3), the part in `npm test`: every
// shape for .mcp.json (the JSON merge and every refusal), a merge and a
// refusal for a TOML file and a markdown block (.codex/config.toml: CRLF, then
// "null" refused; AGENTS.md: BOM, then 5 MB refused by Codex's limit), a
// non-UTF-8 ~/.claude.json (user scope), and ~/.claude.json with 500
// projects. The full matrix (11 files x 14 shapes, so also every shape of
// every file here) is shapes.slow.ts (`npm run test:hostile:slow`, in .ci/run).
// What a case checks: shapes-cases.ts.
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchProject, tmp } from "../../support/project";
import { HOST_FILES, runShape, SHAPES, type Shape, type ShapeCase } from "./shapes-cases";
import { userConfigOf } from "../../support/userconfig";
import { cleanPath } from "./helpers";
import { runInProcess } from "../../support/inproc";

/** adopt in this process (test/support/inproc.ts), as in shapes-cases.ts */
const hcpx = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => runInProcess(args, { cwd, env });

const FULL = new Set([".mcp.json"]);
const SOME: Record<string, Shape[]> = {
  ".codex/config.toml": ["crlf", "null"],
  "AGENTS.md": ["bom", "big"],
  "~/.claude.json": ["non-utf8"],
};

async function inBatches(cases: ShapeCase[], n: number): Promise<void> {
  for (let i = 0; i < cases.length; i += n) await Promise.all(cases.slice(i, i + n).map(runShape));
}

describe("host files in odd shapes: merged keeping every other byte, or refused and left untouched", () => {
  it("the subset names known host files and shapes", () => {
    for (const [path, shapes] of Object.entries(SOME)) {
      expect(
        HOST_FILES.map((f) => f.path),
        path,
      ).toContain(path);
      for (const sh of shapes) expect(SHAPES, `${path}: ${sh}`).toContain(sh);
    }
  });
  for (const file of HOST_FILES) {
    const shapes = FULL.has(file.path) ? SHAPES : (SOME[file.path] ?? []);
    if (shapes.length === 0) continue;
    it(`${file.path}: ${shapes.join(", ")}`, async () => {
      await inBatches(
        shapes.map((shape) => ({ file, shape })),
        3,
      );
    }, 180_000);
  }

  it("~/.claude.json with 500 projects and other top-level keys: all kept, byte for byte outside mcpServers.hcp-user", async () => {
    const p = scratchProject({ packs: ["ledger"] });
    const home = tmp("hcpx-claude-json-");
    const env = { HOME: home, PATH: cleanPath() };
    const projects = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [
        `/home/u/src/p${i}`,
        {
          allowedTools: [`Bash(git:*)`],
          history: [{ display: `ünïcödé ${i}`, pastedContents: {} }],
          mcpServers: { [`local${i}`]: { command: "x" } },
          hasTrustDialogAccepted: i % 2 === 0,
        },
      ]),
    );
    const doc = {
      numStartups: 812,
      installMethod: "npm",
      autoUpdates: false,
      tipsHistory: { a: 1 },
      userID: "f".repeat(64),
      projects,
      oauthAccount: { emailAddress: "me@example.com" },
      mcpServers: { mine: { type: "stdio", command: "mine" } },
    };
    const text = JSON.stringify(doc, null, 2) + "\n";
    writeFileSync(join(home, ".claude.json"), text);
    const userFile = userConfigOf(p.dir, home);
    const w = await hcpx(["adopt", "claude", "--scope", "user", "--command", "hcpx mcp", "--write"], p.dir, env);
    expect(w.code, w.stderr).toBe(0);
    const after = readFileSync(join(home, ".claude.json"), "utf8");
    const parsed = JSON.parse(after) as typeof doc & { mcpServers: Record<string, unknown> };
    expect(Object.keys(parsed.projects)).toHaveLength(500);
    expect(parsed.projects).toEqual(projects);
    expect(parsed.mcpServers.mine).toEqual(doc.mcpServers.mine);
    // Claude Code alone reads ~/.claude.json: the entry names its host (src/host/ask-rules.ts)
    expect(parsed.mcpServers["hcp-user"]).toMatchObject({
      command: "hcpx",
      args: ["mcp", "--shape", "per-command", "--host", "claude", "--config", userFile],
    });
    // only added lines: the original is the text with our entry taken out
    const rem = await hcpx(["adopt", "claude", "--scope", "user", "--remove", "--write"], p.dir, env);
    expect(rem.code, rem.stderr).toBe(0);
    expect(readFileSync(join(home, ".claude.json"), "utf8")).toBe(text);
  }, 60_000);
});
