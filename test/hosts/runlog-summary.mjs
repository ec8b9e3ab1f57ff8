// runlog-summary.mjs <file> — after a host or agent suite (scripts/test-hosts.sh,
// scripts/test-agents.sh): the host runs that came closest to their timeouts, from
// the HCPX_HOST_RUNLOG lines hostcli.mjs wrote (one per run: its time, its wait for
// a slot, its timeout). Printed last, so a CI log cut to its tail still says whether
// a failing run hung (at its timeout) or the machine was slow for every run.
import { readFileSync } from "node:fs";

const file = process.argv[2];
let runs = [];
try {
  runs = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
} catch {
  /* no runs logged (a filtered run, or no host started) */
}
if (runs.length === 0) {
  console.log("host runs: none logged");
  process.exit(0);
}
const share = (r) => r.ms / r.timeoutMs;
runs.sort((a, b) => share(b) - share(a));
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const timedOut = runs.filter((r) => r.timedOut).length;
const waited = Math.max(...runs.map((r) => r.waitedMs));
console.log(
  `host runs: ${runs.length}, ${timedOut} timed out; longest wait for a slot ${secs(waited)}; closest to their timeouts:`,
);
for (const r of runs.slice(0, 5))
  console.log(
    `  ${r.cmd} ${r.arg ?? ""}: ${secs(r.ms)} of ${secs(r.timeoutMs)} (${Math.round(share(r) * 100)}%)${r.timedOut ? " TIMED OUT" : ""}, waited ${secs(r.waitedMs)}`,
  );
