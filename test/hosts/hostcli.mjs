// hostcli.mjs — run the hosts' own programs (installed by scripts/install-hosts.sh)
// against a scratch HOME / project and return parsed results.
//
// Every helper resolves to { ok, servers, raw, ... } and never throws for a host
// failure: `raw` is { cmd, args, code, signal, stdout, stderr, ms, timedOut }.
// `servers` is [{ name, status, ... }] with status one of
//   'connected' | 'failed' | 'pending' | 'disabled' | 'configured' | <host word>.
// Every child runs in its own process group with a hard timeout; on timeout the
// whole group (host + the MCP servers it spawned) is SIGKILLed.
//
// Findings behind each parser: test/hosts/HOST-PROBES.md.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, join } from "node:path";
import readline from "node:readline";
import { withSlot } from "./slots.mjs";

export { withSlot };

export const HOSTS_DIR = process.env.HCPX_HOSTS_DIR || join(homedir(), ".cache", "hcpx-hosts");
export const HOSTS_BIN = join(HOSTS_DIR, "node_modules", ".bin");
const BIN_NAMES = {
  claude: "claude",
  gemini: "gemini",
  codex: "codex",
  opencode: "opencode",
  inspector: "mcp-inspector",
};

/** Absolute path of a host program in the cache (throws if not installed). */
export function hostBin(host) {
  const p = join(HOSTS_BIN, BIN_NAMES[host] ?? host);
  if (!existsSync(p)) throw new Error(`${p} missing: run scripts/install-hosts.sh (HCPX_HOSTS_DIR=${HOSTS_DIR})`);
  return p;
}

/** { claude: true, gemini: false, ... } — for skipping tests when the cache is absent. */
export function hostsAvailable() {
  return Object.fromEntries(Object.entries(BIN_NAMES).map(([k, b]) => [k, existsSync(join(HOSTS_BIN, b))]));
}

// Variables that would redirect a host away from the scratch HOME, point it at a real
// account, or make it phone home. Removed from the inherited environment.
const STRIP = [
  /^XDG_(CONFIG|DATA|STATE|CACHE|RUNTIME)_(HOME|DIR)$/,
  /^CLAUDE_CONFIG_DIR$/,
  /^CLAUDE_CODE_/,
  /^ANTHROPIC_/,
  /^MCP_TIMEOUT$/,
  /^MCP_TOOL_TIMEOUT$/,
  /^CODEX_/,
  /^OPENAI_/,
  /^GEMINI_/,
  /^GOOGLE_(API_KEY|CLOUD_PROJECT|CLOUD_LOCATION|GENAI_USE_VERTEXAI|APPLICATION_CREDENTIALS)$/,
  /^OPENCODE_/,
  /^NODE_OPTIONS$/,
  /^FORCE_COLOR$/,
];

// Quiet, offline-friendly settings found by probing (HOST-PROBES.md, "Environment").
export const QUIET_ENV = {
  // Claude Code: no telemetry / auto-update / error reporting (otherwise it does DNS
  // lookups on every run), bounded MCP connect.
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  // 10 s, not 3: `claude mcp list` starts every server at once, and while the other host suite file
  // runs a heavy program beside it even the tiny fixture server missed 3 s (CI, Dec 2026)
  MCP_TIMEOUT: "10000",
  // Gemini CLI: skip the self-relaunch (0.9 s instead of 1.6 s), no telemetry.
  GEMINI_CLI_NO_RELAUNCH: "true",
  GEMINI_TELEMETRY_ENABLED: "false",
  // opencode: no update check, no models.dev fetch, no LSP downloads, no sharing.
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_SHARE: "1",
  NO_COLOR: "1",
};

/** Environment for a host run in scratch `home`. `extra` wins over everything. */
export function hostEnv(home, extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!STRIP.some((re) => re.test(k))) env[k] = v;
  Object.assign(env, QUIET_ENV, { HOME: home, USERPROFILE: home }, extra);
  for (const [k, v] of Object.entries(env)) if (v === undefined || v === null) delete env[k];
  return env;
}

