// Support for the host e2e suite: typed access to test/hosts/hostcli.mjs (the
// helpers that run the hosts' own programs), scratch project + HOME, whole-tree
// snapshots, and copies of HOME for the hosts to scribble in.
import { afterAll, expect } from "vitest";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { HCPX, REPO, runHcpx, scratchProject, tmp, type RunResult } from "../../support/hcpx";

// ---------------------------------------------------------------- hostcli.mjs, typed

export interface Raw {
  cmd: string;
  args: string[];
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
  /** how long the run waited for a slot before its clock started (test/hosts/slots.mjs) */
  waitedMs?: number;
}
export interface Server {
  name: string;
  status: string;
  command?: string;
  detail?: string;
  tools?: string[];
  error?: string;
  runtimeStatus?: string | null;
}
export interface HostResult {
  ok: boolean;
  servers: Server[];
  raw: Raw;
}
interface ListOpts {
  home: string;
  cwd: string;
  copyHome?: boolean;
  timeoutMs?: number;
  env?: Record<string, string>;
}
export interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: { ok: boolean; data?: unknown; error?: unknown };
  isError?: boolean;
  error?: unknown;
}
export interface HostCli {
  HOSTS_DIR: string;
  hostsAvailable(): Record<"claude" | "gemini" | "codex" | "opencode" | "inspector", boolean>;
  claudeMcpList(o: ListOpts): Promise<HostResult>;
  claudeMcpGet(
    name: string,
    o: ListOpts,
  ): Promise<
    HostResult & {
      server: { name: string; status: string; scope?: string; type?: string; command?: string; args?: string };
    }
  >;
  claudePluginValidate(
    dir: string,
    o?: { strict?: boolean },
  ): Promise<
    HostResult & {
      errors: unknown[];
      warnings: unknown[];
      provides: { mcpServers?: { name: string }[]; skills?: unknown[] } | null;
      report: unknown;
    }
  >;
  geminiMcpList(o: ListOpts & { trust?: boolean }): Promise<HostResult & { error?: string }>;
  geminiExtensionValidate(dir: string): Promise<HostResult & { errors: string[]; warnings: string[] }>;
  opencodeMcpList(o: ListOpts): Promise<HostResult>;
  codexMcpServerStatus(
    o: ListOpts & { thread?: boolean; call?: { server: string; tool: string; arguments?: Record<string, unknown> } },
  ): Promise<HostResult & { threadId: string | null; callResult?: ToolResult; error?: string }>;
  codexInstructions(o: ListOpts): Promise<{ ok: boolean; text: string | null; raw: Raw }>;
  run(
    cmd: string,
    args: string[],
    o?: { cwd?: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number },
  ): Promise<Raw>;
  hostEnv(home: string, extra?: Record<string, string>): Record<string, string>;
  /** fn() while holding one of the host-program slots (test/hosts/slots.mjs) */
  withSlot<T>(fn: (waitedMs: number) => Promise<T>): Promise<T>;
  canRunOffline(): boolean;
  hostBin(host: string): string;
  parseClaudeMcpList(text: string): Server[];
  parseGeminiMcpList(text: string): Server[];
  inspectorCall(o: {
    command?: string;
    args?: string[];
    config?: string;
    server?: string;
    method?: string;
    toolName?: string;
    toolArgs?: Record<string, unknown>;
    serverEnv?: Record<string, string>;
    cwd?: string;
    timeoutMs?: number;
  }): Promise<
    HostResult & { result: (ToolResult & { tools?: { name: string }[] }) | null; tools?: string[]; text?: string }
  >;
}

export const hc = (await import(pathToFileURL(join(REPO, "test", "hosts", "hostcli.mjs")).href)) as HostCli;

/** Which host programs are installed, and a reason line when some are not. */
export function availability(): { all: boolean; has: ReturnType<HostCli["hostsAvailable"]>; reason: string } {
  const has = hc.hostsAvailable();
  const missing = Object.entries(has)
    .filter(([, v]) => !v)
    .map(([k]) => k);
  const reason = missing.length
    ? `host programs missing in ${hc.HOSTS_DIR} (${missing.join(", ")}): run \`npm run test:hosts\` or scripts/install-hosts.sh`
    : "";
  if (missing.length) console.warn(`[host e2e] SKIPPED: ${reason}`);
  return { all: missing.length === 0, has, reason };
}

