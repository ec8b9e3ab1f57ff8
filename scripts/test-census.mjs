// Where `npm test`'s CPU goes, by process: `node scripts/test-census.mjs [vitest args]`
// runs `vitest run` once and prints the CPU of every process the run started
// (the vitest workers, each `hcpx <command>`, npm, tsc, the bins and servers),
// summed by kind, and with `--by-file <regexp>` the processes of the kinds that
// match, by the test file that started them. HCPX_TEST_CPU_LOG (test/support/cpu-log.ts)
// gives each file's CPU, its children's as one figure; this says which children.
//
// Two sources, joined by pid: the kernel's process accounting (acct(2), through
// `accton` of the `acct` package; root), which writes a record with the user and
// system CPU of every process as it exits, killed ones included; and this
// process's poll of /proc every 3 ms for each process's command line, which the
// record lacks (it keeps 15 characters of the program's name: every Node process
// is "node"). A process is named by the first command line seen after its exec
// (a forked child shows its parent's until then); one that exited before the
// poll saw it is named by its program only. The poll costs this process CPU,
// counted nowhere in the table.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { table } from "../bench/lib.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Linux's clock ticks per second of an accounting record (AHZ) */
const AHZ = 100;
const RECORD = 64;

/** comp_t: a 13-bit mantissa and a 3-bit base-8 exponent */
const compT = (v) => (v & 0x1fff) * 8 ** (v >> 13);

/** The records of an acct(5) file of version 3 (Linux, little-endian): pid, ppid, CPU seconds, name, start. */
export function parseAcct(buf) {
  const out = [];
  for (let o = 0; o + RECORD <= buf.length; o += RECORD) {
    if (buf[o + 1] !== 3) throw new Error(`test-census: record at byte ${o} is not acct version 3`);
    const comm = buf.subarray(o + 48, o + 64).toString("latin1");
    out.push({
      pid: buf.readUInt32LE(o + 16),
      ppid: buf.readUInt32LE(o + 20),
      start: buf.readUInt32LE(o + 24) * 1000,
      cpu: (compT(buf.readUInt16LE(o + 32)) + compT(buf.readUInt16LE(o + 34))) / AHZ,
      comm: comm.slice(0, comm.indexOf("\0") < 0 ? 16 : comm.indexOf("\0")),
    });
  }
  return out;
}

/** The lines of HCPX_TEST_CPU_LOG: each test file, its worker's pid, and when it ran. */
export function parseCpuLog(text) {
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\t"))
    .map((f) => ({ file: f[2], pid: Number(f[3]), from: Number(f[6]), to: Number(f[7]) }));
}

/**
 * What a process was: "vitest worker" (a pid of the CPU log), "hcpx <command>", a Node script by its
 * last two path parts, or the program's name. `cmd` is the command line the poll saw (undefined: unseen).
 */
export function kindOf(rec, cmd, workers) {
  if (workers.has(rec.pid)) return "vitest worker";
  if (cmd === undefined) return `${rec.comm} (unseen)`;
  const argv = cmd.split("\0").filter(Boolean);
  const i = argv.findIndex((a) => /(^|\/)dist\/hcpx\.(c|m)js$/.test(a));
  if (i >= 0) return `hcpx ${argv[i + 1] ?? ""}`.trim();
  if (argv.some((a) => /vitest(\.mjs)?$/.test(a))) return "vitest";
  const script = argv.slice(1).find((a) => !a.startsWith("-"));
  const short = (a) => a.split("/").slice(-2).join("/");
  return /(^|\/)node$/.test(argv[0]) && script ? `node ${short(script)}` : argv[0].split("/").pop();
}

/** Sum by key: count and CPU seconds, largest first. */
export function tally(rows) {
  const m = new Map();
  for (const { key, cpu } of rows) {
    const t = m.get(key) ?? { key, n: 0, cpu: 0 };
    t.n++;
    t.cpu += cpu;
    m.set(key, t);
  }
  return [...m.values()].sort((a, b) => b.cpu - a.cpu);
}

/**
 * The records of the processes `root` started, its children's, and so on (root's own included): a record's
 * parent is the one the poll saw, else the record's.
 */
export function descendants(recs, root, polled) {
  const parent = (r) => polled.get(r.pid)?.ppid ?? r.ppid;
  const byPid = new Map(recs.map((r) => [r.pid, r]));
  const ours = new Map([[root, true]]);
  const isOurs = (pid, depth = 0) => {
    if (ours.has(pid)) return ours.get(pid);
    const r = byPid.get(pid);
    const yes = r !== undefined && depth < 64 && isOurs(parent(r), depth + 1);
    ours.set(pid, yes);
    return yes;
  };
  return recs.filter((r) => isOurs(r.pid));
}

/**
 * The test file whose run started a process, or one of its forebears: the forebear whose parent is a
 * worker, started while that worker ran the file. `parent` gives a pid's parent (the poll's, else the record's).
 */