let unshareOk;
/** True when `unshare -n` works here (root / CAP_SYS_ADMIN): runs with no network at all. */
export function canRunOffline() {
  if (unshareOk === undefined) {
    const r = spawnSync("unshare", ["-n", "true"], { stdio: "ignore", timeout: 5000 });
    unshareOk = r.status === 0;
  }
  return unshareOk;
}
const wantOffline = (o) => (o ?? process.env.HCPX_HOSTS_OFFLINE === "1") && canRunOffline();

/**
 * Run a program; resolves { cmd, args, code, signal, stdout, stderr, ms, timedOut }.
 * opts: cwd, env, input (string written to stdin, then closed), timeoutMs, offline.
 */
export function run(cmd, args, opts = {}) {
  // the timeout is the program's own time: it starts once the run has a slot (slots.mjs)
  return withSlot((waitedMs) =>
    runNow(cmd, args, opts).then((r) => {
      // HCPX_HOST_RUNLOG=<file>: a JSON line per run, to see how close runs come to their timeout
      if (process.env.HCPX_HOST_RUNLOG)
        appendFileSync(
          process.env.HCPX_HOST_RUNLOG,
          JSON.stringify({
            cmd: basename(cmd),
            arg: args[0],
            ms: r.ms,
            waitedMs,
            timeoutMs: opts.timeoutMs ?? 60_000,
            timedOut: r.timedOut,
          }) + "\n",
        );
      return { ...r, waitedMs };
    }),
  );
}

function runNow(cmd, args, { cwd, env, input = "", timeoutMs = 60_000, offline } = {}) {
  const [c, a] = wantOffline(offline) ? ["unshare", ["-n", "--", cmd, ...args]] : [cmd, args];
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(c, a, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let stdout = "",
      stderr = "",
      timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.stdin.on("error", () => {});
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.on("error", (e) => {
      stderr += String(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      killGroup(child, "SIGTERM"); // stragglers (MCP servers the host left behind)
      resolve({ cmd, args, code, signal, stdout, stderr, ms: Date.now() - t0, timedOut });
    });
    child.stdin.end(input);
  });
}

function killGroup(child, sig = "SIGKILL") {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    /* already gone */
  }
}

/** Run fn(home) on a throwaway copy of `home` (hosts rewrite their own files there). */
async function withHome(home, copyHome, fn) {
  if (!copyHome) return fn(home);
  const tmp = mkdtempSync(join(tmpdir(), "hcpx-home-"));
  cpSync(home, tmp, { recursive: true, verbatimSymlinks: true });
  try {
    return await fn(tmp);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export const stripAnsi = (s) => s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/\x1b\][^\x07]*\x07/g, "");

// ---------------------------------------------------------------- Claude Code

/** Parse `claude mcp list` output: `<name>: <command> - ✔ Connected`. */
export function parseClaudeMcpList(text) {
  const servers = [];
  for (const line of stripAnsi(text).split("\n")) {
    const m = /^(\S[^:]*?): (.*) - ([✔✘⏸⚠!△✓✗].*)$/u.exec(line.trimEnd());
    if (!m) continue;
    const [, name, command, state] = m;
    let status = "unknown";
    if (/^✔ Connected/u.test(state)) status = "connected";
    else if (/^✘/u.test(state)) status = "failed";
    else if (/^⏸/u.test(state)) status = "pending";
    else if (/auth/i.test(state)) status = "needs-auth";
    servers.push({ name, status, command, detail: state });
  }
  return servers;
}

/**
 * `claude mcp list` in `cwd` with HOME=`home`. Project `.mcp.json` servers show as
 * 'pending' unless `$HOME/.claude/settings.json` has {"enableAllProjectMcpServers": true}.
 * Claude rewrites `$HOME/.claude.json` on every run: pass copyHome:true to keep `home` pristine.
 * Exit code is 0 even when servers fail: `ok` = every listed server connected (and ≥1).
 */
