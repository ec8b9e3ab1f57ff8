// A probe, not a goal and not how hcpx runs: how `hcpx exec` would start from a V8
// startup snapshot (`node --snapshot-blob <blob>`) that holds exec's bundles, beside how
// it starts now (dist/hcpx.cjs through the code cache) and the CommonJS floor. Two
// blobs: one built from the bundles' top level only, and one built after a whole
// `exec calc-wrap ping` ran inside the builder, so that the code it compiled (exec's
// and Node's own) is in the blob; the warm one also through the /bin/sh launcher an npm
// bin would need (Node takes the blob only from its command line or NODE_OPTIONS), both
// the one that finds its folder through npm's bin link and one with the blob's path
// written in. And what Node does with a blob it cannot use.
// docs/design.md ("A startup snapshot for exec") has the figures and why hcpx does
// not start this way. Run after a build: `node bench/snapshot-probe.mjs` (scratch
// HOME and XDG dirs, NODE_EXTRA_CA_CERTS unset; instructions when valgrind is installed).
import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { execProject, REPO } from "./project.mjs";
import { fmt, instructions, median, table, timeCommands, withoutCa } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS || 30);
const CALL = ["exec", "calc-wrap", "ping", "--json"];

/** The builder script: exec's two bundles inlined (a builder can require only Node's builtins), run once when `warm`. */
function builder(project, warm) {
  const bundle = (name) => readFileSync(join(REPO, "dist", "commands", `${name}.cjs`), "latin1").trim();
  return `"use strict";
const F = { exec: ${bundle("exec")}, "exec-schemas": ${bundle("exec-schemas")} };
const loaded = {};
const builtin = require;
function load(name) {
  if (!loaded[name]) {
    const m = (loaded[name] = { exports: {} });
    F[name](m.exports, req, m, ${JSON.stringify(join(REPO, "dist", "commands"))} + "/" + name + ".cjs", ${JSON.stringify(join(REPO, "dist", "commands"))});
  }
  return loaded[name].exports;
}
function req(id) {
  const sibling = /^\\.\\/([a-z-]+)\\.cjs$/.exec(id);
  if (sibling && F[sibling[1]]) return load(sibling[1]);
  if (id.startsWith(".")) throw new Error("the probe inlines exec's bundles only, not " + id);
  return builtin(id);
}
const exec = load("exec");
const call = (pack, verb) => { exec.useFdOut(); return exec.run(pack, verb, [], { confirm: false, json: true }); };
if (${warm}) {
  const home = process.cwd();
  process.chdir(${JSON.stringify(project)});
  call("calc-wrap", "ping").then(() => {
    process.chdir(home);
    // a signal listener is a handle V8 cannot keep in a snapshot; exec's run sets its own again
    for (const e of process.eventNames()) if (typeof e === "string" && e.startsWith("SIG")) process.removeAllListeners(e);
  });
}
builtin("node:v8").startupSnapshot.setDeserializeMainFunction(() => {
  const [, , pack, verb] = process.argv;
  call(pack, verb).then((code) => { if (code) process.exitCode = code; });
});
`;
}

