// Host files in odd shapes (issue 6 item 3), shared by shapes.test.ts (a
// representative subset, in `npm test`) and shapes.slow.ts (the full matrix).
// Each case either merges — our entry is there, and `--remove` gives back the
// exact original tree (so every byte outside our entry was kept) — or is
// refused: exit 1, the path and the reason in the message, no stack trace, and
// the tree untouched (bytes, modes and mtimes), nothing else written.
import { expect } from "vitest";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { scratchProject, tmp } from "../../support/hcpx";
import { userConfigOf } from "../../support/userconfig";
import { pathWithHcpx, snapDiff, snapshot } from "./helpers";
import { runInProcess } from "../../support/inproc";

/** adopt (what it merges and refuses) as a function call in this process (test/support/inproc.ts); the races and kills of the other hostile file tests are processes */
const hcpx = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => runInProcess(args, { cwd, env });

export type Fmt = "json" | "toml" | "md";
export interface HostFile {
  path: string;
  host: string;
  fmt: Fmt;
  scope?: "user";
  /** a realistic existing content (2-space indent, LF) */
  base: string;
  /** the key our entry is written under (json/toml) */
  ours: string;
}

export const HOST_FILES: HostFile[] = [
  {
    path: ".mcp.json",
    host: "claude",
    fmt: "json",
    base: '{\n  "mcpServers": {\n    "github": {\n      "command": "gh-mcp"\n    }\n  },\n  "other": [1, 2]\n}\n',
    ours: '"hcp"',
  },
  {
    path: ".cursor/mcp.json",
    host: "cursor",
    fmt: "json",
    base: '{\n  "mcpServers": {\n    "db": {\n      "command": "db-mcp"\n    }\n  }\n}\n',
    ours: '"hcp"',
  },
  {
    path: ".vscode/mcp.json",
    host: "vscode",
    fmt: "json",
    base: '{\n  // mine\n  "servers": {\n    "fs": {\n      "type": "stdio",\n      "command": "fs-mcp"\n    }\n  }\n}\n',
    ours: '"hcp"',
  },
  {
    path: ".gemini/settings.json",
    host: "gemini",
    fmt: "json",
    base: '{\n  "theme": "Dracula",\n  "mcpServers": {\n    "x": {\n      "command": "x"\n    }\n  }\n}\n',
    ours: '"hcp"',
  },
  {
    path: "opencode.json",
    host: "opencode",
    fmt: "json",
    base: '{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "anthropic/claude-sonnet-4"\n}\n',
    ours: '"hcp"',
  },
  {
    path: "opencode.jsonc",
    host: "opencode",
    fmt: "json",
    base: '{\n  // models\n  "model": "anthropic/claude-sonnet-4",\n}\n',
    ours: '"hcp"',
  },
  {
    path: ".codex/config.toml",
    host: "codex",
    fmt: "toml",
    base: '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-mcp"\nargs = ["-v"]\n',
    ours: "[mcp_servers.hcp]",
  },
  { path: "CLAUDE.md", host: "claude", fmt: "md", base: "# Rules\n\n- be brief\n", ours: "<!-- hcp:begin -->" },
  { path: "AGENTS.md", host: "codex", fmt: "md", base: "# Agents\n\nTabs.\n", ours: "<!-- hcp:begin -->" },
  { path: "GEMINI.md", host: "gemini", fmt: "md", base: "Gemini notes", ours: "<!-- hcp:begin -->" },
  {
    path: "~/.claude.json",
    host: "claude",
    fmt: "json",
    scope: "user",
    base: '{\n  "numStartups": 3,\n  "projects": {\n    "/p": {\n      "allowedTools": []\n    }\n  },\n  "mcpServers": {}\n}\n',
    ours: '"hcp-user"',
  },
];

export type Shape =
  | "bom"
  | "crlf"
  | "tabs"
  | "indent4"
  | "indent2"
  | "big"
  | "empty"
  | "null"
  | "array"
  | "dir"
  | "readonly"
  | "symlink-in"
  | "symlink-out"
  | "non-utf8";
export const SHAPES: Shape[] = [
  "bom",
  "crlf",
  "tabs",
  "indent4",
  "indent2",
  "big",
  "empty",
  "null",
  "array",
  "dir",
  "readonly",
  "symlink-in",
  "symlink-out",
  "non-utf8",
];

