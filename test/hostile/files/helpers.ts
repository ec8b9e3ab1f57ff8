// Helpers for the hostile file tests: a large project (many synthetic packs),
// pre-existing user config for every host, tree snapshots, and a way to run
// the built CLI and SIGKILL it at a moment of our choosing.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createPatch } from "diff";
import { cleanPath, HCPX, REPO, runHcpx, spawnHcpx, type RunResult } from "../../support/cli";
import { tmp } from "../../support/project";

/** PATH without any `hcpx` (so adopt picks the same command every time). */
export { cleanPath };

let hcpxBin: string | undefined;
/**
 * cleanPath() with this install's `hcpx` in front: for runs that write `--command "hcpx mcp"`,
 * whose --check also asks that the command resolves on the host's PATH (src/host/health.ts).
 */
export function pathWithHcpx(): string {
  if (!hcpxBin) {
    hcpxBin = tmp("hcpx-bin-");
    symlinkSync(HCPX, join(hcpxBin, "hcpx"));
  }
  return `${hcpxBin}:${cleanPath()}`;
}

/** Write `n` synthetic pass-through packs (copies of packs/notes with their own ids and longer Skills) below `dir/packs`. */
export function syntheticPacks(dir: string, n: number): string[] {
  const src = join(REPO, "packs", "notes");
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `syn${String(i).padStart(3, "0")}`;
    const d = join(dir, "packs", id);
    mkdirSync(d, { recursive: true });
    writeFileSync(
      join(d, "surface.json"),
      readFileSync(join(src, "surface.json"), "utf8").replace('id: "notes"', `id: "${id}"`),
    );
    writeFileSync(join(d, "policy.json"), readFileSync(join(src, "policy.json")));
    const skill = readFileSync(join(src, "SKILL.md"), "utf8")
      .replace("name: notes", `name: ${id}`)
      .replace("# notes", `# ${id}`);
    writeFileSync(
      join(d, "SKILL.md"),
      skill + `\n## More about ${id}\n\n` + `Line ${i} of filler text so the Skill copies are not tiny.\n`.repeat(40),
    );
    ids.push(id);
  }
  return ids;
}

export interface BigProject {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** Pre-existing host files a person might have (other servers, comments, prose). */
export const USER_FILES: Record<string, string> = {
  ".mcp.json":
    '{\n  "mcpServers": {\n    "github": { "command": "gh-mcp", "args": ["--stdio"] }\n  },\n  "x-note": "mine"\n}\n',
  ".cursor/mcp.json": '{\n    "mcpServers": {\n        "db": {\n            "command": "db-mcp"\n        }\n    }\n}\n',
  ".vscode/mcp.json":
    '// my servers\n{\n\t"servers": {\n\t\t"fs": { "type": "stdio", "command": "fs-mcp" }, // keep\n\t},\n\t"inputs": []\n}\n',
  ".gemini/settings.json": '{\n  // theme first\n  "theme": "Dracula",\n  "mcpServers": {}\n}\n',
  "opencode.jsonc":
    '{\n  "$schema": "https://opencode.ai/config.json",\n  // models\n  "model": "anthropic/claude-sonnet-4",\n}\n',
  ".codex/config.toml": '# my codex\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-mcp"\nargs = ["-v"]\n',
  "CLAUDE.md": "# Project rules\r\n\r\nUse tabs.\r\n",
  "AGENTS.md": "# Agents\n\nBe brief.\n",
  "GEMINI.md": "Gemini, be careful.",
  "~/.claude.json":
    JSON.stringify(
      {
        numStartups: 12,
        projects: { "/a": { allowedTools: [] }, "/b": { history: ["x"] } },
        mcpServers: { mine: { command: "m" } },
        userID: "abc",
      },
      null,
      2,
    ) + "\n",
  "~/.gemini/settings.json": '{\n  "general": { "vimMode": true }\n}\n',
  "~/.codex/config.toml": 'model = "gpt-5"\n',
  "~/.claude/CLAUDE.md": "# Me\n\nI like short answers.\n",
};

/** A project with `n` synthetic packs activated, the user files above, and its own HOME. */
export function bigProject(n: number, opts: { dir?: string; home?: string } = {}): BigProject {
  const dir = opts.dir ?? tmp("hcpx-big-");
  const home = opts.home ?? tmp("hcpx-big-home-");
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  const ids = syntheticPacks(dir, n);
  const config = {
    packs: ids.map((id) => `./packs/${id}`),
    principal: { id: "test", kind: "agent" },
    grants: { allow: ids.map((id) => `${id}.*`), deny: [] },
  };
  writeFileSync(join(dir, "hcp.config.json5"), JSON.stringify(config, null, 2) + "\n");
  for (const [rel, text] of Object.entries(USER_FILES)) {
    const f = rel.startsWith("~/") ? join(home, rel.slice(2)) : join(dir, rel);
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, text);
  }
  return { dir, home, env: { HOME: home, PATH: pathWithHcpx() } };
}