// ---------------------------------------------------------------- scratch world

/** PATH without any directory that holds an `hcpx` (so adopt writes absolute node + dist). */
export function pathWithoutHcpx(path = process.env.PATH ?? ""): string {
  return path
    .split(delimiter)
    .filter((d) => d && !existsSync(join(d, "hcpx")))
    .join(delimiter);
}

/** The absolute dist entry adopt writes into MCP entries (realpath, as command.ts does). */
export const DIST = realpathSync(HCPX);
export const TINY = join(REPO, "test", "hosts", "fixtures", "tiny-mcp.mjs");
export const LEDGER_READS = ["ledger.accounts", "ledger.balance", "ledger.entries"];
/**
 * The user's own config (`~/.config/hcp/config.json5`): what user scope serves, from any
 * directory (README "User scope"); `$P` is the scratch project (makeWorld fills it in).
 */
export const USER_CONFIG_FILE = "~/.config/hcp/config.json5";
export const USER_CONFIG = `{ packs: ["$P/packs/ledger"], grants: { allow: ${JSON.stringify(LEDGER_READS)} }, sandbox: { roots: ["$P"], cwd: "$P" } }\n`;

export interface World {
  /** scratch project root (a git repo) */
  dir: string;
  /** scratch HOME for hcpx */
  home: string;
  env: NodeJS.ProcessEnv;
  hcpx: (args: string[], extra?: NodeJS.ProcessEnv) => Promise<RunResult>;
  adopt: (...args: string[]) => Promise<RunResult>;
  /** read a file of the project, or of HOME with `~/` */
  read: (rel: string) => string;
  abs: (rel: string) => string;
}

/**
 * A scratch git project holding copies of the example packs, the ledger pack
 * activated with read grants only, a seeded ledger.json (checking 1200, savings
 * 5000), and a scratch HOME. `userFiles` are written before anything else
 * (pre-existing user config that adopt must keep).
 */
