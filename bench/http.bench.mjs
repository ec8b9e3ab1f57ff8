// `hcpx mcp --http` under load (issue 24 §5), with a real load generator
// (autocannon) on loopback:
// - tools/call throughput and p50/p99 of one instance against a bare MCP SDK
//   v2 HTTP server with one tool (bench/http-bare.mjs), interleaved rounds
//   (goal: ≥ 0.8× its throughput). hcpx answers a call at the end of the
//   event-loop turn, once the turn's audit records are written together
//   (src/runtime/audit.ts), and answering a turn later raises a server's
//   throughput by itself (~1.4× for the bare one on 2 cores): so the bare
//   server runs twice, answering at once and a turn later (`--defer`), and
//   hcpx is compared with both;
// - three instances behind nginx (Debian's package, started here with its own
//   config in a temp dir on loopback ports, never the system service) against
//   one behind the same nginx (goal: ≥ 2.5× on enough cores: the core count is
//   printed with the figure, and on a 2-core machine the load generator, nginx
//   and three Node processes share 2 cores, so the goal cannot be met there);
//   beside it, not a goal, what the rounds used (/proc: whether the CPUs were
//   busy, and a request's CPU time and context switches in the instances and
//   nginx: nginxUse below; docs/design.md has the figures).
// The call is `hcp {pack: "calc", verb: "ping"}`: a granted read of the
// composite pack calc (in-process), so the figure is hcpx's own per-call cost
// (config re-read, Policy, execute(), the audit record), not a bin's spawn.
// Auth: the same project is served twice side by side, with `--no-auth`
// (loopback) and with a server config whose principal has a static token
// (`hcpx token add`, every request carrying `Authorization: Bearer <token>`),
// so the rows show what authenticating each request costs. The nginx rows
// serve with the token too (what a team's deployment does).
// Knobs: BENCH_HTTP_SECONDS (per round, default 5), BENCH_HTTP_ROUNDS (2),
// BENCH_HTTP_CONNECTIONS (16). Run: `npm run bench -- http`.
/* global AbortSignal */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:net";
import autocannon from "autocannon";
import { goal, load, median, table } from "./lib.mjs";
import { benchProject } from "./project.mjs";

const REPO = dirname(dirname(fileURLToPath(import.meta.url)));
const HCPX = join(REPO, "dist", "hcpx.cjs");
const BARE = join(REPO, "bench", "http-bare.mjs");

/** The JSON-RPC body of one tools/call (legacy stateless: no initialize needed per request). */
export const CALL_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "hcp", arguments: { pack: "calc", verb: "ping", args: {} } },
});
const BARE_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "ping", arguments: {} },
});

