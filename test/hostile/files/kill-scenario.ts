// Kill mid-write, shared by kill.test.ts (a few moments, in `npm test`) and
// kill.slow.ts (50+ random moments, `npm run test:hostile:slow`).
//
// A scenario is a project with many packs and pre-existing user files for six
// hosts (project scope) and three (user scope, a scratch HOME). Each case
// resets the tree to the same absolute path, runs `adopt … --write`, and
// SIGKILLs it — after N write steps (the HCPX_TEST_KILL_AFTER_WRITES hook) or
// after a random delay. Then:
//   1. every file is its old bytes or its new bytes (or absent where it was /
//      will be absent); nothing else appears but temp files and .hcp/ files;
//   2. a re-run of the same --write gives exactly the tree of a clean run
//      (ledger included; no journal, lock or temp file left);
//   3. --check passes;
//   4. --remove --write gives exactly the tree a clean write + remove gives.
// The killed runs, the watched one and the timed clean run are processes (the
// process is what is killed or timed); the re-runs, --check and --remove that
// check what is left run in this process (test/support/inproc.ts: what adopt
// decides and writes, ~5 ms of CPU each instead of a Node start).
import { expect } from "vitest";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../../support/hcpx";
import { runInProcess } from "../../support/inproc";
import { writeUserConfig } from "../../support/userconfig";
import { bigProject, hcpx, resetTree, runAndKill, runWatching, snapDiff, snapshot, TEMP_RE } from "./helpers";

export const PROJECT_HOSTS = ["claude", "cursor", "codex", "gemini", "vscode", "opencode"];
export const USER_HOSTS = ["claude", "gemini", "codex"];

export interface Run {
  name: string;
  args: string[];
}

export interface Scenario {
  name: string;
  /** the working tree (same path for every case) */
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  run: Run;
  /** reset the working tree and HOME to the state before the run */
  reset(): void;
  orig: Record<string, string>;
  next: Record<string, string>;
  removed: Record<string, string>;
  /** write steps of a clean run (temp written, rename, unlink) */
  steps: number;
  /** wall time of a clean run, ms */
  ms: number;
  /** when the clean run's journal existed (its write phase), ms after start */
  window: [number, number];
  /** the journal file (on disk during the write phase) */
  journal: string;
}

function both(dir: string, home: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(snapshot(dir))) out[`P:${k}`] = v;
  for (const [k, v] of Object.entries(snapshot(home))) out[`H:${k}`] = v;
  return out;
}

/** `hcpx ...args` in this process, with the environment a child run would get (test/support/inproc.ts). */
function adopt(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return runInProcess(args, { cwd, env });
}

/**
 * `fresh`: nothing adopted yet. `update`: an earlier adopt with other packs, so
 * the killed run also deletes stale Skill copies and rewrites entries.
 */
export async function makeScenario(
  kind: "fresh" | "update",
  scope: "project" | "user",
  packs: number,
): Promise<Scenario> {
  const base = tmp(`hcpx-kill-${kind}-${scope}-`);
  const tpl = bigProject(packs, { dir: join(base, "tpl"), home: join(base, "tpl-home") });
  const hosts = scope === "project" ? PROJECT_HOSTS : USER_HOSTS;
  const run: Run = {
    name: `${kind}/${scope}`,
    args: ["adopt", ...hosts, "--command", "hcpx mcp", ...(scope === "user" ? ["--scope", "user"] : []), "--write"],
  };
  const all = Array.from({ length: packs }, (_, i) => `syn${String(i).padStart(3, "0")}`);
  // user scope serves the user's own config: the template's packs (~/../tpl from either HOME)
  const userCfg = (ids: string[]) =>
    writeUserConfig(tpl.home, {
      packs: ids.map((id) => `~/../tpl/packs/${id}`),
      principal: { id: "test", kind: "agent" },
      grants: { allow: ids.map((id) => `${id}.*`), deny: [] },
    });
  if (scope === "user") userCfg(all);
  // Codex uses a project's .codex/config.toml only when the project is trusted (adopt --check says so otherwise)
  const codexUser = join(tpl.home, ".codex", "config.toml");
  if (scope === "project" && existsSync(codexUser))
    appendFileSync(codexUser, `\n[projects."${join(base, "w")}"]\ntrust_level = "trusted"\n`);
  // and Claude Code applies a project's permissions.allow rules only in a workspace the person trusted
  const claudeUser = join(tpl.home, ".claude.json");
  if (scope === "project" && existsSync(claudeUser)) {
    const cj = JSON.parse(readFileSync(claudeUser, "utf8")) as { projects?: Record<string, unknown> };
    cj.projects = { ...cj.projects, [join(base, "w")]: { hasTrustDialogAccepted: true } };
    writeFileSync(claudeUser, JSON.stringify(cj, null, 2) + "\n");
  }
  if (kind === "update") {
    // adopt the first half, then switch the config to the second half plus a few
    const cfg = (ids: string[]) =>
      JSON.stringify(
        {
          packs: ids.map((id) => `./packs/${id}`),
          principal: { id: "test", kind: "agent" },
          grants: { allow: ids.map((id) => `${id}.*`), deny: [] },
        },
        null,
        2,
      ) + "\n";
    writeFileSync(join(tpl.dir, "hcp.config.json5"), cfg(all.slice(0, Math.ceil(packs / 2))));
    if (scope === "user") userCfg(all.slice(0, Math.ceil(packs / 2)));
    const r = await hcpx(run.args, tpl.dir, { ...tpl.env });
    expect(r.code, r.stderr).toBe(0);
    writeFileSync(join(tpl.dir, "hcp.config.json5"), cfg(all.slice(Math.floor(packs / 3))));
    if (scope === "user") userCfg(all.slice(Math.floor(packs / 3)));
  }
  const dir = join(base, "w");
  const home = join(base, "w-home");
  const env = { HOME: home, PATH: tpl.env.PATH };
  const reset = () => {
    resetTree(tpl.dir, dir);
    resetTree(tpl.home, home);
    mkdirSync(home, { recursive: true });
  };
  reset();
  // a first clean run, watched: when is its journal on disk (= its write phase)?
  const journal =
    scope === "user" ? join(home, ".config/hcp/adopt.journal.json") : join(dir, ".hcp/adopt.journal.json");
  const watched = await runWatching(run.args, dir, env, journal);
  expect(watched.code).toBe(0);
  const window: [number, number] = [watched.from ?? 0, watched.to ?? watched.elapsed];
  reset();
  const orig = both(dir, home);
  const t0 = performance.now();
  const r = await hcpx(run.args, dir, env);
  const ms = performance.now() - t0;
  expect(r.code, r.stderr).toBe(0);
  const m = /(\d+) written, (\d+) deleted/.exec(r.stdout);
  expect(m, r.stdout).not.toBeNull();
  const steps = 2 + 2 * Number(m![1]) + Number(m![2]) + 2;
  const next = both(dir, home);
  const recheck = await adopt(
    run.args.map((a) => (a === "--write" ? "--check" : a)),
    dir,
    env,
  );
  expect(recheck.code, recheck.stdout + recheck.stderr).toBe(0);
  const rem = await adopt([...run.args, "--remove"], dir, env);
  expect(rem.code, rem.stderr).toBe(0);
  const removed = both(dir, home);
  if (kind === "fresh") expect(snapDiff(removed, orig)).toEqual([]); // a clean write + remove restores every byte
  return { name: run.name, dir, home, env, run, reset, orig, next, removed, steps, ms, window, journal };
}

