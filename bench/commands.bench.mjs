// The commands that go through the commander program (everything but the plain exec, mcp and adopt
// forms): `hcpx status`, `hcpx lint <dir>`, `hcpx generate` and `hcpx --help`, each a CommonJS
// bundle read through the code cache the build ships (dist/cache, scripts/build.mjs), against the
// same run with HCPX_NO_SHIPPED_CACHE=1 (the bundles compiled from their text, as on a Node other
// than the build's). Wall medians interleaved, and callgrind instructions (parent only).
// The issue sets no goal here; the bound (≤ 0.8× in instructions) is this bench's own, as a
// check that the shipped caches are read at all. NODE_EXTRA_CA_CERTS unset (Node 20 reads that
// bundle at every start, the same cost either way).
import { mkdtempSync, cpSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, goal, instructions, median, table, timeCommands, withoutCa } from "./lib.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = join(REPO, "dist", "hcpx.cjs");
const RUNS = Number(process.env.BENCH_RUNS || 15);

export default async function bench() {
  const dir = mkdtempSync(join(tmpdir(), "hcpx-bench-cmds-"));
  try {
    for (const d of ["packs", "bins"]) cpSync(join(REPO, d), join(dir, d), { recursive: true });
    writeFileSync(
      join(dir, "hcp.config.json5"),
      JSON.stringify({ packs: ["./packs/calc-wrap"], grants: { allow: ["calc-wrap.*"] }, sandbox: { roots: ["."] } }),
    );
    const forms = {
      status: ["status"],
      lint: ["lint", "packs/calc-wrap"],
      generate: ["generate", "--out", join(dir, "gen")],
      "--help": ["--help"],
    };
    const env = withoutCa();
    const noShipped = { ...env, HCPX_NO_SHIPPED_CACHE: "1" };
    const cmds = {};
    for (const [name, args] of Object.entries(forms)) {
      cmds[`${name} shipped`] = { cmd: process.execPath, args: [HCPX, ...args], cwd: dir, env };
      cmds[`${name} compiled`] = { cmd: process.execPath, args: [HCPX, ...args], cwd: dir, env: noShipped };
    }
    const samples = timeCommands(cmds, { runs: RUNS, warmup: 2 });
    const rows = [["command", "shipped cache", "compiled from text", "×", "instructions shipped", "compiled", "×"]];
    for (const [name, args] of Object.entries(forms)) {
      const a = median(samples[`${name} shipped`]);
      const b = median(samples[`${name} compiled`]);
      const ia = instructions(process.execPath, [HCPX, ...args], { cwd: dir, env });
      const ib = instructions(process.execPath, [HCPX, ...args], { cwd: dir, env: noShipped });
      const m = (x) => (x === undefined ? "–" : `${(x / 1e6).toFixed(1)} M`);
      rows.push([
        `hcpx ${args[0] === "generate" ? "generate --out …" : args.join(" ")}`,
        fmt(a),
        fmt(b),
        `${(a / b).toFixed(3)}×`,
        m(ia),
        m(ib),
        ia && ib ? `${(ia / ib).toFixed(3)}×` : "–",
      ]);
      // --help: a figure only (the program's shipped cache is made by a status run: help's own code compiles)
      if (ia !== undefined && ib !== undefined && name !== "--help")
        goal(`hcpx ${name}: shipped code cache (instructions)`, ["shipped", ia], ["compiled", ib], {
          max: 0.8,
          unit: "instructions",
        });
    }
    console.log(table(rows));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