export function fileOf(rec, files, byPid, parent) {
  const workers = new Set(files.map((f) => f.pid));
  let r = rec;
  for (let depth = 0; r !== undefined && !workers.has(parent(r)) && depth < 64; depth++) r = byPid.get(parent(r));
  if (r === undefined || workers.has(r.pid)) return undefined;
  // the record's start is in whole seconds: the process started in [start, start + 1 s), and of the files its
  // forebear's worker ran then, the one that ran for most of that second is taken
  const overlap = (f) => Math.min(f.to, r.start + 1000) - Math.max(f.from, r.start);
  const ran = files.filter((f) => f.pid === parent(r) && overlap(f) > 0);
  return ran.sort((a, b) => overlap(b) - overlap(a))[0]?.file;
}

/**
 * Poll /proc: each pid's parent and command line, the first one seen that is not its parent's (a fork before
 * its exec). The parent as the poll saw it is the one that started the process: the record's is the parent
 * at its exit, init (or a subreaper) for one whose parent ended first.
 */
function poller() {
  const seen = new Map();
  const scan = () => {
    for (const p of readdirSync("/proc")) {
      if (!/^\d+$/.test(p) || seen.get(p)?.settled) continue;
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, "latin1");
        if (!cmd) continue;
        const stat = readFileSync(`/proc/${p}/stat`, "latin1");
        const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
        seen.set(p, { cmd, ppid: Number(ppid), settled: seen.get(ppid)?.cmd !== cmd });
      } catch {
        // gone between the listing and the read
      }
    }
  };
  const timer = setInterval(scan, 3);
  return {
    stop() {
      clearInterval(timer);
      scan();
      // a command line never seen after the exec is the parent's: not this process's
      return new Map([...seen].map(([p, v]) => [Number(p), { cmd: v.settled ? v.cmd : undefined, ppid: v.ppid }]));
    },
  };
}

/** The tally's rows under a heading (bench/lib.mjs's table). */
function tallyTable(rows, total) {
  return table([
    ["count", "CPU-s", "each", `kind (of ${total.toFixed(1)} CPU-s in all)`],
    ...rows.map((r) => [String(r.n), r.cpu.toFixed(1), `${((r.cpu / r.n) * 1000).toFixed(0)} ms`, r.key]),
  ]);
}

async function main(argv) {
  const at = argv.indexOf("--by-file");
  const byFile = at >= 0 ? new RegExp(argv[at + 1] ?? ".") : undefined;
  const vitestArgs = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : argv;
  if (spawnSync("accton", ["--version"], { stdio: "ignore" }).error)
    throw new Error("test-census: needs `accton` (Debian: apt-get install acct) and root for process accounting");
  const dir = mkdtempSync(join(tmpdir(), "hcpx-census-"));
  const acct = join(dir, "acct");
  const cpuLog = join(dir, "cpu.log");
  writeFileSync(acct, "");
  const on = spawnSync("accton", [acct], { encoding: "utf8" });
  if (on.status !== 0) throw new Error(`test-census: accton failed (root?): ${on.stderr.trim()}`);
  // accounting stays on until turned off (every process of the machine, into that file): whatever happens
  const poll = poller();
  let child;
  let code;
  try {
    child = spawn(join(ROOT, "node_modules/.bin/vitest"), ["run", ...vitestArgs], {
      cwd: ROOT,
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, HCPX_TEST_CPU_LOG: cpuLog },
    });
    code = await new Promise((r, no) => child.on("error", no).on("close", (c) => r(c ?? 1)));
  } finally {
    spawnSync("accton", ["off"]);
  }
  const polled = poll.stop();
  const all = parseAcct(readFileSync(acct));
  const recs = descendants(all, child.pid, polled);
  // no file ran (vitest failed before any): every process is unattributed
  const files = existsSync(cpuLog) ? parseCpuLog(readFileSync(cpuLog, "utf8")) : [];
  rmSync(dir, { recursive: true, force: true });
  const workers = new Set(files.map((f) => f.pid));
  const byPid = new Map(recs.map((r) => [r.pid, r]));
  const parent = (r) => polled.get(r.pid)?.ppid ?? r.ppid;
  const kinds = recs.map((r) => ({ r, key: kindOf(r, polled.get(r.pid)?.cmd, workers), cpu: r.cpu }));
  const total = kinds.reduce((a, k) => a + k.cpu, 0);
  console.log(
    `\n${recs.length} processes of the run (${all.length - recs.length} others on the machine meanwhile), vitest exit ${code}\n${tallyTable(tally(kinds).slice(0, 40), total)}`,
  );
  if (byFile) {
    const rows = kinds
      .filter((k) => byFile.test(k.key))
      .map((k) => ({
        key: `${k.key}  ${fileOf(k.r, files, byPid, parent)?.replace(ROOT, "") ?? "(no test file)"}`,
        cpu: k.cpu,
      }));
    console.log(`\nby test file, kinds matching ${byFile}:\n${tallyTable(tally(rows).slice(0, 40), total)}`);
  }
  return code;
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e.message);
      process.exit(2);
    },
  );
