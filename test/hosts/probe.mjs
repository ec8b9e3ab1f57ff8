#!/usr/bin/env node
// probe.mjs — exercise every hostcli.mjs helper against fixtures/tiny-mcp.mjs in a
// scratch HOME + scratch git project, print a pass/fail table.
//   node test/hosts/probe.mjs            (HCPX_HOSTS_DIR to use another cache)
//   HCPX_HOSTS_OFFLINE=1 node test/hosts/probe.mjs   (unshare -n: no network at all)
//   --json   also write test/hosts/probe-results.json
// Exit 1 if any check fails.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  copyFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as H from "./hostcli.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const TINY = join(here, "fixtures", "tiny-mcp.mjs");
const NODE = process.execPath;
const HUNG = "setInterval(() => {}, 1e9)";

const root = mkdtempSync(join(tmpdir(), "hcpx-probe-"));
const home = join(root, "home");
const proj = join(root, "proj");
const w = (p, s) => {
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, s);
};
const j = (o) => JSON.stringify(o, null, 2) + "\n";
const tiny = (extra = {}) => ({ command: NODE, args: [TINY], ...extra });

mkdirSync(home, { recursive: true });
mkdirSync(proj, { recursive: true });
execFileSync("git", ["init", "-q", proj]);

// ---- Claude: project .mcp.json (approved via settings) + user ~/.claude.json
w(join(proj, ".mcp.json"), j({ mcpServers: { "tiny-proj": { type: "stdio", ...tiny() } } }));
w(join(home, ".claude", "settings.json"), j({ enableAllProjectMcpServers: true }));
w(join(home, ".claude.json"), j({ mcpServers: { "tiny-user": { type: "stdio", ...tiny() } } }));
// ---- Gemini: project .gemini/settings.json (with a // comment) + user settings
w(
  join(proj, ".gemini", "settings.json"),
  `{\n  // user comment\n  "mcpServers": ${JSON.stringify({ "tiny-proj": tiny() })}\n}\n`,
);
w(join(home, ".gemini", "settings.json"), j({ mcpServers: { "tiny-user": tiny() } }));
// ---- opencode: project opencode.jsonc-style opencode.json + user config
w(
  join(proj, "opencode.json"),
  `{\n  // comment\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": ${JSON.stringify({ "tiny-proj": { type: "local", command: [NODE, TINY], enabled: true } })}\n}\n`,
);
w(
  join(home, ".config", "opencode", "opencode.json"),
  j({ mcp: { "tiny-user": { type: "local", command: [NODE, TINY] } } }),
);
// ---- Codex: user ~/.codex/config.toml (+ trust for the project) + project .codex/config.toml
w(
  join(home, ".codex", "config.toml"),
  `# user comment\n[mcp_servers.tiny-user]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(TINY)}]\n\n[projects.${JSON.stringify(proj)}]\ntrust_level = "trusted"\n`,
);
w(
  join(proj, ".codex", "config.toml"),
  `[mcp_servers.tiny-proj]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(TINY)}]\n`,
);
// ---- plugin + extension dirs
const plugin = join(root, "tiny-plugin");
w(
  join(plugin, ".claude-plugin", "plugin.json"),
  j({
    name: "tiny-plugin",
    version: "0.1.0",
    description: "probe plugin",
    author: { name: "hcpx" },
    mcpServers: { tiny: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/tiny-mcp.mjs"] } },
  }),
);
w(join(plugin, "skills", "hello", "SKILL.md"), "---\nname: hello\ndescription: Says hello.\n---\nSay hello.\n");
copyFileSync(TINY, join(plugin, "tiny-mcp.mjs"));
const badPlugin = join(root, "bad-plugin");
w(join(badPlugin, ".claude-plugin", "plugin.json"), j({ name: "Bad Plugin", version: 1 }));
const ext = join(root, "tiny-ext");
w(
  join(ext, "gemini-extension.json"),
  j({
    name: "tiny-ext",
    version: "0.1.0",
    contextFileName: "GEMINI.md",
    mcpServers: { tiny: { command: "node", args: ["${extensionPath}/tiny-mcp.mjs"] } },
  }),
);
w(join(ext, "GEMINI.md"), "# tiny\n");
copyFileSync(TINY, join(ext, "tiny-mcp.mjs"));
const badExt = join(root, "bad-ext");
w(join(badExt, "gemini-extension.json"), j({ name: "bad-ext" }));

// tree hash of a dir (path + bytes), to prove a host run left it untouched
function treeHash(dir, skip = [".git"]) {
  const h = createHash("sha256");
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (skip.includes(e.name)) continue;
      const p = join(d, e.name);
      h.update(relative(dir, p) + "\0");
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) h.update(readFileSync(p));
      else h.update(String(statSync(p).mode));
    }
  };
  walk(dir);
  return h.digest("hex");
}
const listTree = (dir) => {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      out.push(relative(dir, p) + (e.isDirectory() ? "/" : ""));
      if (e.isDirectory() && out.length < 400) walk(p);
    }
  };
  walk(dir);
  return out.sort();
};

