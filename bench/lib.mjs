// Timing helpers for benchmarks: interleaved runs, medians, ratios.
import { spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Time commands interleaved (a b c a b c …) so drift hits all alike. Returns ms samples per name. */
export function timeCommands(cmds, { runs = 20, warmup = 3 } = {}) {
  const samples = Object.fromEntries(Object.keys(cmds).map((k) => [k, []]));
  for (let i = 0; i < warmup + runs; i++) {
    for (const [name, c] of Object.entries(cmds)) {
      const t0 = performance.now();
      const r = spawnSync(c.cmd, c.args, { cwd: c.cwd, env: c.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
      const dt = performance.now() - t0;
      if (r.status !== 0 && !c.allowFail) throw new Error(`${name} failed (${r.status}): ${r.stderr}`);
      if (i >= warmup) samples[name].push(dt);
    }
  }
  return samples;
}

export function fmt(ms) {
  return `${ms.toFixed(1)} ms`;
}

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => String(c).padEnd(widths[i])).join("  ")).join("\n");
}
