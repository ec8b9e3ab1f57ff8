// Issue 6, item 6 (secrets): packs with Binding values set in the environment —
// wrap bins that echo or leak them (argv-echo, leaky, forms: raw, URL-encoded,
// JSON-escaped, base64), an openapi pack against a 127.0.0.1 server that echoes
// the Authorization header and the query back, a composite that returns and
// throws ctx.env. No value (nor its URL-encoded, JSON-escaped or base64 form)
// may appear in any envelope, error, stderr, file that generate/adopt write
// (all hosts, project and user scope), or in the raw MCP transcript.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { copyFileSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { loadProject } from "../../../src/pack/load";
import { execute } from "../../../src/runtime/execute";
import { runHcpx, tmp, type RunResult } from "../../support/hcpx";
import { execInProcess, runInProcess } from "../../support/inproc";
import { forgetSecretsInPlay } from "../../../src/util/redact";
import { userConfigOf } from "../../support/userconfig";
import { fxPack, project } from "../../runtime/support";
import { copyOwnFixtures, findLeaks, startServer, type Env } from "./support";

const TOKENS = {
  LEAKY_TOKEN: "leaky-S3cr3t-A1b2C3d4",
  ECHO_TOKEN: 'echo/"tok"+\\ü=1&x y-9Q',
  FORMS_TOKEN: "forms-Zq9/Xw+8==kP!(x)'y",
  API_TOKEN: "api-T0k/en+==Vb7",
  COMP_TOKEN: 'comp-k3y-"quoted"-Lm4',
};
const SECRETS = Object.values(TOKENS);
/** The commands to run, with args, across every adapter kind. */
const CALLS: [string, string, string[]][] = [
  ["leaky", "fail", []],
  ["leaky", "ok", []],
  ["echo", "env", []],
  ["echo", "args", []],
  ["forms", "ok", []],
  ["forms", "fail", []],
  ["forms", "bad", []],
  ["forms", "tail", ["pad=100"]],
  ["api", "echo", ["q=hello"]],
  ["api", "deny", []],
  ["api", "b64", []],
  ["comp", "env", []],
  ["comp", "boom", []],
];

/**
 * The forms pack's bin: `tail <pad> [exit]` in the shell (1000 x, the raw token, <pad> y on stderr; {"pad":N}
 * on stdout), the other forms by fixtures/forms.mjs. The tail sweep below runs it 36 times: a Node start
 * each was ~40 ms of CPU, the shell's ~3 ms. The runtime's cut of the tail is under test, not the bin.
 */
const formsSh = (mjs: string) =>
  [
    "#!/bin/sh",
    "export PATH=/usr/bin:/bin",
    'if [ "$1" = tail ]; then',
    `  printf '%s%s' '${"x".repeat(1000)}' "$FORMS_TOKEN" >&2`,
    '  printf "%${2:-0}s" "" | tr " " y >&2',
    '  printf \'{"pad":%d}\\n\' "${2:-0}"',
    '  exit "${3:-0}"',
    "fi",
    `exec '${process.execPath}' '${mjs}' "$@"`,
  ].join("\n") + "\n";

let dir: string;
let home: string;
let server: Server;
let base: string;
const leaks: string[] = [];
const scan = (text: string, where: string) => leaks.push(...findLeaks(text, SECRETS, where));

