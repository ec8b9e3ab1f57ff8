// Shared test support: run the built CLI as a real process, make scratch projects.
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, writeFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The built CLI; HCPX_DIST_BIN points tests at another build (e.g. a private copy while others rebuild dist/). */
export const HCPX = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.mjs");

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

/** Run `node dist/hcpx.mjs ...args` with stdin closed (or fed `input`). */
export function runHcpx(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [HCPX, ...args], opts);
}

export function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? REPO,
      env: { ...baseEnv(), ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}

/** A hermetic environment: a scratch HOME so no user config leaks in, no colour. */
let scratchHome: string | undefined;
export function baseEnv(): NodeJS.ProcessEnv {
  scratchHome ??= mkdtempSync(join(tmpdir(), "hcpx-home-"));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: scratchHome, NO_COLOR: "1" };
  delete env.XDG_CONFIG_HOME;
  delete env.HCP_CONFIG;
  delete env.FORCE_COLOR;
  return env;
}

export function tmp(prefix = "hcpx-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export interface ScratchProject {
  dir: string;
  config: string;
}

/**
 * A scratch project: copies of the example packs/ and bins/, and an
 * hcp.config.json5 activating `packs` with `allow`/`deny` grants.
 */
export function scratchProject(opts: { packs?: string[]; allow?: string[]; deny?: string[]; extraConfig?: Record<string, unknown> } = {}): ScratchProject {
  const dir = tmp("hcpx-proj-");
  cpSync(join(REPO, "packs"), join(dir, "packs"), { recursive: true });
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  const packs = opts.packs ?? ["ledger", "transit"];
  const config = {
    packs: packs.map((p) => `./packs/${p}`),
    principal: { id: "test", kind: "agent" },
    grants: { allow: opts.allow ?? packs.map((p) => `${p}.*`), deny: opts.deny ?? [] },
    sandbox: { bins: { git: "/usr/bin/git" }, roots: ["."], cwd: "." },
    ...opts.extraConfig,
  };
  const file = join(dir, "hcp.config.json5");
  writeFileSync(file, JSON.stringify(config, null, 2) + "\n");
  return { dir, config: file };
}
