// Shared by the vendoring tests that run the real CLI (test/packs/vendor-*.test.ts): a
// project made by `hcpx init`, and a wrap pack `greet` written to a path source in the
// shape a test asks for (named commands, pass-through verbs, Policy rows), its program
// printing its own argv as JSON so a test sees what ran.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { runHcpx, tmp, type RunOptions, type RunResult } from "../support/hcpx";
import { parseJson5 } from "../../src/pack/json5";

export const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    "git",
    ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main", ...args],
    { cwd, encoding: "utf8" },
  );

export type Row = { operation: "read" | "write"; land?: string; confirm?: boolean };

export interface GreetShape {
  /** the pack's id (default greet) */
  id?: string;
  version: string;
  /** named commands and their Policy rows */
  named: Record<string, Row>;
  /** wrap.pass_through: its verbs are read rows unless `rows` says otherwise */
  passThrough?: { allowedSubcommands: string[]; maxArgv: number };
  rows?: Record<string, Row>;
}

/** Write the pack `greet` (or `shape.id`) in `shape` into `dir` (replacing what a former shape wrote there). */
export function writeGreet(dir: string, shape: GreetShape): void {
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(
    join(dir, "bin/greet.mjs"),
    "#!/usr/bin/env node\nprocess.stdout.write(JSON.stringify({ argv: process.argv.slice(2) }) + '\\n');\n",
    { mode: 0o755 },
  );
  const commands = Object.keys(shape.named).map((verb) => ({
    verb_key: verb,
    summary: `Run ${verb}`,
    cli: ["greet", verb, "{{name}}"],
    args: { name: { type: "string", required: true, description: "a name" } },
  }));
  const wrap = {
    bin: "./bin/greet.mjs",
    output: "json",
    timeout_ms: 10000,
    ...(shape.passThrough ? { pass_through: shape.passThrough } : {}),
  };
  const id = shape.id ?? "greet";
  const surface = {
    hcp: "1.1",
    id,
    version: shape.version,
    description: "Greets people",
    kind: "wrap",
    wrap,
    commands,
  };
  writeFileSync(join(dir, "surface.json"), JSON.stringify(surface, null, 2));
  const rows: Record<string, Row> = { ...shape.named };
  for (const sub of shape.passThrough?.allowedSubcommands ?? []) rows[sub] = { operation: "read" };
  Object.assign(rows, shape.rows ?? {});
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ rows }));
  const cell = (r: Row) => (r.operation === "write" && r.confirm ? "write, confirm" : r.operation);
  const table = Object.entries(rows).map(([v, r]) => `| \`${v}\` | Run ${v} | ${cell(r)} |`);
  writeFileSync(
    join(dir, "SKILL.md"),
    [
      "---",
      `name: ${id}`,
      'description: "Greets people by name. Use it when the user wants a greeting."',
      "---",
      "",
      `# ${id}`,
      "",
      "## Hot path",
      "",
      "| verb | what it does | read/write |",
      "|---|---|---|",
      ...table,
      "",
    ].join("\n"),
  );
}

/** The runner a helper's `hcpx` runs take: runHcpx (a process) unless a test passes runInProcess (test/support/inproc.ts). */
export type Runner = (args: string[], opts: RunOptions) => Promise<RunResult>;

/** A project made by `hcpx init --yes` (the real CLI unless `run` says otherwise), empty but for its config. */
export async function newProject(run: Runner = runHcpx): Promise<string> {
  const dir = tmp("hcpx-vendor-");
  const r = await run(["init", "--yes"], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

/** A project with `greet` in `shape` vendored from the path source ./src-greet (`pack add --yes`), both runs through `run`. */
export async function projectWithGreet(
  shape: GreetShape,
  run: Runner = runHcpx,
): Promise<{ dir: string; src: string }> {
  const dir = await newProject(run);
  const src = join(dir, "src-greet");
  writeGreet(src, shape);
  const r = await run(["pack", "add", "./src-greet", "--yes"], { cwd: dir });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return { dir, src };
}

/** `hcpx ...args --json` (before a `--`) in `dir`, a process unless `run` says otherwise: the run and its parsed envelope. */
export async function json<T = Record<string, unknown>>(
  dir: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
  run: Runner = runHcpx,
): Promise<{
  r: RunResult;
  e: {
    ok: boolean;
    data: T;
    error: { code: string; message: string; hint?: string; problems?: { message: string }[] };
  };
}> {
  const at = args.includes("--") ? args.indexOf("--") : args.length;
  const r = await run([...args.slice(0, at), "--json", ...args.slice(at)], { cwd: dir, ...(env ? { env } : {}) });
  return { r, e: JSON.parse(r.stdout) };
}

/** json() and projectWithGreet() through one runner (runHere, test/support/inproc.ts, for a file whose commands run in-process). */
export function through(run: Runner): {
  json: <T = Record<string, unknown>>(
    dir: string,
    args: string[],
    env?: NodeJS.ProcessEnv,
  ) => ReturnType<typeof json<T>>;
  projectWithGreet: (shape: GreetShape) => ReturnType<typeof projectWithGreet>;
} {
  return {
    json: (dir, args, env) => json(dir, args, env, run),
    projectWithGreet: (shape) => projectWithGreet(shape, run),
  };
}

/**
 * The config's edit lock held as another live hcpx holds it: a lock file naming a live pid, this process's
 * parent (vitest's; a run in this process would take over a lock naming its own pid), until unlockConfig.
 */
export const lockConfig = (dir: string) =>
  writeFileSync(join(dir, ".hcp.config.json5.lock"), `${process.ppid}\nheld-by-test\n`);
export const unlockConfig = (dir: string) => rmSync(join(dir, ".hcp.config.json5.lock"));

/** The project's grants as its config says. */
export function grantsOf(dir: string): { allow: string[]; deny: string[] } {
  const file = join(dir, "hcp.config.json5");
  const g = (parseJson5(readFileSync(file, "utf8"), file).value as { grants?: { allow?: string[]; deny?: string[] } })
    .grants;
  return { allow: g?.allow ?? [], deny: g?.deny ?? [] };
}
