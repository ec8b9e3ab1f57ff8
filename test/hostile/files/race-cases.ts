// Shared by race.test.ts (2 rounds, in `npm test`) and race.slow.ts (5 rounds,
// `npm run test:hostile:slow`): five adopt --write at once on one project, the
// same host twice and different hosts; each waits for the lock, no entry of
// any is lost, --check passes, --remove gives the user's bytes back (the
// last two in this process: they race nothing).
import { expect } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchProject, tmp } from "../../support/project";
import { runInProcess } from "../../support/inproc";
import type { RunResult } from "../../support/cli";
import { hcpx, pathWithHcpx, USER_FILES } from "./helpers";

/**
 * `hcpx ...args` in this process (test/support/inproc.ts), for the runs that race nothing: the checks and
 * re-runs after a race, what a stale lock does to one writer. The racing writers stay processes.
 */
export function hcpxHere(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return runInProcess(args, { cwd, env });
}

export function project(): { dir: string; env: NodeJS.ProcessEnv } {
  const p = scratchProject({ packs: ["ledger", "transit"] });
  for (const [rel, text] of Object.entries(USER_FILES)) {
    if (rel.startsWith("~/")) continue;
    mkdirSync(join(p.dir, rel, ".."), { recursive: true });
    writeFileSync(join(p.dir, rel), text);
  }
  return { dir: p.dir, env: { HOME: tmp("hcpx-race-home-"), PATH: pathWithHcpx() } };
}

/** The pid of a process that has ended (a shell's: a Node start would cost ~50 ms of CPU for the same). */
export const deadPid = (): string => execFileSync("/bin/sh", ["-c", "echo $$"]).toString().trim();
export const ledger = (dir: string) =>
  JSON.parse(readFileSync(join(dir, ".hcp/adopted.json"), "utf8")) as { hosts: Record<string, { entries: unknown[] }> };
export const CMD = ["--command", "hcpx mcp"];

/** `rounds` rounds of five adopt --write at once, each on a fresh project. */
export async function adoptRace(rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const p = project();
    const runs = await Promise.all([
      hcpx(["adopt", "claude", ...CMD, "--write"], p.dir, p.env),
      hcpx(["adopt", "claude", ...CMD, "--write"], p.dir, p.env),
      hcpx(["adopt", "cursor", ...CMD, "--write"], p.dir, p.env),
      hcpx(["adopt", "codex", "opencode", ...CMD, "--write"], p.dir, p.env),
      hcpx(["adopt", "gemini", ...CMD, "--write"], p.dir, p.env),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(ledger(p.dir).hosts).sort()).toEqual(["claude", "codex", "cursor", "gemini", "opencode"]);
    const check = await hcpxHere(
      ["adopt", "claude", "cursor", "codex", "opencode", "gemini", ...CMD, "--check"],
      p.dir,
      p.env,
    );
    expect(check.code, check.stdout).toBe(0);
    expect(readFileSync(join(p.dir, ".mcp.json"), "utf8")).toContain('"github"');
    expect(readFileSync(join(p.dir, ".codex/config.toml"), "utf8")).toContain("[mcp_servers.other]");
    expect(existsSync(join(p.dir, ".hcp/adopt.lock"))).toBe(false);
    // and all of it comes out again, user bytes intact
    const rem = await hcpxHere(
      ["adopt", "claude", "cursor", "codex", "opencode", "gemini", "--remove", "--write"],
      p.dir,
      p.env,
    );
    expect(rem.code, rem.stderr).toBe(0);
    for (const [rel, text] of Object.entries(USER_FILES))
      if (!rel.startsWith("~/")) expect(readFileSync(join(p.dir, rel), "utf8"), rel).toBe(text);
  }
}
