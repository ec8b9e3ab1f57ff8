// A remote MCP server as a pack (`mcp.url`): the mcp adapter calls it through
// the SDK v2's Streamable HTTP client, both eras (a 2026-07-28 server probed
// with server/discover, a 2025 one spoken to with initialize). Its headers
// come from the Binding only: a literal credential in the pack is refused, the
// token never shows in an envelope. Real servers on 127.0.0.1
// (test/fixtures/bins/http-mcp.mjs).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, tmp } from "../support/hcpx";
import { runHere } from "../support/inproc";

/**
 * Function calls in this process (test/support/inproc.ts): init, lint, import, grant and pack
 * from-mcp (what they decide and write is under test here) and exec (the adapter's requests and the
 * envelope are; exec's process is test/cli's). `hcpx mcp` and the HTTP servers stay real processes.
 */
const runHcpx = runHere;

const FIXTURE = join(REPO, "test/fixtures/bins/http-mcp.mjs");
const TOKEN = "tok-3f9a7c21e5b44d0f8a61";
const children: ChildProcess[] = [];

/** Start the fixture server in one mode; resolves with its URL. */
export function startServer(mode: "modern" | "both" | "legacy", env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE, mode], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((ok, bad) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const line = out.split("\n")[0]!;
      if (out.includes("\n")) ok(line.trim());
    });
    child.on("exit", (c) => bad(new Error(`http-mcp.mjs ${mode} exited (${c})`)));
  });
}

afterAll(() => {
  for (const c of children) c.kill("SIGTERM");
});

type Env = {
  ok: boolean;
  data?: unknown;
  error?: { code: string; message: string; hint?: string; problems?: { code: string }[] };
};
type Problem = { code: string; severity?: string };
type LintReport = { errors: number; packs: { id: string | null; problems: Problem[] }[] };

/** `hcpx lint --json`'s envelope: its report (data, or error.details when it fails) and its problems' codes by pack. */
function lintOf(stdout: string): {
  ok: boolean;
  report: LintReport;
  problems: { pack: string | null; code: string; severity?: string }[];
} {
  const env = JSON.parse(stdout) as { ok: boolean; data?: LintReport; error?: { details: LintReport } };
  const report = env.ok ? env.data! : env.error!.details;
  return {
    ok: env.ok,
    report,
    problems: report.packs.flatMap((p) => p.problems.map((x) => ({ pack: p.id, code: x.code, severity: x.severity }))),
  };
}

function writePack(dir: string, id: string, mcp: Record<string, unknown>, binding: string[] = []): void {
  const p = join(dir, "packs", id);
  mkdirSync(p, { recursive: true });
  const surface = {
    hcp: "1.1",
    id,
    version: "1.0.0",
    description: "A remote MCP server",
    kind: "mcp",
    mcp,
    ...(binding.length ? { binding: { env: binding } } : {}),
    commands: [
      { verb_key: "greet", tool: "greet", summary: "Say hello", args: { name: { type: "string", required: true } } },
      { verb_key: "whoami", tool: "whoami", summary: "What the server got", args: {} },
    ],
  };
  writeFileSync(join(p, "surface.json"), JSON.stringify(surface, null, 2));
  writeFileSync(
    join(p, "policy.json"),
    JSON.stringify({ rows: { greet: { operation: "read" }, whoami: { operation: "read" } } }),
  );
  writeFileSync(
    join(p, "SKILL.md"),
    `---\nname: ${id}\ndescription: "A remote server"\nleads:\n  - "${id}: greet and whoami are reads"\n---\n\n# ${id}\n\n| verb | what it does | read/write |\n|---|---|---|\n| \`greet\` | Say hello | read |\n| \`whoami\` | What the server got | read |\n`,
  );
}

let dir: string;
let stampFile: string;
const urls: Record<string, string> = {};