export { snapshot } from "../../support/snapshot";

/** Replace `dst` by a copy of `src` (same absolute path each time, so planned bytes are comparable). */
export function resetTree(src: string, dst: string): void {
  rmSync(dst, { recursive: true, force: true });
  cpSync(src, dst, { recursive: true, verbatimSymlinks: true });
}

export function hcpx(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return runHcpx(args, { cwd, env, timeoutMs: 60_000 });
}

/**
 * Run the CLI and SIGKILL it `ms` after its start — or, with `after`, `ms` after
 * the file `after` first appears (polled every ~1 ms). Resolves with how it ended.
 */
export function runAndKill(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ms: number,
  after?: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; elapsed: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawnHcpx(args, { cwd, env, stdio: ["ignore", "ignore", "ignore"] });
    let timer: NodeJS.Timeout | undefined;
    let poll: NodeJS.Timeout | undefined;
    if (after === undefined) timer = setTimeout(() => child.kill("SIGKILL"), ms);
    else
      poll = setInterval(() => {
        if (!existsSync(after)) return;
        clearInterval(poll);
        timer = setTimeout(() => child.kill("SIGKILL"), ms);
      }, 1);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve({ code, signal, elapsed: performance.now() - t0 });
    });
  });
}

/** A deterministic PRNG (mulberry32) so a failing moment can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Names of temp files left by an atomic write. */
export const TEMP_RE = /\.hcpx-\d+-[a-z0-9]+\.tmp$/;

/** Keys whose values differ between two snapshots, with a short decoded hint for small text files. */
export function snapDiff(a: Record<string, string>, b: Record<string, string>): string[] {
  const out: string[] = [];
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (a[k] === b[k]) continue;
    const dec = (v: string | undefined) =>
      v === undefined
        ? "<absent>\n"
        : v === "dir"
          ? "<dir>\n"
          : Buffer.from(v.slice(v.indexOf(":") + 1), "base64").toString("utf8");
    const patch = createPatch(k, dec(b[k]), dec(a[k]), "expected", "got", { context: 1 });
    out.push(patch.split("\n").slice(0, 60).join("\n"));
  }
  return out;
}

/** Run the CLI to the end, polling (every ~1 ms) when `watch` exists: the window in which it writes. */
export function runWatching(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  watch: string,
): Promise<{ code: number | null; elapsed: number; from?: number; to?: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let from: number | undefined;
    let to: number | undefined;
    const child = spawnHcpx(args, { cwd, env, stdio: ["ignore", "ignore", "ignore"] });
    const poll = setInterval(() => {
      if (existsSync(watch)) {
        from ??= performance.now() - t0;
        to = performance.now() - t0;
      }
    }, 1);
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(poll);
      resolve({ code, elapsed: performance.now() - t0, from, to });
    });
  });
}
