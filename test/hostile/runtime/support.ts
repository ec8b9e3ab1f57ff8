// Helpers of the hostile runtime suite: /proc inspection (process groups,
// children, zombies), MCP sessions over the real server (optionally with the raw
// JSON-RPC traffic teed to files), and scratch packs over the fixture bins.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { copyFileSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HCPX, tmp } from "../../support/hcpx";
import { connectMcp } from "../../support/mcp";

export const HERE = dirname(fileURLToPath(import.meta.url));
export const OWN_FIXTURES = join(HERE, "fixtures");

/** Copy this suite's fixture bins into `<dir>/hfx/`. */
export function copyOwnFixtures(dir: string): string {
  const to = join(dir, "hfx");
  mkdirSync(to, { recursive: true });
  for (const f of readdirSync(OWN_FIXTURES)) copyFileSync(join(OWN_FIXTURES, f), join(to, f));
  return to;
}

// ---- /proc ----

interface Stat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

function stat(pid: number): Stat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { pid, state: rest[0]!, ppid: Number(rest[1]), pgrp: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

/** Every process (zombies included) whose process group is `pgid`. */
export function groupMembers(pgid: number): Stat[] {
  return allPids()
    .map(stat)
    .filter((s): s is Stat => s !== undefined && s.pgrp === pgid);
}

/** Direct children of `pid` (from /proc/<pid>/task/<tid>/children), zombies included. */
export function childrenOf(pid: number): Stat[] {
  const out: Stat[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    let text = "";
    try {
      text = readFileSync(`/proc/${pid}/task/${t}/children`, "utf8");
    } catch {
      continue;
    }
    for (const c of text.trim().split(/\s+/).filter(Boolean)) {
      const s = stat(Number(c));
      if (s) out.push(s);
    }
  }
  return out;
}

/** True while the pid exists and is not a zombie. */
export function running(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== "Z" && s.state !== "X";
}

/** Poll `check` until it returns true (or give up after `ms`); returns its last value. */
export async function settle(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

// ---- MCP ----

export interface Session {
  client: Client;
  transport: StdioClientTransport;
  /** pid of the `hcpx mcp` process itself */
  serverPid: number;
  stderr: () => string;
  /** the teed raw traffic (tee sessions only) */
  transcript?: () => { stdin: string; stdout: string; stderr: string };
  close: () => Promise<void>;
}

export async function startServer(
  dir: string,
  opts: { env?: Record<string, string>; shape?: "single" | "per-command"; tee?: boolean; home?: string } = {},
): Promise<Session> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: opts.home ?? tmp("hcpx-hmcp-home-"),
    NO_COLOR: "1",
    ...opts.env,
  };
  const mcpArgs = [HCPX, "mcp", ...(opts.shape ? ["--shape", opts.shape] : [])];
  let teeDir: string | undefined;
  if (opts.tee) {
    teeDir = tmp("hcpx-tee-");
    env.TEE_DIR = teeDir;
  }
  const { client, transport, stderr } = await connectMcp(
    teeDir ? [join(OWN_FIXTURES, "tee-mcp.mjs"), ...mcpArgs] : mcpArgs,
    dir,
    env,
    "hcpx-hostile",
  );
  const serverPid = teeDir ? Number(readFileSync(join(teeDir, "pid"), "utf8")) : transport.pid!;
  const read = (f: string) => {
    try {
      return readFileSync(join(teeDir!, f), "utf8");
    } catch {
      return "";
    }
  };
  return {
    client,
    transport,
    serverPid,
    stderr,
    transcript: teeDir
      ? () => ({ stdin: read("stdin.log"), stdout: read("stdout.log"), stderr: read("stderr.log") })
      : undefined,
    close: () => client.close(),
  };
}

export type Env = { ok: boolean; data?: any; error?: { code: string; message: string; [k: string]: any } };

/** The envelope of a tool result (structuredContent, checked equal to the text content). */
export function envOf(r: unknown): Env {
  const res = r as { content?: { type: string; text?: string }[]; structuredContent?: Env; isError?: boolean };
  const env = res.structuredContent;
  if (!env) throw new Error(`no structuredContent in ${JSON.stringify(r)}`);
  const text = res.content?.find((c) => c.type === "text")?.text;
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(env))
    throw new Error(`text content differs from structuredContent: ${text}`);
  if (res.isError !== !env.ok) throw new Error(`isError ${res.isError} but ok ${env.ok}`);
  return env;
}

/** Call the single `hcp` tool. */
export async function hcpCall(
  s: Session,
  pack: string,
  verb: string,
  args: Record<string, unknown> = {},
  confirm?: boolean,
): Promise<Env> {
  const r = await s.client.callTool(
    { name: "hcp", arguments: { pack, verb, args, ...(confirm === undefined ? {} : { confirm }) } },
    undefined,
    { timeout: 30_000 },
  );
  return envOf(r);
}

// ---- secrets ----

/** The forms a leaked value could take in an output. */
export function leakForms(v: string): string[] {
  const forms = new Set([
    v,
    encodeURIComponent(v),
    JSON.stringify(v).slice(1, -1),
    Buffer.from(v).toString("base64"),
    Buffer.from(v).toString("base64url"),
    JSON.stringify(JSON.stringify(v)).slice(1, -1),
    encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    Buffer.from(v).toString("hex"),
    ...offsetBase64(v),
  ]);
  return [...forms];
}

/**
 * The base64 (and base64url) characters that encode `v`'s bytes alone when they sit 1 or 2 bytes into a
 * 3-byte group (after a prefix: a Basic header's `user:`): found in any encoding of prefix + v + more.
 */
function offsetBase64(v: string): string[] {
  const bytes = Buffer.from(v);
  const out: string[] = [];
  for (const k of [1, 2]) {
    const n = k + bytes.length;
    const core = Buffer.concat([Buffer.alloc(k), bytes])
      .toString("base64")
      .slice(k + 1, Math.floor(n / 3) * 4 + (n % 3));
    out.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return out;
}

/** Pieces of a value long enough to matter (8+ characters), raw and JSON-escaped: what a cut tail or excerpt leaves. */
export function leakPieces(v: string, min = 8): string[] {
  const out = new Set<string>();
  for (const w of [v, JSON.stringify(v).slice(1, -1)])
    for (let i = 0; i + min <= w.length; i++) out.add(w.slice(i, i + min));
  return [...out];
}

/** Every form of every secret (or an 8-character piece of one) found in `text`, with where. */
export function findLeaks(text: string, secrets: readonly string[], where: string): string[] {
  const hits: string[] = [];
  for (const s of secrets) {
    for (const f of leakForms(s)) if (text.includes(f)) hits.push(`${where}: ${JSON.stringify(f)}`);
    for (const p of leakPieces(s)) if (text.includes(p)) hits.push(`${where}: piece ${JSON.stringify(p)}`);
  }
  return hits;
}
