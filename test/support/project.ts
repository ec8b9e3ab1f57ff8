// The one way tests build a scratch project: a fresh dir (realpath'd) with
// copies of the example packs/ and bins/, an hcp.config.json5 (built from
// packs/grants, or given as text), optionally its own HOME, and helpers to
// read, write and run the CLI in it.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cleanPath, REPO, runHcpx, type RunOptions, type RunResult } from "./cli";

/** A fresh temp dir, its real path (macOS /var → /private/var; the CLI prints real paths). */
export function tmp(prefix = "hcpx-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export interface ProjectOptions {
  /** example packs to activate (default ledger + transit) */
  packs?: string[];
  /** grants.allow (default `<pack>.*` for each) */
  allow?: string[];
  deny?: string[];
  /** more top-level config keys (they replace the defaults') */
  extraConfig?: Record<string, unknown>;
  /** the config file's text as is (hand-edited, JSON5, broken on purpose); packs/allow/deny/extraConfig are then unused */
  configText?: string;
  /** a HOME of its own, and a PATH without any `hcpx`, for every run (adopt, user scope) */
  ownHome?: boolean;
}

export interface ScratchProject {
  dir: string;
  /** hcp.config.json5 */
  config: string;
  /** the HOME its runs get: its own with `ownHome`, else the shared scratch HOME of baseEnv() */
  home?: string;
  /** what its runs add to the hermetic env ({} unless `ownHome`) */
  env: NodeJS.ProcessEnv;
  /** `hcpx ...args` in the project dir */
  run: (args: string[], env?: NodeJS.ProcessEnv, opts?: Omit<RunOptions, "cwd" | "env">) => Promise<RunResult>;
  /** a file of the project (`~/…`: of its HOME) */
  read: (rel: string) => string;
  write: (rel: string, text: string | Buffer) => void;
}

/** The default config: `packs` activated with `allow`/`deny` grants, git as the one sandbox bin. */
export function projectConfig(
  opts: Pick<ProjectOptions, "packs" | "allow" | "deny" | "extraConfig"> = {},
): Record<string, unknown> {
  const packs = opts.packs ?? ["ledger", "transit"];
  return {
    packs: packs.map((p) => `./packs/${p}`),
    principal: { id: "test", kind: "agent" },
    grants: { allow: opts.allow ?? packs.map((p) => `${p}.*`), deny: opts.deny ?? [] },
    sandbox: { bins: { git: "/usr/bin/git" }, roots: ["."], cwd: "." },
    ...opts.extraConfig,
  };
}

/** A scratch project: copies of the example packs/ and bins/, and an hcp.config.json5. */
export function scratchProject(opts: ProjectOptions = {}): ScratchProject {
  const dir = tmp("hcpx-proj-");
  cpSync(join(REPO, "packs"), join(dir, "packs"), { recursive: true });
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  const config = join(dir, "hcp.config.json5");
  writeFileSync(config, opts.configText ?? JSON.stringify(projectConfig(opts), null, 2) + "\n");
  const home = opts.ownHome ? tmp("hcpx-home-") : undefined;
  const env: NodeJS.ProcessEnv = home ? { HOME: home, PATH: cleanPath() } : {};
  const at = (rel: string) => {
    if (!rel.startsWith("~/")) return join(dir, rel);
    if (!home) throw new Error(`${rel}: this scratch project has no HOME of its own (ownHome: true)`);
    return join(home, rel.slice(2));
  };
  return {
    dir,
    config,
    home,
    env,
    run: (args, extra = {}, o = {}) => runHcpx(args, { ...o, cwd: dir, env: { ...env, ...extra } }),
    read: (rel) => readFileSync(at(rel), "utf8"),
    write: (rel, text) => {
      const f = at(rel);
      mkdirSync(dirname(f), { recursive: true });
      writeFileSync(f, text);
    },
  };
}
