// `hcpx adopt claude --write` against `ruler apply --agents claude`
// (@intellectronica/ruler, a devDependency), equivalent input: one MCP server
// (`hcpx mcp`), the same instruction text (the packs' prompt block), the same
// two Skills (ledger, transit). Each run starts from the same clean project
// (the previous run's output removed, untimed), interleaved hcpx/ruler; medians.
// Also: hcpx's no-op re-run (idempotent --write) and `hcpx adopt all --check --command "hcpx mcp"` in the adopted
// project (CI's form: in sync, exit 0) as figures, not goals, and add-mcp (a devDependency)
// writing only the MCP entry. Goals: ≤ 0.4× ruler,
// ≤ 1.0× add-mcp, with NODE_EXTRA_CA_CERTS unset and, where this machine sets it,
// set (as exec's bench: the bundle adds ~25 ms to every Node start here, to all
// three programs alike, and so pushes each ratio towards 1).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { caModes, fmt, goal, mcpStart, median, table, withoutCa } from "./lib.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = process.env.HCPX_DIST_BIN ?? join(REPO, "dist", "hcpx.cjs"); // the bin (package.json); HCPX_DIST_BIN: another build
const RULER = join(REPO, "node_modules", "@intellectronica", "ruler", "dist", "cli", "index.js");
const ADD_MCP = join(REPO, "node_modules", "add-mcp", "dist", "index.js");
const RUNS = Number(process.env.BENCH_RUNS || 15);

function project(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(REPO, "packs"), join(dir, "packs"), { recursive: true });
  cpSync(join(REPO, "bins"), join(dir, "bins"), { recursive: true });
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify(
      {
        packs: ["./packs/ledger", "./packs/transit"],
        principal: { id: "bench", kind: "agent" },
        grants: { allow: ["ledger.*", "transit.*"] },
        sandbox: { roots: ["."] },
      },
      null,
      2,
    ) + "\n",
  );
  return dir;
}

function clean(dir) {
  for (const f of readdirSync(dir)) {
    if (["packs", "bins", "hcp.config.json5", ".ruler"].includes(f)) continue;
    rmSync(join(dir, f), { recursive: true, force: true });
  }
}

function time(cmd, args, cwd, env) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const dt = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return dt;
}

export default async function bench() {
  if (!existsSync(RULER)) {
    console.log("skipped: @intellectronica/ruler is not installed (npm install)");
    return;
  }
  const home = mkdtempSync(join(tmpdir(), "hcpx-bench-home-"));
  const base = { ...process.env, HOME: home, NO_COLOR: "1" };
  delete base.XDG_CONFIG_HOME;
  const env = withoutCa(base);
  const hp = project("hcpx-bench-adopt-");
  const rp = project("hcpx-bench-ruler-");
  const ap = mkdtempSync(join(tmpdir(), "hcpx-bench-addmcp-"));
  try {
    compare({ base, env, hp, rp, ap });
  } finally {
    // a failing run too (a command that did not write what it should): no scratch folder left behind
    for (const d of [hp, rp, ap, home]) rmSync(d, { recursive: true, force: true });
  }
}

/** ruler's and add-mcp's inputs made from what hcpx writes, then the interleaved runs in each CA mode. */
function compare({ base, env, hp, rp, ap }) {
  const hcpxArgs = [HCPX, "adopt", "claude", "--write", "--command", "hcpx mcp"];

  // Equivalent ruler input, taken from what hcpx writes.
  time(process.execPath, hcpxArgs, hp, env);
  const block = /<!-- hcp:begin -->\n([\s\S]*)\n<!-- hcp:end -->/.exec(readFileSync(join(hp, "CLAUDE.md"), "utf8"))[1];
  mkdirSync(join(rp, ".ruler", "skills"), { recursive: true });
  writeFileSync(join(rp, ".ruler", "AGENTS.md"), block + "\n");
  writeFileSync(
    join(rp, ".ruler", "ruler.toml"),
    'default_agents = ["claude"]\n\n[mcp_servers.hcp]\ncommand = "hcpx"\nargs = ["mcp"]\n\n[gitignore]\nenabled = false\n',
  );
  for (const id of ["ledger", "transit"])
    cpSync(join(hp, ".claude", "skills", id), join(rp, ".ruler", "skills", id), { recursive: true });
  const rulerArgs = [RULER, "apply", "--agents", "claude", "--project-root", rp];
  time(process.execPath, rulerArgs, rp, env);
  for (const f of ["CLAUDE.md", ".mcp.json", join(".claude", "skills", "ledger", "SKILL.md")]) {
    if (!existsSync(join(rp, f))) throw new Error(`ruler did not write ${f}`);
  }

  // add-mcp writes one file, the MCP entry, in a git repository (it finds the project root by it)
  spawnSync("git", ["init", "-q"], { cwd: ap });
  const addArgs = [ADD_MCP, "hcpx mcp", "-a", "claude-code", "-n", "hcp", "-y"];
  time(process.execPath, addArgs, ap, env);
  if (!existsSync(join(ap, ".mcp.json"))) throw new Error("add-mcp did not write .mcp.json");

  for (const [mode, modeEnv] of caModes(base))
    measure(mode, { hp, rp, ap, hcpxArgs, rulerArgs, addArgs, env: modeEnv });
  afterMcp({ hp, hcpxArgs, env });
}