export async function claudeMcpList({ home, cwd, copyHome = false, timeoutMs = 60_000, env = {}, offline } = {}) {
  return withHome(home, copyHome, async (h) => {
    const raw = await run(hostBin("claude"), ["mcp", "list"], { cwd, env: hostEnv(h, env), timeoutMs, offline });
    const servers = parseClaudeMcpList(raw.stdout);
    return { ok: raw.code === 0 && servers.length > 0 && servers.every((s) => s.status === "connected"), servers, raw };
  });
}

/** `claude mcp get <name>`: { ok, server: {name, status, scope, type, command, args}, raw }; exit 1 if unknown. */
export async function claudeMcpGet(name, { home, cwd, copyHome = false, timeoutMs = 60_000, env = {}, offline } = {}) {
  return withHome(home, copyHome, async (h) => {
    const raw = await run(hostBin("claude"), ["mcp", "get", name], { cwd, env: hostEnv(h, env), timeoutMs, offline });
    const field = (k) => (new RegExp(`^\\s+${k}: (.*)$`, "m").exec(stripAnsi(raw.stdout)) || [])[1];
    const st = field("Status") || "";
    const status = /Connected/.test(st)
      ? "connected"
      : /^✘/u.test(st)
        ? "failed"
        : /^⏸/u.test(st)
          ? "pending"
          : st || "unknown";
    const server = {
      name,
      status,
      scope: field("Scope"),
      type: field("Type"),
      command: field("Command"),
      args: field("Args"),
    };
    return { ok: raw.code === 0 && status === "connected", server, servers: raw.code === 0 ? [server] : [], raw };
  });
}

/**
 * `claude plugin validate --json <dir>`: exit 0 = valid (warnings allowed), 1 = invalid.
 * Returns { ok, errors, warnings, provides, report, raw }. strict:true fails on warnings too.
 */
