// Drive `node dist/hcpx.cjs mcp` with the SDK's real Client over stdio.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { HCPX, REPO, run, scratchProject, tmp, type ScratchProject } from "../support/hcpx";
import { connectMcp } from "../support/mcp";

export interface McpSession {
  client: Client;
  transport: StdioClientTransport;
  /** everything the server wrote on stderr so far */
  stderr: () => string;
  close: () => Promise<void>;
}

export interface Ledgered extends ScratchProject {
  home: string;
  ledger: string;
}

/** The first seeded ledger file of this test file: the same bytes for every project (a fixed clock), so later ones copy it. */
let seeded: string | undefined;

/** A scratch project with a seeded ledger file (checking 1200.00, savings 5000.00). */
export function ledgerProject(opts: Parameters<typeof scratchProject>[0] = {}): Ledgered {
  const p = scratchProject(opts);
  const home = tmp("hcpx-mcp-home-");
  const ledger = join(p.dir, "ledger.json");
  if (seeded) {
    copyFileSync(seeded, ledger); // bytes and mode, as the bin wrote them
    return { ...p, home, ledger };
  }
  // a write, so the file exists (seeded with checking and savings) before any test write
  const r = spawnSync(process.execPath, [join(p.dir, "bins", "ledger.mjs"), "account", "open", "cash", "--json"], {
    env: { LEDGER_FILE: ledger, LEDGER_SEED: "1", LEDGER_NOW: "2026-01-01T00:00:00Z", PATH: process.env.PATH ?? "" },
    encoding: "utf8",
  });
  if (r.status !== 0 || !existsSync(ledger)) throw new Error(`seeding the ledger failed: ${r.stderr}`);
  seeded = join(tmp("hcpx-mcp-ledger-"), "ledger.json");
  copyFileSync(ledger, seeded);
  return { ...p, home, ledger };
}

/** ledgerProject with a config that grants every ledger verb; `extra`: more config keys (e.g. confirm). */
export function grantedLedger(extra: Record<string, unknown> = {}): Ledgered {
  const p = ledgerProject({ packs: ["ledger"] });
  writeConfig(p.config, {
    packs: ["./packs/ledger"],
    principal: { id: "test", kind: "agent" },
    grants: { allow: ["ledger.*"], deny: [] },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
    ...extra,
  });
  return p;
}

export async function startMcp(
  p: { dir: string; home?: string; ledger?: string },
  opts: { shape?: "single" | "per-command"; env?: Record<string, string>; args?: string[] } = {},
): Promise<McpSession> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: p.home ?? tmp("hcpx-mcp-home-"),
    NO_COLOR: "1",
    ...(p.ledger ? { LEDGER_FILE: p.ledger, LEDGER_NOW: "2026-01-01T00:00:00Z" } : {}),
    ...opts.env,
  };
  const { client, transport, stderr } = await connectMcp(
    [HCPX, "mcp", ...(opts.shape ? ["--shape", opts.shape] : []), ...(opts.args ?? [])],
    p.dir,
    env,
  );
  return { client, transport, stderr, close: () => client.close() };
}

/** Add a scratch pack `leaky` over test/fixtures/bins/leaky.mjs with the Binding LEAKY_TOKEN. */
export function addLeakyPack(dir: string): void {
  const pack = join(dir, "packs", "leaky");
  mkdirSync(pack, { recursive: true });
  cpSync(join(REPO, "test", "fixtures", "bins", "leaky.mjs"), join(dir, "bins", "leaky.mjs"));
  writeFileSync(
    join(pack, "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      id: "leaky",
      version: "0.1.0",
      description: "A bin that leaks its Binding",
      kind: "wrap",
      wrap: { bin: "../../bins/leaky.mjs", json_flag: null, output: "json", timeout_ms: 10000 },
      binding: { env: ["LEAKY_TOKEN"] },
      commands: [
        { verb_key: "fail", summary: "Print the token and fail", cli: ["leaky", "fail"], args: {} },
        { verb_key: "ok", summary: "Return the token inside JSON", cli: ["leaky", "ok"], args: {} },
      ],
    }),
  );
  writeFileSync(
    join(pack, "policy.json"),
    JSON.stringify({ rows: { fail: { operation: "read" }, ok: { operation: "read" } } }),
  );
  writeFileSync(
    join(pack, "SKILL.md"),
    '---\nname: leaky\ndescription: A bin that leaks its Binding.\nleads:\n  - "leaky: test pack"\n---\n\n# leaky\n\n| verb | what it does | read/write |\n|---|---|---|\n| `fail` | Print the token and fail | read |\n| `ok` | Return the token inside JSON | read |\n',
  );
}

/** Write a project config (JSON) over the scratch one. */
export function writeConfig(file: string, config: Record<string, unknown>): void {
  writeFileSync(file, JSON.stringify(config, null, 2) + "\n");
}

export type ToolResult = {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

export function envelope(r: unknown): { ok: boolean; data?: unknown; error?: { code: string; message: string } } {
  const res = r as ToolResult;
  const env = res.structuredContent as { ok: boolean; data?: unknown; error?: { code: string; message: string } };
  if (!env) throw new Error(`no structuredContent in ${JSON.stringify(r)}`);
  // the text content carries the same envelope as JSON
  const text = res.content?.find((c) => c.type === "text")?.text;
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(env))
    throw new Error(`text content differs from structuredContent: ${text}`);
  return env;
}

/** src/runtime/audit.ts as one CommonJS file in `dir`, for child processes that append to a log; its path. */
export function auditBundle(dir: string): string {
  const bundle = join(dir, "audit.cjs");
  buildSync({
    entryPoints: [join(REPO, "src", "runtime", "audit.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: bundle,
    logLevel: "silent",
  });
  return bundle;
}

/** `node -e <script> [...args]` through test/support/cli.ts run() (its env as given): resolves once it exits 0; otherwise rejects, naming `label` and giving its stderr. */
export async function nodeScript(
  script: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  label = "script",
): Promise<void> {
  const r = await run(process.execPath, ["-e", script, ...args], { env, pureEnv: true, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`${label} exited ${r.code ?? r.signal}: ${r.stderr}`);
}
