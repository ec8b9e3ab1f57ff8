// Support for the CLI tests: scratch dirs, hand-edited configs, envelope parsing.
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { HCPX, REPO, runHcpx, tmp, type RunResult } from "../support/hcpx";

export { tmp, REPO };

/** The built CLI (dist/ is written atomically, entry last: safe while another suite rebuilds). */
export function hcpxBin(): string {
  if (!existsSync(HCPX)) throw new Error("dist/hcpx.mjs missing: run npm run build");
  return HCPX;
}

export { runHcpx };

/** A hand-edited config: comments everywhere, single quotes, a quoted key, odd spacing. */
export const HAND = `// my project — hand-edited, keep my comments
{
  // packs we use
  packs: [
    './packs/ledger',   // money
  ],
  "principal": {id: 'me', kind: 'person'},
  grants: {
    allow: [
      'ledger.balance',
      // transit later
    ],
    /* nothing denied */
    deny: [],
  },
  sandbox: { bins: { git: '/usr/bin/git' }, roots: ['.'], cwd: '.' },
}
`;

/** A scratch project with copies of packs/ and bins/ and the given config text. */
export function project(configText = HAND): { dir: string; config: string; read: () => string } {
  const dir = tmp("hcpx-cli-");
  cpSync(join(REPO, "packs"), join(dir, "packs"), { recursive: true });
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  const config = join(dir, "hcp.config.json5");
  writeFileSync(config, configText);
  return { dir, config, read: () => readFileSync(config, "utf8") };
}

export interface Env<T = Record<string, unknown>> {
  ok: boolean;
  data: T;
  error: { code: string; message: string; hint?: string; line?: number; problems?: { code: string; message: string; line?: number; column?: number; severity?: string }[]; [k: string]: unknown };
}

export function envelope<T = Record<string, unknown>>(r: RunResult): Env<T> {
  expect(r.stdout.trim(), `stdout of a --json run (stderr: ${r.stderr})`).toMatch(/^\{[\s\S]*\}$/);
  return JSON.parse(r.stdout) as Env<T>;
}

/** Nothing a user sees looks like a stack trace. */
export function noStack(r: RunResult): void {
  const all = r.stdout + r.stderr;
  expect(all).not.toMatch(/\n\s+at .+[(:]\d+/);
  expect(all).not.toMatch(/^internal error:|"code":\s*"internal"/m);
}

export async function hcpx(args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<RunResult> {
  const r = await runHcpx(args, { cwd, env, timeoutMs: 30_000 });
  expect(r.signal, `hcpx ${args.join(" ")} was killed (waiting for input?)`).toBeNull();
  noStack(r);
  return r;
}
