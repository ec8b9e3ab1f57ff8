// `hcpx exec` with the OS sandbox on vs off (issue 25, docs/sandbox.md): the
// same project and call (`calc-wrap ping`, a read, bins/calc.mjs), one config
// with sandbox.enforce "os" (bubblewrap: mount, pid, ipc, uts and network
// namespaces, HOME's secrets hidden, a private /tmp), one without, run
// interleaved in one run. Goals: on ≤ 1.15× off; and the first confined call
// after install (an empty cache: the sandbox's bundle read through the code
// cache the build ships) ≤ 1.3× a warm one, exec's goal for a first call
// (exec.bench.mjs). Skipped where bubblewrap cannot confine a call (the figure
// would be a refusal's). Printed beside it, not a goal: the same call as a
// local write in a git repository (ping's row made `write` `local`), on and
// off: a write's plan also keeps the configs, the packs, their bins and git's
// hooks and config read-only in its roots.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { caModes, emptyCache, fmt, goal, median, percentile, table, timeCommands } from "./lib.mjs";
import { benchProject, REPO } from "./project.mjs";

const RUNS = Number(process.env.BENCH_RUNS || 30);

/** A project of its own (bench/project.mjs) where calc-wrap is active, with `sandbox`; `write`: ping a local write, in a git repository. */
function projectFor(prefix, sandbox, write = false) {
  const dir = benchProject(prefix, {
    packs: ["./packs/calc-wrap"],
    grants: { allow: ["calc-wrap.*"] },
    sandbox: { roots: ["."], cwd: ".", ...sandbox },
  });
  if (write) {
    const policy = join(dir, "packs", "calc-wrap", "policy.json");
    const text = readFileSync(policy, "utf8");
    const made = text.replace(/"ping":\s*\{ operation: "read" \}/, '"ping": { operation: "write", land: "local" }');
    if (made === text) throw new Error(`sandbox bench: ${policy} has no read row for ping to make a write`);
    writeFileSync(policy, made);
    const git = spawnSync("git", ["init", "-q", dir], { encoding: "utf8" });
    if (git.status !== 0) throw new Error(`sandbox bench: git init failed: ${git.stderr || git.error}`);
  }
  return dir;
}

export default async function bench() {
  const off = projectFor("hcpx-bench-sandbox-off-", {});
  const on = projectFor("hcpx-bench-sandbox-on-", { enforce: "os" });
  const offWrite = projectFor("hcpx-bench-sandbox-off-write-", {}, true);
  const onWrite = projectFor("hcpx-bench-sandbox-on-write-", { enforce: "os" }, true);
  const projects = [off, on, offWrite, onWrite];
  try {
    const written = performance.now();
    const hcpx = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.cjs");
    const args = [hcpx, "exec", "calc-wrap", "ping", "--json"];
    const probe = spawnSync(process.execPath, args, { cwd: on, encoding: "utf8" });
    if (probe.status !== 0) {
      process.stdout.write(
        `skipped: exec with enforce "os" fails here (${(probe.stdout || probe.stderr).trim().slice(0, 300)}); \`hcpx doctor\` says why\n`,
      );
      return;
    }
    // a user's packs have aged: a file changed within 3 s is validated again on every call (src/pack/validcache.ts)
    await new Promise((r) => setTimeout(r, Math.max(0, 3100 - (performance.now() - written))));
    const OFF = "exec, sandbox.enforce off";
    const OS = "exec, sandbox.enforce os";
    const WRITE_OFF = "a local write, enforce off";
    const WRITE_OS = "a local write, enforce os";
    const FIRST = "the first call under os after install (empty cache)";
    for (const [mode, env] of caModes()) {
      const samples = timeCommands(
        {
          [OFF]: { cmd: process.execPath, args, cwd: off, env },
          [OS]: { cmd: process.execPath, args, cwd: on, env },
          [FIRST]: {
            cmd: process.execPath,
            args,
            cwd: on,
            ...emptyCache(join(on, "cold-cache"), env),
          },
          [WRITE_OFF]: { cmd: process.execPath, args, cwd: offWrite, env },
          [WRITE_OS]: { cmd: process.execPath, args, cwd: onWrite, env },
        },
        { runs: RUNS, warmup: 3 },
      );
      const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
      const base = m[OFF];
      const rows = [["variant", "median", "p90", "vs off (the same kind of call; the first call: vs os)"]];
      for (const [k, v] of Object.entries(samples)) {
        const against = k.startsWith("a local write") ? m[WRITE_OFF] : k === FIRST ? m[OS] : base;
        rows.push([k, fmt(m[k]), fmt(percentile(v, 90)), `${(m[k] / against).toFixed(2)}×`]);
      }
      process.stdout.write(`CLI, ${mode} (${RUNS} runs each, interleaved):\n${table(rows)}\n`);
      process.stdout.write(
        `not a goal: a local write in a git repository under os is ${(m[WRITE_OS] / m[WRITE_OFF]).toFixed(3)}× the same write unconfined (${mode})\n`,
      );
      goal(`exec with sandbox.enforce os ≤ 1.15× off, wall, ${mode}`, ["os", m[OS]], ["off", base], { max: 1.15 });
      // exec's goal for the first call after install (exec.bench.mjs), for a confined call: the sandbox's
      // bundle is read through the cache the build ships (where bubblewrap confined a call as it built)
      goal(
        `first exec under os after install ≤ 1.3× a warm one, wall, ${mode}`,
        ["empty cache", m[FIRST]],
        ["warm", m[OS]],
        {
          max: 1.3,
        },
      );
    }
  } finally {
    for (const d of projects) rmSync(d, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();