beforeAll(async () => {
  dir = tmp("hcpx-mcp-url-");
  // the servers' stamp tool writes here (the server's env, not hcpx's)
  stampFile = join(dir, "stamps.txt");
  const [modern, legacy] = await Promise.all([
    startServer("modern", { HTTP_MCP_TOKEN: TOKEN, HTTP_MCP_FILE: stampFile }),
    startServer("legacy", { HTTP_MCP_TOKEN: TOKEN, HTTP_MCP_FILE: stampFile }),
  ]);
  urls.modern = modern;
  urls.legacy = legacy;
  for (const era of ["modern", "legacy"] as const)
    writePack(
      dir,
      `remote-${era}`,
      { url: urls[era], headers: { Authorization: { env: "REMOTE_TOKEN", scheme: "Bearer" } } },
      ["REMOTE_TOKEN"],
    );
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({
      packs: ["./packs/remote-modern", "./packs/remote-legacy"],
      principal: { id: "t", kind: "agent" },
      grants: { allow: ["remote-modern.*", "remote-legacy.*"] },
      sandbox: { bins: {}, roots: ["."], cwd: "." },
    }),
  );
}, 60_000);

const exec = async (args: string[], env: NodeJS.ProcessEnv = { REMOTE_TOKEN: TOKEN }) => {
  const r = await runHcpx(["exec", "--json", ...args], { cwd: dir, env, timeoutMs: 60_000 });
  return { ...r, env: JSON.parse(r.stdout) as Env };
};

