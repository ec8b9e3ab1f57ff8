// Support for the CLI tests: hand-edited configs over the shared project
// builder, and the shared runner's checks (test/support/).
import { existsSync } from "node:fs";
import { envelope, HCPX, noStack, REPO, runHcpx, runHcpxChecked, type Env, type RunResult } from "../support/cli";
import { scratchProject, tmp } from "../support/project";

export { envelope, noStack, REPO, runHcpx, tmp, type Env };

/** The built CLI (dist/ is written atomically, entry last: safe while another suite rebuilds). */
export function hcpxBin(): string {
  if (!existsSync(HCPX)) throw new Error("dist/hcpx.cjs missing: run npm run build");
  return HCPX;
}

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

/** A scratch project with copies of packs/ and bins/ and the given config text; read() gives the config's text. */
export function project(configText = HAND): { dir: string; config: string; read: () => string } {
  const p = scratchProject({ configText });
  return { dir: p.dir, config: p.config, read: () => p.read("hcp.config.json5") };
}

/** `hcpx ...args` in `cwd`: not killed by the guard, no stack trace. */
export function hcpx(args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<RunResult> {
  return runHcpxChecked(args, { cwd, env });
}