function walk(root: string, out: string[] = []): string[] {
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) walk(p, out);
    else if (st.isFile()) out.push(p);
  }
  return out;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    const url = new URL(req.url ?? "/", "http://x");
    const echo = { authorization: auth, url: req.url, query: Object.fromEntries(url.searchParams) };
    if (url.pathname === "/deny") {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: `bad token ${auth}`, echo, encoded: encodeURIComponent(auth) }));
    } else if (url.pathname === "/b64") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          b64: Buffer.from(auth.replace(/^Bearer /, "")).toString("base64"),
          b64url: Buffer.from(auth.replace(/^Bearer /, "")).toString("base64url"),
        }),
      );
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(echo));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const cmd = (verb: string, cli: string[], args: Record<string, unknown> = {}) => ({
    verb_key: verb,
    summary: verb,
    cli,
    args,
  });
  const sp = project({
    packs: [
      fxPack("leaky", "leaky.mjs", [cmd("fail", ["leaky"]), cmd("ok", ["leaky", "ok"])], {
        binding: { env: ["LEAKY_TOKEN"] },
      }),
      fxPack("echo", "argv-echo.mjs", [cmd("env", ["e"]), cmd("args", ["e", "x"])], {
        wrap: { agent_env: { ARGV_ECHO_ENV: "ECHO_TOKEN" } },
        binding: { env: ["ECHO_TOKEN"] },
      }),
      {
        id: "forms",
        surface: {
          kind: "wrap",
          wrap: { bin: "../../hfx/forms.sh", json_flag: null, output: "json" },
          binding: { env: ["FORMS_TOKEN"] },
          commands: [
            cmd("ok", ["f", "ok"]),
            cmd("fail", ["f", "fail"]),
            cmd("bad", ["f", "bad"]),
            cmd("tail", ["f", "tail", "{{pad}}", "1"], { pad: { type: "integer", required: true } }),
          ],
        },
      },
      {
        id: "api",
        surface: {
          kind: "openapi",
          openapi: {
            base_url: "http://127.0.0.1:9",
            auth: { header: "Authorization", env: "API_TOKEN", scheme: "Bearer" },
          },
          binding: { env: ["API_TOKEN"] },
          commands: [
            {
              verb_key: "echo",
              summary: "echo",
              http: { method: "GET", path: "/echo" },
              args: { q: { type: "string", in: "query" } },
            },
            { verb_key: "deny", summary: "deny", http: { method: "GET", path: "/deny" }, args: {} },
            { verb_key: "b64", summary: "b64", http: { method: "GET", path: "/b64" }, args: {} },
          ],
        },
      },
      {
        id: "comp",
        surface: {
          kind: "composite",
          composite: { module: "./index.mjs" },
          binding: { env: ["COMP_TOKEN"] },
          commands: [
            { verb_key: "env", summary: "env", args: {} },
            { verb_key: "boom", summary: "boom", args: {} },
          ],
        },
      },
    ],
  });
  dir = sp.dir;
  copyOwnFixtures(dir);
  writeFileSync(join(dir, "hfx", "forms.sh"), formsSh(join(dir, "hfx", "forms.mjs")), { mode: 0o755 });
  copyFileSync(join(dir, "hfx", "env-composite.mjs"), join(dir, "packs", "comp", "index.mjs"));
  home = tmp("hcpx-secrets-home-");
  userConfigOf(dir, home);
});

afterAll(() => {
  server?.close();
});

beforeEach(() => {
  leaks.length = 0;
});

const ENV = () => ({ ...TOKENS, HOME: home, HCP_API_BASE_URL: base });

describe("secrets: every output of the runtime", () => {
  it("the CLI: every envelope (--json) and readable output, stdout and stderr, of every adapter kind", async () => {
    const runs = CALLS.flatMap(([p, v, kv]) => [["--json"], []].map((mode) => ({ p, v, kv, mode })));
    const args = ({ p, v, kv, mode }: (typeof runs)[number]) => ["exec", p, v, ...mode, "--", ...kv];
    // real processes (what reaches a real exec's stdout and stderr): the composite's calls (its module would stay
    // loaded in this shared worker), a wrap's and an openapi call's, each in both modes; started first, with the
    // environment as it is now (the in-process runs below set this process's while they run)
    const real = runs
      .filter(({ p, v }) => p === "comp" || ["forms ok", "api deny"].includes(`${p} ${v}`))
      .map((r) => ({ ...r, how: "process", result: runHcpx(args(r), { cwd: dir, env: ENV() }) }));
    // every other call in this process (the same command and output path), the redaction's values forgotten
    // before each run, as a new process starts with none
    const done: { p: string; v: string; mode: string[]; how: string; r: RunResult }[] = [];
    for (const run of runs.filter(({ p }) => p !== "comp")) {
      forgetSecretsInPlay();
      done.push({ ...run, how: "in-process", r: await execInProcess(args(run), { cwd: dir, env: ENV() }) });
    }
    for (const { result, ...run } of real) done.push({ ...run, r: await result });
    let failures = 0;
    for (const { p, v, mode, how, r } of done) {
      scan(r.stdout + r.stderr, `exec ${p} ${v} ${mode.join(" ")} (${how})`);
      if (mode.length) {
        const env = JSON.parse(r.stdout) as Env;
        // each call once: in this process, the composite's as a process
        if (!env.ok && (how === "in-process" || p === "comp")) failures++;
        // the call really reached the secret: the redaction marker is there
        expect(r.stdout + r.stderr, `${p} ${v} (${how})`).toContain("***");
      }
    }
    expect(done.length).toBe(runs.length + 4);
    expect(failures).toBeGreaterThan(4); // the error paths were exercised too
    expect(leaks.slice(0, 12)).toEqual([]);
  }, 120_000);

  it("a stderr tail cut at any offset keeps no piece of the token (in-process, the cut swept across the token)", async () => {
    const proj = loadProject({ config: join(dir, "hcp.config.json5") });
    const t = TOKENS.FORMS_TOKEN;
    const pieces = new Set<string>();
    for (let i = 0; i + 8 <= t.length; i++) for (let n = 8; i + n <= t.length; n++) pieces.add(t.slice(i, i + n));
    const found: string[] = [];
    // stderr is "x"*1000 + token + "y"*pad; the runtime keeps the last 2048 chars: pads 2030…2048 cut through the token
    for (let pad = 2020; pad < 2056; pad += 1) {
      const env = (await execute(
        proj,
        { pack: "forms", verb: "tail", args: { pad } },
        { env: { ...process.env, ...TOKENS } },
      )) as Env;
      expect(env.ok).toBe(false);
      const text = JSON.stringify(env);
      for (const p of pieces) if (text.includes(p)) found.push(`pad ${pad}: ${p}`);
      scan(text, `tail pad ${pad}`);
    }
    expect(found.slice(0, 5)).toEqual([]);
    expect(leaks.slice(0, 12)).toEqual([]);
  }, 120_000);

  it("lint, status, doctor, generate (all hosts) and adopt all --write (project and user scope): output and every file written", async () => {
    const runs: [string, string[]][] = [
      ["lint", ["lint"]],
      ["status", ["status"]],
      ["doctor", ["doctor"]],
      ["generate", ["generate", "--host", "claude,cursor,codex,gemini,opencode,vscode,windsurf"]],
      ["generate --as", ["generate", "--as", "claude-plugin", join(dir, "bundle-out")]],
      ["adopt project", ["adopt", "all", "--write"]],
      ["adopt user", ["adopt", "all", "--write", "--scope", "user"]],
      ["adopt --check", ["adopt", "all", "--check"]],
      ["adopt diff", ["adopt", "all", "--scope", "user"]],
    ];
    // status also as a real process (started first: it takes the environment as it is now); the rest in
    // this process, each with the redaction's values forgotten first, as a new process starts with none
    const real = runHcpx(["status"], { cwd: dir, env: ENV() });
    for (const [name, args] of runs) {
      forgetSecretsInPlay();
      const r = await runInProcess(args, { cwd: dir, env: ENV() });
      scan(r.stdout + r.stderr, name);
      if (name.startsWith("adopt ") && args.includes("--write")) expect(r.code, r.stderr).toBe(0);
    }
    const r = await real;
    scan(r.stdout + r.stderr, "status (process)");
    const files = [...walk(dir), ...walk(home)];
    expect(files.some((f) => f.endsWith(".mcp.json"))).toBe(true);
    expect(files.some((f) => f.includes(".claude.json"))).toBe(true);
    for (const f of files) scan(readFileSync(f, "latin1") + readFileSync(f, "utf8"), f);
    expect(leaks.slice(0, 12)).toEqual([]);
  }, 120_000);
});