const { dir, floor } = execProject();
const home = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-probe-home-")));
const env = withoutCa({
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_CACHE_HOME: join(home, ".cache"),
  XDG_STATE_HOME: join(home, ".local", "state"),
});
try {
  // the validation cache keeps no file changed within 3 s of its read (src/pack/validcache.ts)
  await new Promise((r) => setTimeout(r, 3100));
  const hcpx = join(REPO, "dist", "hcpx.cjs");
  // the builder's call takes a warm call's path: the validation and code caches are there already
  for (let i = 0; i < 2; i++) spawnSync(process.execPath, [hcpx, ...CALL], { cwd: dir, env });
  const blobs = {};
  for (const warm of [false, true]) {
    const script = join(home, `builder-${warm}.cjs`);
    const blob = join(home, `exec-${warm ? "warm" : "cold"}.blob`);
    writeFileSync(script, builder(dir, warm));
    const r = spawnSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", script], {
      cwd: home,
      env,
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`building ${blob} failed (${r.status}): ${r.stderr.slice(-800)}`);
    blobs[warm ? "warm" : "cold"] = blob;
  }
  // The bin an npm install would need for that start: a shell script, reached through the link npm
  // makes in a bin folder, that finds its own folder and execs node with the blob beside it
  const launcher = join(home, "launcher.sh");
  writeFileSync(
    launcher,
    `#!/bin/sh\nd=$(dirname "$(readlink -f "$0")")\nexec ${JSON.stringify(process.execPath)} --snapshot-blob "$d/${basename(blobs.warm)}" "$@"\n`,
    { mode: 0o755 },
  );
  // and one with the blob's path written in (as an install step could), which runs no other program
  const fixed = join(home, "launcher-fixed.sh");
  writeFileSync(
    fixed,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --snapshot-blob ${JSON.stringify(blobs.warm)} "$@"\n`,
    { mode: 0o755 },
  );
  mkdirSync(join(home, "bin"));
  const linked = join(home, "bin", "hcpx");
  symlinkSync(launcher, linked);
  const node = (args) => ({ cmd: process.execPath, args });
  const variants = {
    "hcpx exec (now: dist/hcpx.cjs, code cache)": node([hcpx, ...CALL]),
    "snapshot, bundles' top level only": node(["--snapshot-blob", blobs.cold, ...CALL]),
    "snapshot, after one call in the builder": node(["--snapshot-blob", blobs.warm, ...CALL]),
    "the same through a /bin/sh launcher (npm's bin link)": { cmd: linked, args: CALL, children: "*calc.mjs*" },
    "the same, a launcher with the blob's path written in": { cmd: fixed, args: CALL, children: "*calc.mjs*" },
    "CommonJS floor (spawn + parse)": node([floor]),
  };
  const outs = new Set();
  for (const { cmd, args } of Object.values(variants)) {
    for (let i = 0; i < 2; i++) {
      const r = spawnSync(cmd, args, { cwd: dir, env, encoding: "utf8" });
      if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr.slice(-800)}`);
      outs.add(r.stdout);
    }
  }
  if (outs.size !== 1) throw new Error(`the variants answer differently: ${[...outs].join(" | ")}`);
  const cmds = Object.fromEntries(
    Object.entries(variants).map(([k, { cmd, args }]) => [k, { cmd, args, cwd: dir, env }]),
  );
  const wall = Object.fromEntries(
    Object.entries(timeCommands(cmds, { runs: RUNS, warmup: 3 })).map(([k, v]) => [k, median(v)]),
  );
  // the launcher's row counts the shell and what it runs too (its children but the pack's bin); valgrind
  // starts over at an exec, so the shell's own part before its exec (~0.2 M) is not in it
  const instr = Object.fromEntries(
    Object.entries(variants).map(([k, { cmd, args, children }]) => [
      k,
      instructions(cmd, args, { cwd: dir, env, children }),
    ]),
  );
  const fl = "CommonJS floor (spawn + parse)";
  const rows = [["variant", `wall p50 of ${RUNS}`, "× floor", "instructions", "× floor"]];
  for (const k of Object.keys(variants))
    rows.push([
      k,
      fmt(wall[k]),
      `${(wall[k] / wall[fl]).toFixed(3)}×`,
      instr[k] === undefined ? "-" : `${(instr[k] / 1e6).toFixed(1)} M`,
      instr[k] === undefined ? "-" : `${(instr[k] / instr[fl]).toFixed(3)}×`,
    ]);
  process.stdout.write(`hcpx exec calc-wrap ping, NODE_EXTRA_CA_CERTS unset (interleaved):\n${table(rows)}\n`);
  const mb = (f) => `${(statSync(f).size / 1e6).toFixed(2)} MB`;
  process.stdout.write(`blobs: top level only ${mb(blobs.cold)}, after one call ${mb(blobs.warm)}\n`);
  // what Node does with a blob it cannot use: the launcher that passes --snapshot-blob cannot fall back
  const cut = join(home, "cut.blob");
  writeFileSync(cut, readFileSync(blobs.warm).subarray(0, 100_000));
  const r = spawnSync(process.execPath, ["--snapshot-blob", cut, ...CALL], { cwd: dir, env, encoding: "utf8" });
  process.stdout.write(
    `a blob cut at 100 kB: exit ${r.status}, signal ${r.signal}${r.stdout ? `, stdout ${r.stdout.trim()}` : ""}\n`,
  );
} finally {
  rmSync(home, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