const rows = [];
const results = {};
async function check(id, fn, expect) {
  const projBefore = treeHash(proj);
  const homeBefore = treeHash(home);
  let r,
    pass = false,
    note = "";
  try {
    r = await fn();
    const e = expect(r);
    pass = e === true || (typeof e === "string" ? false : !!e);
    if (typeof e === "string") note = e;
  } catch (err) {
    note = String(err.message || err);
  }
  const ms = r?.raw?.ms ?? 0;
  const projSame = treeHash(proj) === projBefore;
  const homeSame = treeHash(home) === homeBefore;
  const summary = r
    ? (r.servers ?? []).map((s) => `${s.name}=${s.status}${s.tools ? `[${s.tools.join(",")}]` : ""}`).join(" ")
    : "";
  rows.push({
    id,
    pass,
    ms,
    exit: r?.raw?.code ?? "-",
    projSame,
    homeSame,
    summary: note || summary || (r?.text ?? ""),
  });
  results[id] = {
    pass,
    ms,
    projSame,
    homeSame,
    result: r && {
      ...r,
      raw: { ...r.raw, stdout: r.raw?.stdout?.slice(0, 4000), stderr: r.raw?.stderr?.slice(0, 4000) },
    },
  };
  return r;
}
const byName = (r) => Object.fromEntries((r.servers ?? []).map((s) => [s.name, s.status]));

// ------------------------------------------------------------------ checks
// copyHome:true everywhere a host rewrites its own files in HOME (Claude: ~/.claude.json)
await check(
  "claude mcp list (project+user)",
  () => H.claudeMcpList({ home, cwd: proj, copyHome: true }),
  (r) => r.ok && byName(r)["tiny-proj"] === "connected" && byName(r)["tiny-user"] === "connected",
);
await check(
  "claude mcp list (no approval → pending)",
  async () => {
    const h2 = join(root, "home-noapprove");
    mkdirSync(h2, { recursive: true });
    return H.claudeMcpList({ home: h2, cwd: proj });
  },
  (r) => !r.ok && byName(r)["tiny-proj"] === "pending",
);
await check(
  "claude mcp get tiny-user",
  () => H.claudeMcpGet("tiny-user", { home, cwd: proj, copyHome: true }),
  (r) => r.ok && /User/.test(r.server.scope),
);
await check(
  "claude plugin validate (good)",
  () => H.claudePluginValidate(plugin),
  (r) => r.ok && r.errors.length === 0,
);
await check(
  "claude plugin validate (bad → exit 1)",
  () => H.claudePluginValidate(badPlugin),
  (r) => !r.ok && r.raw.code === 1 && r.errors.length >= 1,
);

await check(
  "gemini mcp list (project+user)",
  () => H.geminiMcpList({ home, cwd: proj, copyHome: true }),
  (r) => r.ok && byName(r)["tiny-proj"] === "connected" && byName(r)["tiny-user"] === "connected",
);
await check(
  "gemini mcp list (untrusted → disabled)",
  () => H.geminiMcpList({ home, cwd: proj, trust: false, copyHome: true }),
  (r) => !r.ok && byName(r)["tiny-proj"] === "disabled",
);
await check(
  "gemini extensions validate (good)",
  () => H.geminiExtensionValidate(ext),
  (r) => r.ok,
);
await check(
  "gemini extensions validate (bad → exit 1)",
  () => H.geminiExtensionValidate(badExt),
  (r) => !r.ok && r.raw.code === 1,
);