export interface KillOutcome {
  /** files holding their new bytes right after the kill, of those that change */
  newCount: number;
  changing: number;
  killed: boolean;
}

/** One case: reset, run, kill (after `killAfterSteps` write steps, or after `delayMs`), then check 1–4. */
export async function killCase(
  s: Scenario,
  how: { killAfterSteps?: number; delayMs?: number; afterJournal?: boolean },
  opts: { remove?: boolean } = {},
): Promise<KillOutcome> {
  s.reset();
  const label = `${s.name} ${how.killAfterSteps !== undefined ? `after ${how.killAfterSteps} write steps` : `${Math.round(how.delayMs!)} ms after ${how.afterJournal ? "the journal appeared" : "start"}`}`;
  const env =
    how.killAfterSteps !== undefined ? { ...s.env, HCPX_TEST_KILL_AFTER_WRITES: String(how.killAfterSteps) } : s.env;
  const r = await runAndKill(s.run.args, s.dir, env, how.delayMs ?? 60_000, how.afterJournal ? s.journal : undefined);
  const killed = r.signal === "SIGKILL";
  if (how.killAfterSteps !== undefined) expect(killed, `${label}: the hook should kill it`).toBe(true);

  // 1. old bytes or new bytes, nothing partial, nothing foreign
  const now = both(s.dir, s.home);
  let newCount = 0;
  let changing = 0;
  for (const k of new Set([...Object.keys(s.orig), ...Object.keys(s.next)])) {
    if (k.endsWith("/") || k.includes(".hcp/")) continue;
    if (s.orig[k] === s.next[k]) {
      expect(now[k], `${label}: ${k} must not change`).toBe(s.orig[k]);
      continue;
    }
    changing++;
    const ok = now[k] === s.orig[k] || now[k] === s.next[k];
    expect(ok, `${label}: ${k} is neither its old nor its new bytes`).toBe(true);
    if (now[k] === s.next[k]) newCount++;
  }
  for (const k of Object.keys(now)) {
    if (k in s.orig || k in s.next || k.endsWith("/")) continue;
    expect(
      TEMP_RE.test(k) || k.startsWith("P:.hcp/") || k.startsWith("H:.config/hcp/"),
      `${label}: unexpected file ${k}`,
    ).toBe(true);
  }

  // 2. a re-run converges to the clean run's tree exactly (ledger included, no journal/lock/temp)
  const again = await adopt(s.run.args, s.dir, s.env);
  expect(again.code, `${label}: re-run: ${again.stderr}`).toBe(0);
  expect(snapDiff(both(s.dir, s.home), s.next), `${label}: re-run must converge to the clean result`).toEqual([]);
  // 3. --check passes
  const check = await adopt(
    s.run.args.map((a) => (a === "--write" ? "--check" : a)),
    s.dir,
    s.env,
  );
  expect(check.code, `${label}: --check: ${check.stdout}`).toBe(0);
  // 4. --remove gives what a clean write + remove gives (for `fresh`: the original tree)
  if (opts.remove !== false) {
    const rem = await adopt([...s.run.args, "--remove"], s.dir, s.env);
    expect(rem.code, `${label}: --remove: ${rem.stderr}`).toBe(0);
    expect(snapDiff(both(s.dir, s.home), s.removed), `${label}: --remove after recovery`).toEqual([]);
  }
  return { newCount, changing, killed };
}