export async function claudePluginValidate(dir, { home, strict = false, timeoutMs = 60_000, offline } = {}) {
  const h = home || mkdtempSync(join(tmpdir(), "hcpx-home-"));
  try {
    const args = ["plugin", "validate", "--json", ...(strict ? ["--strict"] : []), dir];
    const raw = await run(hostBin("claude"), args, { cwd: h, env: hostEnv(h), timeoutMs, offline });
    let report = null;
    try {
      report = JSON.parse(raw.stdout);
    } catch {
      /* not JSON: raw has it */
    }
    const m = report?.manifest ?? {};
    return {
      ok: raw.code === 0 && report?.success !== false,
      errors: m.errors ?? [],
      warnings: m.warnings ?? [],
      provides: report?.provides ?? null,
      servers: (report?.provides?.mcpServers ?? []).map((s) => ({ name: s.name, status: "configured", ...s })),
      report,
      raw,
    };
  } finally {
    if (!home) rmSync(h, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- Gemini CLI

/** Parse `gemini mcp list` (printed on STDERR): `✓ <name>: <cmd> (stdio) - Connected`. */
export function parseGeminiMcpList(text) {
  const servers = [];
  for (const line of stripAnsi(text).split("\n")) {
    const m = /^([✓✗○…⏳●])\s+(\S[^:]*?): (.*) - (\w[\w ]*)$/u.exec(line.trim());
    if (!m) continue;
    const word = m[4].trim();
    const status =
      { Connected: "connected", Disconnected: "failed", Disabled: "disabled", Connecting: "connecting" }[word] ??
      word.toLowerCase();
    servers.push({ name: m[2], status, command: m[3], detail: word });
  }
  return servers;
}

/**
 * `gemini mcp list` with GEMINI_CLI_TRUST_WORKSPACE=true (else every server, user ones too,
 * is "Disabled" in an untrusted folder). Exit 52 = a settings file does not parse.
 */
export async function geminiMcpList({
  home,
  cwd,
  trust = true,
  copyHome = false,
  timeoutMs = 90_000,
  env = {},
  offline,
} = {}) {
  return withHome(home, copyHome, async (h) => {
    const e = hostEnv(h, { ...(trust ? { GEMINI_CLI_TRUST_WORKSPACE: "true" } : {}), ...env });
    const raw = await run(hostBin("gemini"), ["mcp", "list"], { cwd, env: e, timeoutMs, offline });
    const servers = parseGeminiMcpList(raw.stderr + "\n" + raw.stdout);
    const error = raw.code === 52 ? stripAnsi(raw.stderr).trim() : undefined;
    return {
      ok: raw.code === 0 && servers.length > 0 && servers.every((s) => s.status === "connected"),
      servers,
      error,
      raw,
    };
  });
}

/** `gemini extensions validate <dir>`: exit 0/1, all text on stderr. */
export async function geminiExtensionValidate(dir, { home, timeoutMs = 60_000, offline } = {}) {
  const h = home || mkdtempSync(join(tmpdir(), "hcpx-home-"));
  try {
    const raw = await run(hostBin("gemini"), ["extensions", "validate", dir], {
      cwd: h,
      env: hostEnv(h),
      timeoutMs,
      offline,
    });
    const text = stripAnsi(raw.stderr + raw.stdout);
    const warnings = [...text.matchAll(/^\s*- Warning: (.*)$/gm)].map((m) => m[1]);
    const errors =
      raw.code === 0
        ? []
        : text
            .split("\n")
            .map((l) => l.trim())
            .filter((l) => l && !/^Validation failed|^Extension validation failed/.test(l));
    return { ok: raw.code === 0 && /has been successfully validated/.test(text), errors, warnings, servers: [], raw };
  } finally {
    if (!home) rmSync(h, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- opencode

/** Parse `opencode mcp list`: `●  ✓ <name> connected` (after stripping ANSI). */
export function parseOpencodeMcpList(text) {
  const servers = [];
  const lines = stripAnsi(text).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^[●○◆◇■]?\s*([✓✗○⚠!])\s+(\S+)\s+(\S.*)$/u.exec(lines[i].trim());
    if (!m) continue;
    const word = m[3].trim();
    const detail = (lines[i + 1] || "").replace(/^[│|]\s*/u, "").trim();
    servers.push({ name: m[2], status: word === "connected" ? "connected" : word, detail });
  }
  return servers;
}

/** `opencode mcp list` in `cwd` (reads ./opencode.json[c] and ~/.config/opencode/opencode.json). */
export async function opencodeMcpList({ home, cwd, copyHome = false, timeoutMs = 90_000, env = {}, offline } = {}) {
  return withHome(home, copyHome, async (h) => {
    const raw = await run(hostBin("opencode"), ["mcp", "list"], { cwd, env: hostEnv(h, env), timeoutMs, offline });
    const servers = parseOpencodeMcpList(raw.stdout + "\n" + raw.stderr);
    return { ok: raw.code === 0 && servers.length > 0 && servers.every((s) => s.status === "connected"), servers, raw };
  });
}

// ---------------------------------------------------------------- Codex

/** `codex mcp list --json`: parses config only (does not start servers); exit 1 on bad TOML. */
export async function codexMcpList({ home, cwd, copyHome = false, timeoutMs = 30_000, env = {}, offline } = {}) {
  return withHome(home, copyHome, (h) => codexMcpListIn(h, { cwd, timeoutMs, env, offline }));
}
async function codexMcpListIn(home, { cwd, timeoutMs, env, offline }) {
  const raw = await run(hostBin("codex"), ["mcp", "list", "--json"], {
    cwd,
    env: hostEnv(home, env),
    timeoutMs,
    offline,
  });
  let list = [];
  try {
    list = JSON.parse(raw.stdout);
  } catch {
    /* bad config: see raw.stderr */
  }
  const servers = list.map((s) => ({
    name: s.name,
    status: s.enabled ? "configured" : "disabled",
    transport: s.transport,
  }));
  return { ok: raw.code === 0, servers, raw };
}

/**
 * `codex debug prompt-input` (0.171): the input Codex would send its model, made without a
 * model or a network. `text` is its AGENTS.md instructions message (`# AGENTS.md
 * instructions for <cwd>`: what it read of ~/.codex/AGENTS.md and of each folder's
 * AGENTS.override.md or AGENTS.md, cut at project_doc_max_bytes), null when it read none.
 */
export async function codexInstructions({ home, cwd, timeoutMs = 30_000, env = {}, offline } = {}) {
  const raw = await run(hostBin("codex"), ["debug", "prompt-input"], {
    cwd,
    env: hostEnv(home, env),
    timeoutMs,
    offline,
  });
  let items = [];
  try {
    items = JSON.parse(raw.stdout);
  } catch {
    return { ok: false, text: null, raw };
  }
  const texts = items
    .filter((i) => i.role === "user")
    .flatMap((i) => i.content ?? [])
    .map((c) => c.text ?? "");
  return { ok: raw.code === 0, text: texts.find((t) => t.startsWith("# AGENTS.md instructions")) ?? null, raw };
}

/**
 * Start `codex app-server`, send `initialize` + `initialized`, optionally `thread/start`
 * {cwd, ephemeral:true}, then `mcpServerStatus/list` — which connects to each server and
 * lists its tools. Without a thread only user-scope (~/.codex/config.toml) servers are
 * listed; with thread:true (default) project `.codex/config.toml` servers of a trusted
 * project are included too. `call: {server, tool, arguments}` also runs
 * `mcpServer/tool/call` on the thread.
 * servers: [{ name, status: 'connected'|'failed', tools: [names], error }].
 * app-server populates ~/.codex (sqlite state, logs, bundled .system skills): use
 * copyHome:true to keep `home` pristine.
 */
export async function codexMcpServerStatus({ home, copyHome = false, ...opts } = {}) {
  return withHome(home, copyHome, (h) => withSlot(() => codexAppServer({ home: h, ...opts })));
}
async function codexAppServer({ home, cwd, thread = true, call, timeoutMs = 60_000, env = {}, offline } = {}) {
  const bin = hostBin("codex");
  const [c, a] = wantOffline(offline) ? ["unshare", ["-n", "--", bin, "app-server"]] : [bin, ["app-server"]];
  const t0 = Date.now();
  const child = spawn(c, a, { cwd, env: hostEnv(home, env), stdio: ["pipe", "pipe", "pipe"], detached: true });
  let stderr = "",
    stdout = "",
    timedOut = false;
  const notifications = [];
  const pending = new Map();
  let nextId = 0;
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  child.stdin.on("error", () => {});
  const exited = new Promise((res) => child.on("close", (code, signal) => res({ code, signal })));
  child.on("error", (e) => {
    stderr += String(e);
    for (const p of pending.values()) p({ error: { message: String(e) } });
  });
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    stdout += line + "\n";
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.id !== undefined && pending.has(m.id) && !m.method) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    } else if (m.id !== undefined && m.method) {
      // a server->client request (approval etc.): refuse it so nothing waits on us
      child.stdin.write(
        JSON.stringify({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "not supported by hcpx probe" } }) +
          "\n",
      );
    } else notifications.push(m);
  });
  const request = (method, params) =>
    new Promise((res) => {
      const id = ++nextId;
      pending.set(id, res);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
    for (const p of pending.values()) p({ error: { message: "timeout" } });
  }, timeoutMs);
  const out = { ok: false, servers: [], threadId: null, callResult: undefined, error: undefined };
  try {
    const init = await request("initialize", { clientInfo: { name: "hcpx-hostcli", version: "0.0.0" } });
    if (init.error) throw new Error(`initialize: ${init.error.message}`);
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "initialized" }) + "\n");
    if (thread) {
      const th = await request("thread/start", { cwd, ephemeral: true });
      if (th.error) throw new Error(`thread/start: ${th.error.message}`);
      out.threadId = th.result?.thread?.id ?? null;
    }
    const st = await request("mcpServerStatus/list", out.threadId ? { threadId: out.threadId } : {});
    if (st.error) throw new Error(`mcpServerStatus/list: ${st.error.message}`);
    out.status = st.result;
    out.servers = (st.result?.data ?? []).map((d) => ({
      name: d.name,
      status: d.toolsError || d.runtimeStatus === "failed" ? "failed" : "connected",
      runtimeStatus: d.runtimeStatus,
      tools: Object.keys(d.tools ?? {}),
      error: d.toolsError ?? undefined,
      serverInfo: d.serverInfo,
    }));
    if (call) {
      const r = await request("mcpServer/tool/call", {
        threadId: out.threadId,
        server: call.server,
        tool: call.tool,
        arguments: call.arguments ?? {},
      });
      out.callResult = r.error ? { error: r.error } : r.result;
    }
    out.ok =
      out.servers.length > 0 &&
      out.servers.every((s) => s.status === "connected") &&
      (!call || (out.callResult && !out.callResult.error && !out.callResult.isError));
  } catch (e) {
    out.error = e.message;
  } finally {
    clearTimeout(timer);
    child.stdin.end(); // app-server exits when stdin closes
    const hard = setTimeout(() => killGroup(child), 5000);
    const { code, signal } = await exited;
    clearTimeout(hard);
    killGroup(child, "SIGTERM");
    out.raw = {
      cmd: bin,
      args: ["app-server"],
      code,
      signal,
      stdout,
      stderr,
      ms: Date.now() - t0,
      timedOut,
      notifications,
    };
  }
  return out;
}