/** What must happen: "merge", or a refusal whose message matches. */
export function expected(f: HostFile, shape: Shape): "merge" | RegExp {
  switch (shape) {
    case "dir":
      return /is a directory/;
    case "readonly":
      return /is read-only/;
    case "symlink-out":
      return /symlink leading outside/;
    case "non-utf8":
      return /is not UTF-8 text \(invalid byte at offset \d+\)/;
    case "null":
      return f.fmt === "json"
        ? /the top level is a null, expected an object/
        : f.fmt === "toml"
          ? /cannot parse TOML/
          : "merge";
    case "array":
      return f.fmt === "json"
        ? /the top level is an array, expected an object/
        : f.fmt === "toml"
          ? /cannot parse TOML/
          : "merge";
    case "big":
      // Codex reads at most 32 KiB of AGENTS.md: a block added after 5 MB is refused (hosts/codex.json5 maxBytes)
      return f.host === "codex" && f.fmt === "md"
        ? /the hcp block would end at byte \d+; Codex reads at most 32768 bytes/
        : "merge";
    default:
      return "merge";
  }
}

function reindent(text: string, unit: string): string {
  return text.replace(/^((?: {2})+)/gm, (m) => unit.repeat(m.length / 2));
}

/** The bytes of `f` in `shape` (for file shapes). */
export function shapeBytes(f: HostFile, shape: Shape): Buffer {
  const b = f.base;
  switch (shape) {
    case "bom":
      return Buffer.from("\ufeff" + b, "utf8");
    case "crlf":
      return Buffer.from(b.replace(/\n/g, "\r\n"), "utf8");
    case "tabs":
      return Buffer.from(reindent(b, "\t"), "utf8");
    case "indent4":
      return Buffer.from(reindent(b, "    "), "utf8");
    case "indent2":
      return Buffer.from(b, "utf8");
    case "big": {
      // ~5 MB: many other servers / tables / lines
      const n = 40_000;
      if (f.fmt === "json") {
        const key = f.path.includes("vscode") ? "servers" : f.host === "opencode" ? "mcp" : "mcpServers";
        const many = Array.from(
          { length: n },
          (_, i) => `    "srv${i}": { "command": "server-${i}", "args": ["--port", "${1000 + (i % 9000)}"] }`,
        ).join(",\n");
        return Buffer.from(`{\n  "x-first": true,\n  "${key}": {\n${many}\n  },\n  "x-last": "end"\n}\n`, "utf8");
      }
      if (f.fmt === "toml")
        return Buffer.from(
          b +
            Array.from(
              { length: n },
              (_, i) => `\n[mcp_servers.s${i}]\ncommand = "server-${i}"\nargs = ["--port", "${i}"]\n`,
            ).join(""),
          "utf8",
        );
      return Buffer.from(
        b +
          Array.from({ length: n * 2 }, (_, i) => `- rule ${i}: keep every one of these lines exactly as it is\n`).join(
            "",
          ),
        "utf8",
      );
    }
    case "empty":
      return Buffer.alloc(0);
    case "null":
      return Buffer.from("null\n");
    case "array":
      return Buffer.from("[]\n");
    case "non-utf8": {
      const s =
        f.fmt === "md"
          ? b + "caf\xe9 cr\xe8me\n"
          : f.fmt === "toml"
            ? b + 'note = "caf\xe9"\n'
            : b.replace(/\n}\n$/, ',\n  "note": "caf\xe9"\n}\n');
      return Buffer.from(s, "latin1");
    }
    default:
      return Buffer.from(b, "utf8");
  }
}

export interface ShapeCase {
  file: HostFile;
  shape: Shape;
}