export function requestHeaders(token) {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

/** A scratch project serving the composite pack calc, with its own HOME (the audit log goes there). */
export function scratchProject() {
  const dir = benchProject("hcpx-bench-http-", {
    packs: ["./packs/calc"],
    principal: { id: "bench", kind: "agent" },
    grants: { allow: ["calc.*"] },
    sandbox: { roots: ["."], cwd: "." },
  });
  const home = join(dir, "home");
  mkdirSync(home);
  return { dir, home, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A free loopback port (for nginx's listen and upstream lines). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

/** Start a process and wait for the URL it prints on stderr. */
function startPrinting(args, opts, re) {
  const child = spawn(process.execPath, args, { ...opts, stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    const t = setTimeout(() => reject(new Error(`no URL within 30 s: ${err}`)), 30_000);
    child.stderr.setEncoding("utf8").on("data", (d) => {
      err += d;
      const m = re.exec(err);
      if (m) {
        clearTimeout(t);
        resolve({ child, url: m[1], stop: () => stopChild(child) });
      }
    });
    child.on("close", (code) => {
      clearTimeout(t);
      reject(new Error(`exited ${code} before listening: ${err}`));
    });
  });
}

function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    child.once("close", r);
    child.kill("SIGTERM");
  });
}

/**
 * Token auth for `project`: a server config (principal `bench`, granted calc.*)
 * and its token from `hcpx token add` (the hash in the project's own state dir).
 */
export function tokenAuth(project) {
  const state = join(project.dir, "state");
  mkdirSync(state, { recursive: true });
  const serverConfig = join(project.dir, "server.json5");
  // every call of the load runs, whatever BENCH_HTTP_CONNECTIONS (the default limit is 16 calls at once per
  // principal): the rows count calls answered, never refusals (too_many_calls, also a 200)
  const server = {
    limits: { max_calls_per_principal: 1024 },
    principals: { bench: { grants: { allow: ["calc.*"] } } },
  };
  writeFileSync(serverConfig, JSON.stringify(server, null, 2));
  const env = { XDG_STATE_HOME: state };
  const r = spawnSync(process.execPath, [HCPX, "token", "add", "bench", "--server-config", serverConfig, "--json"], {
    cwd: project.dir,
    env: { PATH: process.env.PATH ?? "", HOME: project.home, ...env },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`hcpx token add failed: ${r.stdout}${r.stderr}`);
  return { serverConfig, env, token: JSON.parse(r.stdout).data.token };
}

/** One `hcpx mcp --http <port>` instance serving `project`: `--no-auth`, or with `auth` (tokenAuth()) its server config. */
export function startHcpx(project, port = 0, env = {}, auth) {
  const e = {
    PATH: process.env.PATH ?? "",
    HOME: project.home,
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
    ...(auth?.env ?? {}),
    ...env,
  };
  const how = auth ? ["--server-config", auth.serverConfig] : ["--no-auth"];
  return startPrinting(
    [HCPX, "mcp", "--http", String(port), ...how],
    { cwd: project.dir, env: e },
    / at (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
  );
}

/** The bare server (bench/http-bare.mjs); `defer`: it answers a turn later, as hcpx's calls do. */
export function startBare(defer = false) {
  return startPrinting(
    [BARE, "0", ...(defer ? ["--defer"] : [])],
    { env: { PATH: process.env.PATH ?? "" } },
    /listening (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
  );
}

export function nginxBinary() {
  for (const p of ["/usr/sbin/nginx", "/usr/bin/nginx"]) if (existsSync(p)) return p;
  return undefined;
}

/**
 * Debian's nginx with its own config in a temp dir (loopback only, no system
 * service, no access log): a round-robin upstream over `ports`; a refused
 * connection is retried on the next instance, and an instance that fails is
 * left out for 2 s (max_fails=1).
 */
export async function startNginx(ports) {
  const bin = nginxBinary();
  if (!bin) throw new Error("nginx is not installed (Debian: apt-get install -y nginx)");
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-nginx-")));
  const port = await freePort();
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream hcpx {
${ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join("\n")}
    keepalive 64;
    # below hcpx's limits.keep_alive_timeout_ms (65 s): the proxy closes an idle connection first (docs/http.md)
    keepalive_timeout 60s;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://hcpx;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_next_upstream error timeout;
      proxy_connect_timeout 5s;
    }
  }
}
`;
  writeFileSync(join(dir, "nginx.conf"), conf);
  const child = spawn(bin, ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  // ready when the port answers
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(
        `nginx exited ${child.exitCode}: ${err}${existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log"), "utf8") : ""}`,
      );
    try {
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(500) });
      break;
    } catch {
      if (Date.now() - t0 > 10_000) throw new Error(`nginx did not answer on ${port}: ${err}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    errorLog: () => (existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log"), "utf8") : ""),
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What process `pid` has used so far (/proc): CPU time (user + system, ms) and context switches; undefined when unreadable. */
export function procUse(pid) {
  try {
    return useOf(readFileSync(`/proc/${pid}/stat`, "utf8"), readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * procUse's figures from a process's /proc `stat` and `status` texts; undefined when either lacks one
 * (a kernel without the context-switch lines gives no figure, not a zero).
 */
export function useOf(stat, status) {
  // the fields after the command's name, which is in parentheses and may hold spaces: utime and stime
  // are the line's fields 14 and 15, in clock ticks (USER_HZ, 100 a second on Linux)
  const f = stat.replace(/^.*\) /s, "").split(" ");
  const sw = (k) => new RegExp(`^${k}:\\s+(\\d+)$`, "m").exec(status)?.[1];
  const [vol, invol] = [sw("voluntary_ctxt_switches"), sw("nonvoluntary_ctxt_switches")];
  const ticks = [f[11], f[12]].map((x) => (x !== undefined && /^\d+$/.test(x) ? Number(x) : NaN));
  if (vol === undefined || invol === undefined || ticks.some(Number.isNaN)) return undefined;
  return { ms: (ticks[0] + ticks[1]) * 10, switches: Number(vol) + Number(invol) };
}

/** The machine's CPU time so far (/proc/stat's first line, clock ticks): all of it, and the idle part (idle + iowait); undefined without /proc. */
function machineUse() {
  try {
    const t = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { all: t.reduce((a, b) => a + b, 0), idle: t[3] + t[4] };
  } catch {
    return undefined;
  }
}

/** The pids of an nginx master's worker processes (its children). */
function nginxWorkers(master) {
  try {
    return readFileSync(`/proc/${master}/task/${master}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * One round's load behind nginx, with what the machine, the instances (`upstreams`) and nginx's workers
 * used meanwhile (`use` undefined when any of it could not be read: no /proc, a process gone).
 */
async function measuredRound(ng, upstreams, opts) {
  const pids = [...upstreams, ...nginxWorkers(ng.child.pid)];
  const before = pids.map(procUse);
  const m0 = machineUse();
  const r = await loadRun(ng.url, opts);
  const m1 = machineUse();
  const after = pids.map(procUse);
  if (!m0 || !m1 || [...before, ...after].some((u) => u === undefined) || upstreams.length === pids.length)
    return { ...r, use: undefined };
  const used = pids.map((_, i) => ({
    ms: after[i].ms - before[i].ms,
    switches: after[i].switches - before[i].switches,
  }));
  return {
    ...r,
    use: { upstreams: used.slice(0, upstreams.length), nginx: used.slice(upstreams.length) },
    busy: 1 - (m1.idle - m0.idle) / (m1.all - m0.all),
  };
}

/**
 * Not a goal: why three instances give no more throughput than one here. Whether the CPUs were busy
 * (a lock or a shared file serialising the instances would leave them idle), and what a request cost
 * the instances and nginx in CPU time and in wakeups (context switches): with the same load split three
 * ways, each instance wakes for fewer requests at a time, and per-wakeup work is shared by fewer.
 */
export function nginxUse(rounds) {
  if ([...rounds.one, ...rounds.three].some((r) => r.use === undefined))
    return "not a goal, behind nginx: what the rounds used is not measured here (it reads /proc: Linux)\n";
  const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0);
  const of = (rs) => {
    const total = sum(rs, (r) => r.total);
    const up = rs.flatMap((r) => r.use.upstreams);
    const ng = rs.flatMap((r) => r.use.nginx);
    const perInstance = rs[0].use.upstreams.map((_, i) => sum(rs, (r) => r.use.upstreams[i].ms));
    return {
      total,
      busy: median(rs.map((r) => r.busy)),
      up: (sum(up, (u) => u.ms) / total) * 1000,
      upSwitches: sum(up, (u) => u.switches) / total,
      ng: (sum(ng, (u) => u.ms) / total) * 1000,
      shares: perInstance.map((x) => x / (sum(perInstance, (y) => y) || 1)),
    };
  };
  const one = of(rounds.one);
  const three = of(rounds.three);
  const us = (x) => `${x.toFixed(1)} µs`;
  const pct = (x) => `${Math.round(x * 100)}%`;
  return (
    `not a goal, behind nginx (${one.total} and ${three.total} requests, /proc): the CPUs ${pct(one.busy)} busy with 1 instance, ${pct(three.busy)} with 3; ` +
    `CPU time a request cost the instances ${us(three.up)} with 3 / ${us(one.up)} with 1 = ${(three.up / one.up).toFixed(3)}×, ` +
    `their context switches a request ${three.upSwitches.toFixed(2)} / ${one.upSwitches.toFixed(2)}, nginx's CPU ${us(three.ng)} / ${us(one.ng)}; ` +
    `each of the 3 instances' share of their CPU time ${three.shares.map(pct).join(", ")}\n`
  );
}

/** autocannon against `url` for `seconds`: requests/s, p50/p99 latency (ms), non-2xx, errors. */
export function loadRun(url, { seconds = 5, connections = 16, body = CALL_BODY, token, onResponse } = {}) {
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      { url, method: "POST", headers: requestHeaders(token), body, connections, duration: seconds, timeout: 10 },
      (err, r) => {
        if (err) reject(err);
        else
          resolve({
            rps: r.requests.average,
            total: r.requests.total,
            p50: r.latency.p50,
            p99: r.latency.p99,
            non2xx: r.non2xx,
            errors: r.errors,
            timeouts: r.timeouts,
          });
      },
    );
    if (onResponse) inst.on("response", onResponse);
  });
}

