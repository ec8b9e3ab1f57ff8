// `hcpx exec` with the OS sandbox on vs off (issue 25, docs/sandbox.md): the
// same project and call (`calc-wrap ping`, a read, bins/calc.mjs), one config
// with sandbox.enforce "os" (bubblewrap: mount, pid, ipc, uts and network
// namespaces, HOME's secrets hidden, a private /tmp), one without, run
// interleaved in one run. Goal: on ≤ 1.15× off. Skipped where bubblewrap
// cannot confine a call (the figure would be a refusal's).
import { cpSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { caModes, fmt, goal, median, percentile, table, timeCommands } from "./lib.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const RUNS = Number(process.env.BENCH_RUNS || 30);

function projectAt(dir, sandbox) {
  mkdirSync(dir, { recursive: true });
  cpSync(join(REPO, "packs"), join(dir, "packs"), { recursive: true }); // calc-wrap and the calc ops its bin imports
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({
      packs: ["./packs/calc-wrap"],
      grants: { allow: ["calc-wrap.*"] },
      sandbox: { roots: ["."], cwd: ".", ...sandbox },
    }),
  );
  return dir;
}

export default async function bench() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-bench-sandbox-")));
  const off = projectAt(join(root, "off"), {});
  const on = projectAt(join(root, "on"), { enforce: "os" });
  const hcpx = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.cjs");
  const args = [hcpx, "exec", "calc-wrap", "ping", "--json"];
  const probe = spawnSync(process.execPath, args, { cwd: on, encoding: "utf8" });
  if (probe.status !== 0) {
    process.stdout.write(
      `skipped: exec with enforce "os" fails here (${(probe.stdout || probe.stderr).trim().slice(0, 300)}); \`hcpx doctor\` says why\n`,
    );
    return;
  }
  for (const [mode, env] of caModes()) {
    const samples = timeCommands(
      {
        "exec, sandbox.enforce off": { cmd: process.execPath, args, cwd: off, env },
        "exec, sandbox.enforce os": { cmd: process.execPath, args, cwd: on, env },
      },
      { runs: RUNS, warmup: 3 },
    );
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
    const base = m["exec, sandbox.enforce off"];
    const rows = [["variant", "median", "p90", "vs off"]];
    for (const [k, v] of Object.entries(samples))
      rows.push([k, fmt(m[k]), fmt(percentile(v, 90)), `${(m[k] / base).toFixed(2)}×`]);
    process.stdout.write(`CLI, ${mode} (${RUNS} runs each, interleaved):\n${table(rows)}\n`);
    goal(
      `exec with sandbox.enforce os ≤ 1.15× off, wall, ${mode}`,
      ["os", m["exec, sandbox.enforce os"]],
      ["off", base],
      { max: 1.15 },
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();