await check(
  "opencode mcp list (project+user)",
  () => H.opencodeMcpList({ home, cwd: proj, copyHome: true }),
  (r) => r.ok && byName(r)["tiny-proj"] === "connected" && byName(r)["tiny-user"] === "connected",
);

await check(
  "codex mcp list --json (config only)",
  () => H.codexMcpList({ home, cwd: proj, copyHome: true }),
  (r) => r.ok && byName(r)["tiny-user"] === "configured" && byName(r)["tiny-proj"] === "configured",
);
await check(
  "codex app-server status (no thread: user only)",
  () => H.codexMcpServerStatus({ home, cwd: proj, thread: false, copyHome: true }),
  (r) => r.ok && byName(r)["tiny-user"] === "connected" && !("tiny-proj" in byName(r)),
);
await check(
  "codex app-server status+call (thread: proj+user)",
  () =>
    H.codexMcpServerStatus({
      home,
      cwd: proj,
      copyHome: true,
      call: { server: "tiny-proj", tool: "ping", arguments: { msg: "codex" } },
    }),
  (r) =>
    r.ok &&
    byName(r)["tiny-user"] === "connected" &&
    byName(r)["tiny-proj"] === "connected" &&
    r.servers.every((s) => s.tools.includes("ping")) &&
    r.callResult?.content?.[0]?.text === "pong: codex",
);

await check(
  "inspector tools/list",
  () => H.inspectorCall({ command: NODE, args: [TINY] }),
  (r) => r.ok && r.tools?.includes("ping"),
);
await check(
  "inspector tools/call ping",
  () =>
    H.inspectorCall({ command: NODE, args: [TINY], method: "tools/call", toolName: "ping", toolArgs: { msg: "hi" } }),
  (r) => r.ok && r.text === "pong: hi",
);
await check(
  "inspector --config .mcp.json --server",
  () =>
    H.inspectorCall({ config: join(proj, ".mcp.json"), server: "tiny-proj", method: "tools/call", toolName: "ping" }),
  (r) => r.ok && r.text === "pong",
);

// failure detection: a broken and a hung server must show as failed, within bounded time
const bad = join(root, "home-bad");
mkdirSync(bad, { recursive: true });
w(
  join(bad, ".claude.json"),
  j({
    mcpServers: {
      broken: { type: "stdio", command: "/nonexistent/x", args: [] },
      hung: { type: "stdio", command: NODE, args: ["-e", HUNG] },
    },
  }),
);
w(
  join(bad, ".gemini", "settings.json"),
  j({
    mcpServers: { broken: { command: "/nonexistent/x" }, hung: { command: NODE, args: ["-e", HUNG], timeout: 3000 } },
  }),
);
w(
  join(bad, ".config", "opencode", "opencode.json"),
  j({
    mcp: {
      broken: { type: "local", command: ["/nonexistent/x"] },
      hung: { type: "local", command: [NODE, "-e", HUNG], timeout: 3000 },
    },
  }),
);
w(
  join(bad, ".codex", "config.toml"),
  `[mcp_servers.broken]\ncommand = "/nonexistent/x"\n\n[mcp_servers.hung]\ncommand = ${JSON.stringify(NODE)}\nargs = ["-e", ${JSON.stringify(HUNG)}]\nstartup_timeout_sec = 3\n`,
);
const empty = join(root, "empty");
mkdirSync(empty);
await check(
  "claude: broken+hung → failed",
  () => H.claudeMcpList({ home: bad, cwd: empty }),
  (r) => byName(r).broken === "failed" && byName(r).hung === "failed",
);
await check(
  "gemini: broken+hung → failed",
  () => H.geminiMcpList({ home: bad, cwd: empty }),
  (r) => byName(r).broken === "failed" && byName(r).hung === "failed",
);
await check(
  "opencode: broken+hung → failed",
  () => H.opencodeMcpList({ home: bad, cwd: empty }),
  (r) => byName(r).broken === "failed" && byName(r).hung === "failed",
);
await check(
  "codex: broken+hung → failed",
  () => H.codexMcpServerStatus({ home: bad, cwd: empty, thread: false }),
  (r) => byName(r).broken === "failed" && byName(r).hung === "failed",
);
await check(
  "inspector: hung server → timeout",
  () => H.inspectorCall({ command: NODE, args: ["-e", HUNG], timeoutMs: 5000 }),
  (r) => !r.ok && r.raw.timedOut,
);