export default async function bench() {
  const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_HTTP_ROUNDS ?? 2);
  const connections = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 16);
  process.stdout.write(
    `tools/call over HTTP: autocannon, ${connections} connections, ${seconds} s × ${rounds} rounds each, interleaved; ${cpus().length} CPU cores; ${load()}\n`,
  );
  const project = scratchProject();
  const procs = [];
  try {
    const auth = tokenAuth(project);
    const token = auth.token;
    const bare = await startBare();
    procs.push(bare);
    const bareLater = await startBare(true);
    procs.push(bareLater);
    const one = await startHcpx(project);
    procs.push(one);
    // the same server authenticating every request (a static token): what a team's server does
    const authed = await startHcpx(project, 0, {}, auth);
    procs.push(authed);
    // the same server without its audit log: no record to write, and so no answer held to the turn's end
    // (it is slower than the logging one: see the bare server answering a turn later)
    const quiet = await startHcpx(project, 0, { HCPX_AUDIT_LOG: "off" });
    procs.push(quiet);
    // a request without the token is refused by the authenticating one (so the rows measure what they say)
    const refused = await loadRun(authed.url, { seconds: 1, connections: 1 });
    if (refused.non2xx === 0) throw new Error("the token-auth instance answered a request without a token");
    const runs = { bare: [], bareLater: [], hcpx: [], authed: [], quiet: [] };
    // warm up all (JIT, the pack's module)
    await loadRun(bare.url, { seconds: 1, connections, body: BARE_BODY });
    await loadRun(bareLater.url, { seconds: 1, connections, body: BARE_BODY });
    await loadRun(one.url, { seconds: 1, connections });
    await loadRun(authed.url, { seconds: 1, connections, token });
    await loadRun(quiet.url, { seconds: 1, connections });
    for (let i = 0; i < rounds; i++) {
      runs.bare.push(await loadRun(bare.url, { seconds, connections, body: BARE_BODY }));
      runs.bareLater.push(await loadRun(bareLater.url, { seconds, connections, body: BARE_BODY }));
      runs.hcpx.push(await loadRun(one.url, { seconds, connections }));
      runs.authed.push(await loadRun(authed.url, { seconds, connections, token }));
      runs.quiet.push(await loadRun(quiet.url, { seconds, connections }));
    }
    await quiet.stop();
    await bare.stop();
    await bareLater.stop();
    await one.stop();
    const rows = [["server", "req/s (median)", "p50 ms", "p99 ms", "non-2xx", "errors"]];
    const row = (name, rs) => [
      name,
      Math.round(median(rs.map((r) => r.rps))),
      median(rs.map((r) => r.p50)),
      median(rs.map((r) => r.p99)),
      rs.reduce((a, r) => a + r.non2xx, 0),
      rs.reduce((a, r) => a + r.errors + r.timeouts, 0),
    ];
    rows.push(
      row("bare SDK v2 server, one tool", runs.bare),
      row("the same, answering a turn later", runs.bareLater),
      row("hcpx mcp --http --no-auth, 1 instance", runs.hcpx),
      row("hcpx mcp --http, token auth, 1 instance", runs.authed),
      // no records to write: each call answers at once, not at the turn's end
      row("--no-auth, HCPX_AUDIT_LOG=off (answers at once)", runs.quiet),
    );

    // nginx: three instances against one, behind the same proxy, each authenticating
    if (!nginxBinary()) {
      process.stdout.write(table(rows) + "\nnginx: skipped (not installed; Debian: apt-get install -y nginx)\n");
    } else {
      const more = [await startHcpx(project, 0, {}, auth), await startHcpx(project, 0, {}, auth)];
      procs.push(...more);
      const portOf = (u) => Number(new URL(u).port);
      const ng1 = await startNginx([portOf(authed.url)]);
      procs.push(ng1);
      const ng3 = await startNginx([authed.url, ...more.map((m) => m.url)].map(portOf));
      procs.push(ng3);
      await loadRun(ng1.url, { seconds: 1, connections, token });
      // three instances, each warmed as long as the first was (JIT, the pack's module)
      await loadRun(ng3.url, { seconds: 3, connections, token });
      const nr = { one: [], three: [] };
      // what the machine, the instances and nginx used in each round (nginxUse)
      const upstreams = { one: [authed.child.pid], three: [authed, ...more].map((m) => m.child.pid) };
      const round = { seconds, connections: connections * 2, token };
      for (let i = 0; i < rounds; i++) {
        nr.one.push(await measuredRound(ng1, upstreams.one, round));
        nr.three.push(await measuredRound(ng3, upstreams.three, round));
      }
      rows.push(row("nginx → 1 instance (token auth)", nr.one), row("nginx → 3 instances (token auth)", nr.three));
      if ([...nr.one, ...nr.three].some((r) => r.non2xx))
        process.stdout.write(`nginx error log (non-2xx answers):\n${ng3.errorLog()}${ng1.errorLog()}\n`);
      process.stdout.write(table(rows) + "\n");
      process.stdout.write(nginxUse(nr));
      goal(
        `http: 3 instances behind nginx ≥ 2.5× 1 (${cpus().length} cores, token auth)`,
        ["3 instances", median(nr.three.map((r) => r.rps))],
        ["1 instance", median(nr.one.map((r) => r.rps))],
        { min: 2.5, unit: "req/s" },
      );
    }
    // against the bare server as it is, and against it answering a turn later as hcpx's calls do (hcpx's own cost)
    const rps = (rs) => median(rs.map((r) => r.rps));
    for (const [name, a, b] of [
      [
        "http: hcpx mcp --http tools/call throughput ≥ 0.8× a bare SDK v2 server (--no-auth)",
        ["hcpx", runs.hcpx],
        ["bare", runs.bare],
      ],
      ["http: the same with token auth ≥ 0.8× a bare SDK v2 server", ["hcpx, token", runs.authed], ["bare", runs.bare]],
      [
        "http: --no-auth ≥ 0.8× the bare server answering a turn later, as hcpx does (hcpx's own cost)",
        ["hcpx", runs.hcpx],
        ["bare, a turn later", runs.bareLater],
      ],
      [
        "http: token auth ≥ 0.8× the bare server answering a turn later",
        ["hcpx, token", runs.authed],
        ["bare, a turn later", runs.bareLater],
      ],
    ])
      goal(name, [a[0], rps(a[1])], [b[0], rps(b[1])], { min: 0.8, unit: "req/s" });
  } finally {
    for (const p of procs.reverse()) await p.stop().catch(() => {});
    project.cleanup();
  }
}

// `node bench/http.bench.mjs` alone (without run.mjs): its own scratch HOME via scratchProject
if (import.meta.url === `file://${process.argv[1]}`) {
  await bench();
  const { goalSummary } = await import("./lib.mjs");
  process.stdout.write(goalSummary() + "\n");
}
