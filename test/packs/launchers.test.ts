// Issue 26 §3: existing MCP servers as they are distributed. `pack from-mcp --
// npx -y <package> <dir>` (the command's own help example) works the way hosts
// run it: the launcher gets the PATH it needs from the runtime (its own and this
// Node's directory), never from the pack; the pack then runs under `hcpx exec`.
// `--env PATH` is refused before anything runs, and nothing is left behind (no
// packs/<id>, no sandbox.bins edit). `import <host>` lists a remote (URL) server
// next to the stdio ones; one whose URL carries a token is listed as not
// importable, the URL not repeated (test/packs/mcp-url.test.ts imports remote ones).
import { existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { launcherPath } from "../../src/runtime/wrap";
import { REPO, runHcpx } from "../support/cli";
import { needsProcess, runInProcess } from "../support/inproc";
import { tmp } from "../support/project";

const FS_SERVER = "@modelcontextprotocol/server-filesystem";
const FS_BIN = "mcp-server-filesystem";

function project() {
  const dir = tmp("hcpx-launch-");
  const home = tmp("hcpx-launch-home-");
  // npx finds the package in the project's node_modules (no network): the package and its bin as npm
  // links them, not all of this repository's node_modules, which npx would read whole (its
  // loadActual) at each start, ~1.2 CPU-s more each
  mkdirSync(join(dir, "node_modules", "@modelcontextprotocol"), { recursive: true });
  mkdirSync(join(dir, "node_modules", ".bin"));
  symlinkSync(join(REPO, "node_modules", FS_SERVER), join(dir, "node_modules", FS_SERVER));
  symlinkSync(readlinkSync(join(REPO, "node_modules", ".bin", FS_BIN)), join(dir, "node_modules", ".bin", FS_BIN));
  mkdirSync(join(dir, "files"));
  // exec as a real process; init, pack from-mcp (the launcher it starts stays a process), activate, grant and import in this process (test/support/inproc.ts)
  const run = (args: string[]) =>
    (needsProcess(args) ? runHcpx : runInProcess)(args, { cwd: dir, env: { HOME: home }, timeoutMs: 90_000 });
  return { dir, home, run };
}

describe("launchers (npx, uvx) as hosts run them", () => {
  it(
    "from-mcp -- npx -y @modelcontextprotocol/server-filesystem ./files: imported, activated, run",
    { timeout: 180_000 },
    async () => {
      const p = project();
      expect((await p.run(["init", "--yes"])).code).toBe(0);
      const r = await p.run([
        "pack",
        "from-mcp",
        "--id",
        "fs",
        "--json",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "./files",
      ]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(readFileSync(join(p.dir, "hcp.config.json5"), "utf8")).toMatch(/bins: \{ npx: "\/[^"]+" \}/);
      expect((await p.run(["activate", "packs/fs"])).code).toBe(0);
      expect((await p.run(["grant", "fs.list_allowed_directories"])).code).toBe(0);
      const x = await p.run(["exec", "fs", "list_allowed_directories", "--json"]);
      expect(x.code, x.stderr + x.stdout).toBe(0);
      expect(JSON.stringify(JSON.parse(x.stdout).data)).toContain(join(p.dir, "files"));
    },
  );

  it("--env PATH is refused before anything runs; nothing is left behind", async () => {
    const p = project();
    expect((await p.run(["init", "--yes"])).code).toBe(0);
    const before = readFileSync(join(p.dir, "hcp.config.json5"), "utf8");
    const r = await p.run([
      "pack",
      "from-mcp",
      "--id",
      "fs",
      "--env",
      "PATH",
      "--json",
      "--",
      "npx",
      "-y",
      "@modelcontextprotocol/server-filesystem",
      "./files",
    ]);
    expect(r.code).toBe(64);
    expect(JSON.parse(r.stdout).error.hint).toContain("a launcher (npx, uvx…) gets the PATH it needs");
    expect(existsSync(join(p.dir, "packs"))).toBe(false);
    expect(readFileSync(join(p.dir, "hcp.config.json5"), "utf8")).toBe(before);
  });

  it("only a launcher gets a PATH, made from where it resolved", () => {
    expect(launcherPath("/usr/bin/npx")?.split(":")[0]).toBe("/usr/bin");
    expect(launcherPath("/usr/lib/node_modules/npm/bin/npx-cli.js", "npx")).toBeDefined();
    expect(launcherPath("/home/me/.local/bin/uvx")?.split(":")[0]).toBe("/home/me/.local/bin");
    expect(launcherPath("/usr/bin/git", "git")).toBeUndefined();
  });

  it("import claude lists a remote (URL) server next to the stdio ones; a token in its URL keeps it out, never repeated", async () => {
    const p = project();
    expect((await p.run(["init", "--yes"])).code).toBe(0);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      join(p.dir, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          web: { type: "http", url: "https://example.com/mcp?token=secret" },
          local: { command: "node", args: ["x.mjs"] },
        },
      }),
    );
    const r = await p.run(["import", "claude", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const servers = JSON.parse(r.stdout).data.servers as { name: string; skip?: string; remote?: boolean }[];
    expect(servers.find((s) => s.name === "web")).toMatchObject({
      remote: true,
      skip: expect.stringContaining("'token' in its query, a credential"),
    });
    expect(r.stdout).not.toContain("token=secret");
    expect(servers.find((s) => s.name === "local")?.skip).toBeUndefined();
  });
});