describe("mcp.url: a remote MCP server as a pack", () => {
  for (const era of ["modern", "legacy"] as const) {
    it(`calls a ${era} Streamable HTTP server's tool with the Binding's token`, async () => {
      const r = await exec([`remote-${era}`, "greet", "--", "name=Ada"]);
      expect(r.env, r.stderr).toEqual({ ok: true, data: { greeting: `hello Ada (${era})` } });
    }, 90_000);
  }

  it("the token reaches the server and never the envelope", async () => {
    const r = await exec(["remote-modern", "whoami"]);
    expect(r.env.ok, r.stdout + r.stderr).toBe(true);
    expect(JSON.stringify(r.env)).toContain("Bearer ***");
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  }, 60_000);

  it("without the Binding's value nothing is sent: a clear failure naming the variable", async () => {
    const r = await exec(["remote-legacy", "greet", "--", "name=Ada"], {});
    expect(r.env.ok).toBe(false);
    expect(r.env.error?.code).toBe("binding_missing");
    expect(r.env.error?.message).toContain("REMOTE_TOKEN");
  }, 60_000);

  it("a literal Authorization header in the pack is refused (load and lint), the secret never echoed", async () => {
    const d = tmp("hcpx-mcp-url-lit-");
    writePack(d, "leaky", { url: urls.modern, headers: { Authorization: `Bearer ${TOKEN}` } });
    writeFileSync(
      join(d, "hcp.config.json5"),
      JSON.stringify({
        packs: ["./packs/leaky"],
        principal: { id: "t", kind: "agent" },
        grants: { allow: ["leaky.*"] },
      }),
    );
    const r = await runHcpx(["exec", "leaky", "greet", "--json", "--", "name=Ada"], { cwd: d, timeoutMs: 60_000 });
    expect(r.code).not.toBe(0);
    const refused = JSON.parse(r.stdout) as Env;
    expect(refused.ok).toBe(false);
    expect([refused.error?.code, ...(refused.error?.problems ?? []).map((x) => x.code)]).toContain(
      "header_literal_secret",
    );
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    const l = await runHcpx(["lint", "packs/leaky", "--json"], { cwd: d, timeoutMs: 60_000 });
    expect(l.code).toBe(1);
    expect(lintOf(l.stdout).problems).toContainEqual({
      pack: "leaky",
      code: "header_literal_secret",
      severity: "error",
    });
    expect(l.stdout).not.toContain(TOKEN);
  }, 60_000);

  it("a redirect to another origin is not followed: the token never leaves the server's origin", async () => {
    const { createServer } = await import("node:http");
    const seen: (string | undefined)[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(404).end();
    });
    await new Promise<void>((ok) => other.listen(0, "127.0.0.1", () => ok()));
    const otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}/mcp`;
    const redirector = createServer((req, res) => {
      seen.push(undefined);
      res.writeHead(307, { location: otherUrl }).end();
    });
    await new Promise<void>((ok) => redirector.listen(0, "127.0.0.1", () => ok()));
    try {
      const d = tmp("hcpx-mcp-url-redirect-");
      writePack(
        d,
        "hop",
        {
          url: `http://127.0.0.1:${(redirector.address() as { port: number }).port}/mcp`,
          headers: { Authorization: { env: "REMOTE_TOKEN", scheme: "Bearer" } },
        },
        ["REMOTE_TOKEN"],
      );
      writeFileSync(
        join(d, "hcp.config.json5"),
        JSON.stringify({ packs: ["./packs/hop"], principal: { id: "t", kind: "agent" }, grants: { allow: ["hop.*"] } }),
      );
      const r = await runHcpx(["exec", "--json", "hop", "greet", "--", "name=Ada"], {
        cwd: d,
        env: { REMOTE_TOKEN: TOKEN },
        timeoutMs: 60_000,
      });
      const e = JSON.parse(r.stdout) as Env;
      expect(e.ok).toBe(false);
      expect(e.error?.code).toBe("mcp_error");
      // hcpx's own guard answered (not only the SDK's or fetch's): it names the redirect and follows none
      expect(e.error?.message).toMatch(/answered a redirect \(307\); hcpx does not follow it/);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((a) => a !== undefined)).toEqual([]); // the other origin never got the token
    } finally {
      other.close();
      redirector.close();
    }
  }, 60_000);

  it("bin and url together, or a URL with a password, are refused", async () => {
    const d = tmp("hcpx-mcp-url-bad-");
    writePack(d, "both", { url: urls.modern, bin: "node" });
    writePack(d, "userinfo", { url: urls.modern.replace("http://", "http://me:pw@") });
    for (const id of ["both", "userinfo"]) {
      const l = await runHcpx(["lint", `packs/${id}`, "--json"], { cwd: d, timeoutMs: 60_000 });
      expect(l.code, l.stdout).toBe(1);
      const code = id === "both" ? "mcp_server_form" : "mcp_url_invalid";
      expect(lintOf(l.stdout).problems).toContainEqual({ pack: id, code, severity: "error" });
      expect(l.stdout).not.toContain(":pw@");
    }
    expect(existsSync(join(d, "packs/both/surface.json"))).toBe(true);
    expect(readFileSync(join(d, "packs/both/surface.json"), "utf8")).toContain("url");
  }, 60_000);
});