export async function runShape({ file: f, shape }: ShapeCase): Promise<void> {
  const p = scratchProject({ packs: ["ledger", "notes"] });
  const home = tmp("hcpx-shape-home-");
  const env = { HOME: home, PATH: pathWithHcpx() };
  const root = f.scope === "user" ? home : p.dir;
  if (f.scope === "user") userConfigOf(p.dir, home);
  const rel = f.path.replace(/^~\//, "");
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  const label = `${f.path} (${f.host}) as ${shape}`;
  let readAt = abs;
  if (shape === "dir") {
    mkdirSync(abs);
    writeFileSync(join(abs, "keep.txt"), "mine\n");
  } else if (shape === "symlink-in") {
    mkdirSync(join(root, "real"), { recursive: true });
    readAt = join(root, "real", "target");
    writeFileSync(readAt, shapeBytes(f, "indent2"));
    symlinkSync(readAt, abs);
  } else if (shape === "symlink-out") {
    const outside = tmp("hcpx-outside-");
    writeFileSync(join(outside, "target"), shapeBytes(f, "indent2"));
    symlinkSync(join(outside, "target"), abs);
  } else {
    writeFileSync(abs, shapeBytes(f, shape));
    if (shape === "readonly") chmodSync(abs, 0o444);
  }
  const scopeArgs = f.scope === "user" ? ["--scope", "user"] : [];
  const snap = () => ({
    ...Object.fromEntries(Object.entries(snapshot(p.dir, { mtimes: true })).map(([k, v]) => [`P:${k}`, v])),
    ...Object.fromEntries(Object.entries(snapshot(home, { mtimes: true })).map(([k, v]) => [`H:${k}`, v])),
  });
  const before = snap();
  const beforeBytes = shape === "dir" || shape === "symlink-out" ? undefined : readFileSync(readAt);
  const want = expected(f, shape);
  const w = await hcpx(["adopt", f.host, ...scopeArgs, "--command", "hcpx mcp", "--write", "--json"], p.dir, env);
  expect(w.stderr, label).not.toMatch(/\n\s+at .+:\d+:\d+/); // never a stack trace
  if (want !== "merge") {
    expect(w.code, `${label}: must be refused\n${w.stdout}`).toBe(1);
    const refused = (JSON.parse(w.stdout) as { error: { code: string; file?: string; message: string } }).error;
    expect(refused.file, `${label}: ${w.stdout}`).toBe(f.path);
    expect(refused.message, label).toMatch(want);
    expect(snapDiff(snap(), before), `${label}: refused, so nothing may change`).toEqual([]);
    return;
  }
  expect(w.code, `${label}: ${w.stderr}`).toBe(0);
  const after = readFileSync(readAt);
  const text = after.toString("utf8");
  expect(text, `${label}: our entry`).toContain(f.ours);
  if (shape === "symlink-in") expect(snapshot(root)[rel]).toMatch(/^link:/);
  if (shape === "bom") expect(after.subarray(0, 3).toString("hex"), `${label}: BOM kept`).toBe("efbbbf");
  if (shape === "crlf" && f.base.includes("\n"))
    expect(text.replace(/\r\n/g, ""), `${label}: no bare LF added`).not.toContain("\n");
  // our key as the file names it (`"hcp"`, Claude Code's user scope `"hcp-user"`)
  const oursRe = f.ours.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  if (shape === "tabs" && f.fmt === "json")
    expect(text, `${label}: our lines indented with tabs`).toMatch(new RegExp(`\\n\\t+${oursRe}`));
  if (shape === "indent4" && f.fmt === "json")
    expect(text, `${label}: our lines indented by 4`).toMatch(new RegExp(`\\n {8}${oursRe}`));
  // every byte outside our entry: the original bytes are a subsequence we can get back exactly
  const check = await hcpx(["adopt", f.host, ...scopeArgs, "--command", "hcpx mcp", "--check"], p.dir, env);
  expect(check.code, `${label}: --check after write\n${check.stdout}`).toBe(0);
  const again = await hcpx(["adopt", f.host, ...scopeArgs, "--command", "hcpx mcp", "--write", "--json"], p.dir, env);
  expect(
    (JSON.parse(again.stdout) as { data: { written: string[]; deleted: string[] } }).data,
    `${label}: idempotent`,
  ).toMatchObject({ written: [], deleted: [] });
  const rem = await hcpx(["adopt", f.host, ...scopeArgs, "--remove", "--write"], p.dir, env);
  expect(rem.code, `${label}: ${rem.stderr}`).toBe(0);
  expect(readFileSync(readAt).equals(beforeBytes!), `${label}: --remove restores the exact original bytes`).toBe(true);
  const back = snap();
  // mtimes of the file we edited changed; compare everything else without mtimes
  const strip = (o: Record<string, string>) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.replace(/@[\d.]+$/, "")]));
  expect(snapDiff(strip(back), strip(before)), `${label}: the tree is as before`).toEqual([]);
}

export function allCases(): ShapeCase[] {
  return HOST_FILES.flatMap((file) =>
    SHAPES.filter((s) => !(file.fmt !== "json" && (s === "indent4" || s === "indent2") && false)).map((shape) => ({
      file,
      shape,
    })),
  );
}