// ---------------------------------------------------------------- MCP Inspector

/**
 * MCP Inspector CLI (0.15.0). Either { command, args } (the server command line,
 * passed after `--` so the inspector's own `-e`/`--config` flags cannot eat the server's
 * arguments) or { config, server } (a file with `mcpServers`, e.g. the `.mcp.json` adopt
 * wrote). method 'tools/list' | 'tools/call' (toolName, toolArgs {k: v}) | ...
 * Exit 0 even for a tool result with isError:true; `ok` also requires !isError.
 * The inspector has no connect timeout of its own: a hung server hangs it (timeoutMs).
 * Server env: only `env` ({K: V}, passed as -e K=V) plus the MCP SDK's default
 * variables (HOME, PATH, USER, SHELL, TERM, LOGNAME) reach the server.
 */
export async function inspectorCall({
  command,
  args = [],
  config,
  server,
  method = "tools/list",
  toolName,
  toolArgs = {},
  serverEnv = {},
  home,
  cwd,
  timeoutMs = 30_000,
  offline,
} = {}) {
  const h = home || mkdtempSync(join(tmpdir(), "hcpx-home-"));
  try {
    // Order matters: `--tool-arg` is variadic (it would swallow a trailing command), and
    // everything after `--` goes to the inner CLI, which still parses --method etc.
    const a = ["--cli"];
    for (const [k, v] of Object.entries(serverEnv)) a.push("-e", `${k}=${v}`);
    if (config) a.push("--config", config, "--server", server);
    else a.push("--", command, ...args);
    a.push("--method", method);
    if (toolName) a.push("--tool-name", toolName);
    for (const [k, v] of Object.entries(toolArgs))
      a.push("--tool-arg", `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
    const raw = await run(hostBin("inspector"), a, { cwd: cwd || h, env: hostEnv(h), timeoutMs, offline });
    let result = null;
    try {
      result = JSON.parse(raw.stdout);
    } catch {
      /* error text in raw.stderr */
    }
    const tools = Array.isArray(result?.tools) ? result.tools.map((t) => t.name) : undefined;
    return {
      ok: raw.code === 0 && result !== null && result.isError !== true,
      result,
      tools,
      text: result?.content
        ?.filter((c) => c.type === "text")
        .map((c) => c.text)
        .join("\n"),
      servers: [{ name: server || command, status: raw.code === 0 && result ? "connected" : "failed" }],
      raw,
    };
  } finally {
    if (!home) rmSync(h, { recursive: true, force: true });
  }
}