describe("hcpx pack from-mcp --url", () => {
  it("writes a pack from a remote server: mcp.url, the header from the Binding, no token in any file", async () => {
    const d = tmp("hcpx-from-url-");
    expect((await runHcpx(["init", "--yes"], { cwd: d })).code).toBe(0);
    const r = await runHcpx(
      [
        "pack",
        "from-mcp",
        "--url",
        urls.legacy!,
        "--header",
        "Authorization=Bearer env:REMOTE_TOKEN",
        "--id",
        "rem",
        "--json",
      ],
      { cwd: d, env: { REMOTE_TOKEN: TOKEN }, timeoutMs: 60_000 },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const surface = readFileSync(join(d, "packs/rem/surface.json"), "utf8");
    const s = JSON.parse(surface.replace(/^\/\/.*\n/gm, "")) as {
      mcp: Record<string, unknown>;
      binding: { env: string[] };
      commands: { tool: string }[];
    };
    expect(s.mcp.url).toBe(urls.legacy);
    expect(s.mcp.bin).toBeUndefined();
    expect(s.mcp.headers).toEqual({ Authorization: { env: "REMOTE_TOKEN", scheme: "Bearer" } });
    expect(s.binding.env).toEqual(["REMOTE_TOKEN"]);
    expect(s.commands.map((c) => c.tool).sort()).toEqual(["greet", "stamp", "whoami"]);
    for (const f of ["surface.json", "policy.json", "SKILL.md", "../../hcp.config.json5"])
      expect(readFileSync(join(d, "packs/rem", f), "utf8")).not.toContain(TOKEN);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    const lint = await runHcpx(["lint", "packs/rem", "--json"], { cwd: d, timeoutMs: 60_000 });
    const linted = lintOf(lint.stdout);
    expect(linted.ok, lint.stdout).toBe(true);
    expect(linted.report.errors).toBe(0);
  }, 90_000);

  it("a literal credential header is refused before anything is sent or written, its value never echoed", async () => {
    const d = tmp("hcpx-from-url-lit-");
    expect((await runHcpx(["init", "--yes"], { cwd: d })).code).toBe(0);
    const r = await runHcpx(
      ["pack", "from-mcp", "--url", urls.modern!, "--header", `Authorization=Bearer ${TOKEN}`, "--id", "rem", "--json"],
      { cwd: d, timeoutMs: 60_000 },
    );
    expect(r.code).toBe(64);
    expect((JSON.parse(r.stdout) as Env).error?.code).toBe("header_literal_secret");
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(existsSync(join(d, "packs/rem"))).toBe(false);
  }, 60_000);

  it("a failed import leaves nothing behind (refused credentials; nothing listening)", async () => {
    const d = tmp("hcpx-from-url-fail-");
    expect((await runHcpx(["init", "--yes"], { cwd: d })).code).toBe(0);
    const before = readFileSync(join(d, "hcp.config.json5"), "utf8");
    const wrong = await runHcpx(
      ["pack", "from-mcp", "--url", urls.modern!, "--header", "Authorization=Bearer env:REMOTE_TOKEN", "--json"],
      { cwd: d, env: { REMOTE_TOKEN: "wrong" }, timeoutMs: 60_000 },
    );
    expect(wrong.code, wrong.stdout).not.toBe(0);
    const refused = JSON.parse(wrong.stdout) as Env;
    expect(refused.error?.code).toBe("mcp_connect_failed");
    expect(`${refused.error?.message} ${refused.error?.hint}`).toContain("REMOTE_TOKEN");
    const gone = await runHcpx(["pack", "from-mcp", "--url", "http://127.0.0.1:9/mcp", "--id", "gone", "--json"], {
      cwd: d,
      timeoutMs: 60_000,
    });
    expect(gone.code).not.toBe(0);
    expect((JSON.parse(gone.stdout) as Env).error?.code).toBe("mcp_connect_failed");
    expect(existsSync(join(d, "packs"))).toBe(false);
    expect(readFileSync(join(d, "hcp.config.json5"), "utf8")).toBe(before);
  }, 60_000);
});

describe("hcpx import <host> takes the host's remote (URL) servers", () => {
  it("Claude Code's .mcp.json: an http server whose header references an env var becomes an mcp.url pack; import → activate → grant → exec and mcp call", async () => {
    const d = tmp("hcpx-import-url-");
    expect((await runHcpx(["init", "--yes"], { cwd: d })).code).toBe(0);
    writeFileSync(
      join(d, ".mcp.json"),
      JSON.stringify(
        {
          mcpServers: {
            stamps: { type: "http", url: urls.modern, headers: { Authorization: "Bearer ${REMOTE_TOKEN}" } },
            oldstamps: {
              type: "http",
              url: urls.legacy,
              headers: { Authorization: "Bearer ${REMOTE_TOKEN}", "X-Client": "hcpx-test" },
            },
            leaky: { type: "http", url: urls.modern, headers: { Authorization: `Bearer ${TOKEN}` } },
            events: { type: "sse", url: urls.modern },
          },
        },
        null,
        2,
      ),
    );
    const env = { REMOTE_TOKEN: TOKEN };
    const list = await runHcpx(["import", "claude", "--json"], { cwd: d, env });
    expect(list.code, list.stdout + list.stderr).toBe(0);
    const servers = (
      JSON.parse(list.stdout) as {
        data: { servers: { name: string; url?: string; skip?: string; headers?: unknown }[] };
      }
    ).data.servers;
    const by = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(by.stamps).toMatchObject({
      url: urls.modern,
      headers: { Authorization: { env: "REMOTE_TOKEN", scheme: "Bearer" } },
    });
    expect(by.stamps!.skip).toBeUndefined();
    expect(by.leaky!.skip).toMatch(/literal credential.*not shown/);
    expect(by.leaky!.url).toBeUndefined();
    expect(by.events!.skip).toMatch(/SSE/);
    expect(list.stdout + list.stderr).not.toContain(TOKEN);

    // the literal secret: refused by name, with what to do, never copied or shown
    const leak = await runHcpx(["import", "claude", "--server", "leaky", "--json"], { cwd: d, env });
    expect(leak.code).toBe(1);
    const refusedLeak = JSON.parse(leak.stdout) as Env;
    expect(refusedLeak.error?.code).toBe("not_importable");
    expect(refusedLeak.error?.message).toContain("${NAME}");
    expect(leak.stdout + leak.stderr).not.toContain(TOKEN);
    expect(existsSync(join(d, "packs/leaky"))).toBe(false);

    // one command: --all imports every importable server, --activate activates each (its reads granted, never a write)
    const all = await runHcpx(["import", "claude", "--all", "--activate", "--json"], {
      cwd: d,
      env,
      timeoutMs: 90_000,
    });
    expect(all.code, all.stdout + all.stderr).toBe(0);
    const made = (JSON.parse(all.stdout) as { data: { imported: { id: string; env: string[] }[] } }).data.imported;
    expect(made.map((m) => m.id).sort()).toEqual(["oldstamps", "stamps"]);
    for (const id of ["stamps", "oldstamps"]) {
      const text = ["surface.json", "policy.json", "SKILL.md"]
        .map((f) => readFileSync(join(d, "packs", id, f), "utf8"))
        .join("\n");
      expect(text).not.toContain(TOKEN);
      const surface = JSON.parse(
        readFileSync(join(d, "packs", id, "surface.json"), "utf8").replace(/^\/\/.*\n/gm, ""),
      ) as { binding: { env: string[] }; mcp: { headers: Record<string, unknown> } };
      expect(surface.binding.env).toEqual(["REMOTE_TOKEN"]);
      expect(surface.mcp.headers.Authorization).toEqual({ env: "REMOTE_TOKEN", scheme: "Bearer" });
    }
    expect(readFileSync(join(d, "packs/oldstamps/surface.json"), "utf8")).toContain('"X-Client": "hcpx-test"');

    const cfg = readFileSync(join(d, "hcp.config.json5"), "utf8");
    for (const p of ["./packs/stamps", "./packs/oldstamps", "stamps.greet", "oldstamps.whoami"])
      expect(cfg).toContain(p);
    expect(cfg).not.toContain("stamps.stamp");
    // the write is granted by name; then it runs under Policy
    expect((await runHcpx(["grant", "stamps.stamp"], { cwd: d })).code).toBe(0);
    const ex = async (args: string[]) =>
      JSON.parse((await runHcpx(["exec", "--json", ...args], { cwd: d, env, timeoutMs: 60_000 })).stdout) as Env;
    expect(await ex(["oldstamps", "greet", "--", "name=Ada"])).toEqual({
      ok: true,
      data: { greeting: "hello Ada (legacy)" },
    });
    expect((await ex(["stamps", "stamp", "--", "text=one"])).error?.code).toBe("confirm_required");
    expect(existsSync(stampFile)).toBe(false);
    expect((await ex(["stamps", "stamp", "--confirm", "--", "text=one"])).ok).toBe(true);
    expect(readFileSync(stampFile, "utf8")).toBe("one\n");
    expect((await ex(["oldstamps", "stamp", "--confirm", "--", "text=two"])).error?.code).toBe("not_granted");

    // and through hcpx's own MCP server, as an agent calls it
    const { connectMcp } = await import("../support/mcp");
    const conn = await connectMcp([join(REPO, "dist/hcpx.cjs"), "mcp"], d, {
      ...(process.env as Record<string, string>),
      ...env,
    });
    try {
      const res = (await conn.client.callTool({
        name: "hcp",
        arguments: { pack: "stamps", verb: "greet", args: { name: "Bo" } },
      })) as { content: { text: string }[]; isError?: boolean };
      expect(res.isError ?? false, JSON.stringify(res)).toBe(false);
      expect((res as { structuredContent?: unknown }).structuredContent).toEqual({
        ok: true,
        data: { greeting: "hello Bo (modern)" },
      });
    } finally {
      await conn.client.close();
    }
  }, 180_000);
});

describe("mcp.url: a call cancelled while the remote server runs its tool", () => {
  // Before, it was told "it was stopped with its process group and descendants": a remote server is no process of
  // hcpx's; it is asked to stop (notifications/cancelled) and the connection closed, and it may have acted.
  it("says the server was asked to stop and may have acted (audit: ran)", async () => {
    const d = tmp("hcpx-mcp-url-slow-");
    const called = join(d, "called.txt");
    const url = await startServer("modern", {
      HTTP_MCP_TOKEN: TOKEN,
      HTTP_MCP_SLOW_MS: "20000",
      HTTP_MCP_FILE: called,
    });
    writePack(d, "slow", { url, headers: { Authorization: { env: "REMOTE_TOKEN", scheme: "Bearer" } } }, [
      "REMOTE_TOKEN",
    ]);
    const surfaceFile = join(d, "packs", "slow", "surface.json");
    const surface = JSON.parse(readFileSync(surfaceFile, "utf8")) as { commands: unknown[] };
    surface.commands.push({ verb_key: "slow", tool: "slow", summary: "Answer late", args: {} });
    writeFileSync(surfaceFile, JSON.stringify(surface));
    const rows = { greet: { operation: "read" }, whoami: { operation: "read" }, slow: { operation: "read" } };
    writeFileSync(join(d, "packs", "slow", "policy.json"), JSON.stringify({ rows }));
    writeFileSync(
      join(d, "hcp.config.json5"),
      JSON.stringify({ packs: ["./packs/slow"], grants: { allow: ["slow.*"] } }),
    );
    const { loadPack, loadProject } = await import("../../src/pack/load");
    const { runMcp } = await import("../../src/runtime/mcp-adapter");
    const { decisionOf } = await import("../../src/runtime/audit");
    const pack = loadPack(join(d, "packs", "slow"));
    const ac = new AbortController();
    const answer = runMcp({
      pack,
      project: loadProject({ config: join(d, "hcp.config.json5") }),
      cmd: pack.commands.find((c) => c.verb_key === "slow")!,
      values: {},
      literal: undefined,
      env: { REMOTE_TOKEN: TOKEN },
      signal: ac.signal,
    } as Parameters<typeof runMcp>[0]);
    // once the server has the tool call (it holds it 20 s)
    for (let i = 0; i < 600 && !existsSync(called); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(called)).toBe(true);
    ac.abort("SIGTERM");
    const env = await answer;
    expect(env.ok).toBe(false);
    if (env.ok) return;
    expect(env.error.code).toBe("cancelled");
    expect(env.error.message).toBe(
      "slow slow was cancelled (SIGTERM): the server was asked to stop its tool call, and the connection closed; it may already have acted",
    );
    expect(decisionOf(env.error.code, env.error)).toBe("ran");
  }, 60_000);
});