/** One `hcpx mcp` session of `shape` (teed) over every call and the error paths; its raw transcript scanned. */
async function mcpSession(shape: "single" | "per-command"): Promise<void> {
  const s = await startServer(dir, {
    tee: true,
    shape,
    home,
    env: { ...TOKENS, HCP_API_BASE_URL: base, HCPX_DEBUG: "1" },
  });
  try {
    await s.client.listTools();
    const res = await s.client.listResources();
    for (const r of res.resources) await s.client.readResource({ uri: r.uri });
    await s.client.callTool({ name: "hcp__read_skill", arguments: { pack: "forms" } });
    let stars = 0;
    for (const [p, v, kv] of CALLS) {
      const args = Object.fromEntries(
        kv.map((a) => [
          a.slice(0, a.indexOf("=")),
          a.startsWith("pad=") ? Number(a.slice(4)) : a.slice(a.indexOf("=") + 1),
        ]),
      );
      const r =
        shape === "single"
          ? await s.client.callTool({ name: "hcp", arguments: { pack: p, verb: v, args } })
          : await s.client.callTool({ name: `${p}__${v}`, arguments: args });
      if (JSON.stringify(r).includes("***")) stars++;
    }
    expect(stars).toBeGreaterThan(8);
    // error paths: unknown verb, bad args
    await s.client.callTool({ name: "hcp", arguments: { pack: "api", verb: "nope" } });
    await s.client.callTool({ name: "hcp", arguments: { pack: "api", verb: "echo", args: { zz: 1 } } });
  } finally {
    await s.close();
  }
  await new Promise((r) => setTimeout(r, 200));
  const t = s.transcript!();
  expect(t.stdout.length).toBeGreaterThan(1000);
  scan(t.stdin, `mcp ${shape} stdin`);
  scan(t.stdout, `mcp ${shape} stdout`);
  scan(t.stderr + s.stderr(), `mcp ${shape} stderr`);
}

describe("secrets: the MCP transcript", () => {
  it("raw stdin/stdout/stderr of hcpx mcp (single and per-command, HCPX_DEBUG on) over every call", async () => {
    // the two servers side by side: each its own process and teed transcript
    await Promise.all((["single", "per-command"] as const).map(mcpSession));
    expect(leaks.slice(0, 12)).toEqual([]);
  }, 120_000);
});