// malformed configs
const mal = join(root, "home-mal");
mkdirSync(mal, { recursive: true });
w(join(mal, ".gemini", "settings.json"), '{"mcpServers": {},}\n');
w(join(mal, ".codex", "config.toml"), "[mcp_servers.x\n");
w(join(mal, ".claude.json"), '{"mcpServers": {,}\n');
w(
  join(mal, ".config", "opencode", "opencode.json"),
  j({ mcp: { x: { type: "local", command: [NODE, TINY] } }, bogusKey: 1 }),
);
await check(
  "gemini: trailing comma → exit 52",
  () => H.geminiMcpList({ home: mal, cwd: empty }),
  (r) => r.raw.code === 52,
);
await check(
  "codex: bad TOML → exit 1",
  () => H.codexMcpList({ home: mal, cwd: empty }),
  (r) => r.raw.code === 1,
);
await check(
  "claude: bad ~/.claude.json (record)",
  () => H.claudeMcpList({ home: mal, cwd: empty, copyHome: true }),
  (r) =>
    `exit ${r.raw.code}: ${(r.raw.stderr + r.raw.stdout).trim().split("\n").slice(0, 2).join(" | ").slice(0, 110)}`,
);
await check(
  "opencode: unknown top-level key (record)",
  () => H.opencodeMcpList({ home: mal, cwd: empty }),
  (r) =>
    `exit ${r.raw.code}: ${H.stripAnsi(r.raw.stderr + r.raw.stdout)
      .trim()
      .split("\n")
      .filter(Boolean)
      .slice(0, 2)
      .join(" | ")
      .slice(0, 110)}`,
);

// ------------------------------------------------------------------ report
const stray = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
  .split("\n")
  .filter((l) => l.includes(root) || l.includes(HUNG) || (l.includes("tiny-mcp.mjs") && !l.includes("ps -eo")));
const fmt = (s, n) => String(s).padEnd(n).slice(0, n);
console.log(
  `hosts dir: ${H.HOSTS_DIR}   offline(unshare -n): ${process.env.HCPX_HOSTS_OFFLINE === "1" && H.canRunOffline()}   node ${process.version}   CI=${process.env.CI ?? ""}`,
);
console.log(
  `${fmt("check", 50)} ${fmt("result", 6)} ${fmt("ms", 6)} ${fmt("exit", 4)} ${fmt("proj=", 5)} ${fmt("home=", 5)} detail`,
);
for (const r of rows) {
  const res = r.pass ? "PASS" : r.summary.startsWith("exit") && r.id.includes("(record)") ? "INFO" : "FAIL";
  console.log(
    `${fmt(r.id, 50)} ${fmt(res, 6)} ${fmt(r.ms, 6)} ${fmt(r.exit, 4)} ${fmt(r.projSame ? "yes" : "NO", 5)} ${fmt(r.homeSame ? "yes" : "NO", 5)} ${r.summary.slice(0, 120)}`,
  );
}
console.log(`stray processes after run: ${stray.length}${stray.length ? "\n  " + stray.join("\n  ") : ""}`);
console.log(`files the hosts added under the scratch HOME (copyHome runs excluded):\n  ${listTree(home).join(" ")}`);
const failed = rows.filter((r) => !r.pass && !r.id.includes("(record)"));
console.log(failed.length ? `FAILED: ${failed.length}` : "ALL PASS");
if (process.argv.includes("--json"))
  writeFileSync(join(here, "probe-results.json"), JSON.stringify({ rows, results }, null, 2));
if (!process.argv.includes("--keep")) rmSync(root, { recursive: true, force: true });
else console.log(`kept ${root}`);
process.exit(failed.length ? 1 : 0);