export function makeWorld(userFiles: Record<string, string> = {}, envExtra: NodeJS.ProcessEnv = {}): World {
  const p = scratchProject({ packs: ["ledger"], allow: LEDGER_READS, deny: [] });
  const home = tmp("hcpx-e2e-home-");
  const git = spawnSync("git", ["init", "-q"], { cwd: p.dir, encoding: "utf8" });
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr}`);
  const seed = spawnSync(process.execPath, [join(p.dir, "bins", "ledger.mjs"), "account", "open", "cash", "--json"], {
    cwd: p.dir,
    env: {
      PATH: process.env.PATH ?? "",
      LEDGER_FILE: join(p.dir, "ledger.json"),
      LEDGER_SEED: "1",
      LEDGER_NOW: "2026-01-01T00:00:00Z",
    },
    encoding: "utf8",
  });
  if (seed.status !== 0) throw new Error(`seeding the ledger failed: ${seed.stderr}`);
  const abs = (rel: string) => (rel.startsWith("~/") ? join(home, rel.slice(2)) : join(p.dir, rel));
  for (const [rel, text] of Object.entries(userFiles)) {
    mkdirSync(dirname(abs(rel)), { recursive: true });
    writeFileSync(
      abs(rel),
      text.replaceAll("$P", p.dir).replaceAll("$TINY", TINY).replaceAll("$NODE", process.execPath),
    );
  }
  const env: NodeJS.ProcessEnv = { HOME: home, PATH: pathWithoutHcpx(), ...envExtra };
  const hcpx = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runHcpx(args, { cwd: p.dir, env: { ...env, ...extra }, timeoutMs: 60_000 });
  return {
    dir: p.dir,
    home,
    env,
    hcpx,
    adopt: (...args) => hcpx(["adopt", ...args]),
    read: (rel) => readFileSync(abs(rel), "utf8"),
    abs,
  };
}

/** A copy of `home` for a host to run in (hosts rewrite their own files in $HOME); `files` added to the copy only. */
export function hostHome(
  home: string,
  files: Record<string, string> = {},
  append: Record<string, string> = {},
): string {
  const h = tmp("hcpx-e2e-hosthome-");
  cpSync(home, h, { recursive: true, verbatimSymlinks: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(h, rel)), { recursive: true });
    writeFileSync(join(h, rel), text);
  }
  for (const [rel, text] of Object.entries(append)) {
    mkdirSync(dirname(join(h, rel)), { recursive: true });
    const old = existsSync(join(h, rel)) ? readFileSync(join(h, rel), "utf8") : "";
    writeFileSync(join(h, rel), old + (old && !old.endsWith("\n") ? "\n" : "") + text);
  }
  return h;
}

export function rm(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------- snapshots

/** path → "dir" | "link:<target>" | file bytes (as a Buffer) — the whole tree under `root`. */
export type Snapshot = Map<string, string | Buffer>;

export function snapshot(root: string): Snapshot {
  const out: Snapshot = new Map();
  const walk = (rel: string) => {
    const abs = rel ? join(root, rel) : root;
    for (const name of readdirSync(abs).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(root, r));
      if (st.isSymbolicLink()) out.set(r, `link:${readlinkSync(join(root, r))}`);
      else if (st.isDirectory()) {
        out.set(r, "dir");
        walk(r);
      } else out.set(r, readFileSync(join(root, r)));
    }
  };
  walk("");
  return out;
}

/** Differences between two snapshots, one line each (empty = byte-identical trees). */
export function diffSnapshots(before: Snapshot, after: Snapshot): string[] {
  const lines: string[] = [];
  const show = (v: string | Buffer) => (typeof v === "string" ? v : JSON.stringify(v.toString("utf8").slice(0, 400)));
  for (const [k, v] of before) {
    if (!after.has(k)) lines.push(`missing now: ${k}`);
    else {
      const w = after.get(k)!;
      const same = typeof v === "string" || typeof w === "string" ? v === w : v.equals(w);
      if (!same) lines.push(`changed: ${k}\n  before: ${show(v)}\n  after:  ${show(w)}`);
    }
  }
  for (const [k, w] of after)
    if (!before.has(k)) lines.push(`added: ${k}${typeof w === "string" ? ` (${w})` : `: ${show(w)}`}`);
  return lines;
}

export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Parse a markdown file's YAML frontmatter (between the first two `---` lines). */
export async function frontmatter(text: string): Promise<{ data: Record<string, unknown>; body: string }> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!m) throw new Error(`no frontmatter in:\n${text.slice(0, 200)}`);
  const { parse } = await import("yaml");
  return { data: (parse(m[1]!) ?? {}) as Record<string, unknown>, body: m[2]! };
}

/** Strictly parse JSON (the portable shape: no comments, no trailing commas). */
export function strictJson(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

export { HCPX, REPO, tmp };

/** every named server listed and connected (with the host's output in the failure message) */
/** `adopt <host> [scope…] --remove --write` for each host (each exit 0, no warning), then the project and HOME are byte-identical to their snapshots. */
export async function expectRemoveRestores(
  w: World,
  hosts: readonly string[],
  before: { proj: Snapshot; home: Snapshot },
  scope: readonly string[] = [],
): Promise<void> {
  for (const host of hosts) {
    const r = await w.adopt(host, ...scope, "--remove", "--write");
    expect(r.code, `${host}: ${r.stderr}${r.stdout}`).toBe(0);
    expect(r.stdout, host).not.toMatch(/warning:/);
  }
  expect(diffSnapshots(before.proj, snapshot(w.dir))).toEqual([]);
  expect(diffSnapshots(before.home, snapshot(w.home))).toEqual([]);
}

export function expectConnected(r: HostResult, names: string[], what: string): void {
  const why = `${what}: ${JSON.stringify(r.servers)}\nexit ${r.raw.code}${r.raw.timedOut ? " (timed out)" : ""}\nstdout:\n${r.raw.stdout.slice(-3000)}\nstderr:\n${r.raw.stderr.slice(-3000)}`;
  for (const n of names) expect(r.servers.find((s) => s.name === n)?.status, why).toBe("connected");
}

/**
 * Scratch dirs of a test file, removed after it (kept with HCPX_E2E_KEEP=1).
 * Call at the top level of the file; the returned function registers dirs and
 * returns the first.
 */
export function removeAfterAll(): (...dirs: string[]) => string {
  const dirs: string[] = [];
  afterAll(() => {
    if (!process.env.HCPX_E2E_KEEP) for (const d of dirs) rm(d);
  });
  return (...more) => {
    dirs.push(...more);
    return more[0]!;
  };
}