/**
 * Not a goal: the same adopt in a project where a host has started `hcpx mcp`, which remembered the packs'
 * files and Skills in the validation cache (src/pack/validcache.ts; adopt reads it and writes none), the
 * case of a re-adopt or a hook's `--check`, interleaved with adopt's first run (nothing remembered: the
 * goals above) in the same project, each with a cache folder of its own. NODE_EXTRA_CA_CERTS unset; the
 * project's files have long settled (the racy rule's 3 s) by now.
 */
function afterMcp({ hp, hcpxArgs, env }) {
  const warm = { ...env, XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), "hcpx-bench-adopt-cache-")) };
  const cold = { ...env, XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), "hcpx-bench-adopt-cache-")) };
  try {
    firstAgainstRemembered(hp, hcpxArgs, warm, cold);
  } finally {
    for (const e of [warm, cold]) rmSync(e.XDG_CACHE_HOME, { recursive: true, force: true });
  }
}

function firstAgainstRemembered(hp, hcpxArgs, warm, cold) {
  const r = spawnSync(process.execPath, [HCPX, "mcp"], {
    cwd: hp,
    env: warm,
    input: mcpStart("legacy"),
    encoding: "utf8",
  });
  if (r.status !== 0 || !r.stdout.includes('"id":2'))
    throw new Error(`hcpx mcp did not start (${r.status}): ${r.stderr}`);
  const s = { warm: [], cold: [] };
  for (let i = 0; i < 2 + RUNS; i++) {
    clean(hp);
    const a = time(process.execPath, hcpxArgs, hp, cold);
    clean(hp);
    const b = time(process.execPath, hcpxArgs, hp, warm);
    if (i >= 2) {
      s.cold.push(a);
      s.warm.push(b);
    }
  }
  const [mw, mc] = [median(s.warm), median(s.cold)];
  console.log(
    `not a goal: adopt claude --write after hcpx mcp started in the project (the packs' files and Skills remembered) against its first run, NODE_EXTRA_CA_CERTS unset: ${fmt(mw)} / ${fmt(mc)} = ${(mw / mc).toFixed(3)}×`,
  );
}

/** The interleaved runs in one CA mode, their table and the two goals. */
function measure(mode, { hp, rp, ap, hcpxArgs, rulerArgs, addArgs, env }) {
  // --check asks whether the host will run the command written (`hcpx` on the PATH it inherits): a folder
  // holding `hcpx` (the build's bin) put first on PATH for it, as an installed hcpx is
  const bin = mkdtempSync(join(tmpdir(), "hcpx-bench-path-"));
  symlinkSync(HCPX, join(bin, "hcpx"));
  const onPath = { ...env, PATH: `${bin}${delimiter}${env.PATH ?? ""}` };
  try {
    runAndReport(mode, { hp, rp, ap, hcpxArgs, rulerArgs, addArgs, env, onPath });
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

function runAndReport(mode, { hp, rp, ap, hcpxArgs, rulerArgs, addArgs, env, onPath }) {
  const s = { hcpx: [], ruler: [], hcpxNoop: [], hcpxCheck: [], addMcp: [] };
  for (let i = 0; i < 2 + RUNS; i++) {
    clean(hp);
    const a = time(process.execPath, hcpxArgs, hp, env);
    const n = time(process.execPath, hcpxArgs, hp, env); // second run: nothing to write
    const k = time(process.execPath, [HCPX, "adopt", "all", "--check", "--command", "hcpx mcp"], hp, onPath); // in sync: exit 0
    clean(rp);
    const b = time(process.execPath, rulerArgs, rp, env);
    rmSync(join(ap, ".mcp.json"), { force: true });
    const c = time(process.execPath, addArgs, ap, env);
    if (i >= 2) {
      s.hcpx.push(a);
      s.hcpxNoop.push(n);
      s.hcpxCheck.push(k);
      s.ruler.push(b);
      s.addMcp.push(c);
    }
  }
  const mh = median(s.hcpx);
  const mr = median(s.ruler);
  const mn = median(s.hcpxNoop);
  const mk = median(s.hcpxCheck);
  console.log(`${mode}:`);
  console.log(
    table([
      ["command", `median of ${RUNS}`, "ratio to ruler"],
      ["hcpx adopt claude --write (fresh project)", fmt(mh), (mh / mr).toFixed(2) + "×"],
      ["hcpx adopt claude --write (no-op re-run)", fmt(mn), (mn / mr).toFixed(2) + "×"],
      ["hcpx adopt all --check (in sync, CI's form)", fmt(mk), (mk / mr).toFixed(2) + "×"],
      ["ruler apply --agents claude", fmt(mr), "1.00×"],
      ["add-mcp (the MCP entry only)", fmt(median(s.addMcp)), (median(s.addMcp) / mr).toFixed(2) + "×"],
    ]),
  );
  goal(`adopt claude --write ≤ 0.4× ruler apply, ${mode}`, ["hcpx adopt", mh], ["ruler", mr], { max: 0.4 });
  goal(
    `adopt claude --write ≤ 1.0× add-mcp writing its one file, ${mode}`,
    ["hcpx adopt", mh],
    ["add-mcp", median(s.addMcp)],
    { max: 1.0 },
  );
}
