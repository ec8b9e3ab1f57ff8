// Issue 26 §1: the prompt block adopt writes names exactly the forms the host's
// MCP entry serves. For every host descriptor: adopt it alone in a scratch
// project (hcpx on PATH), take the block from the files written, start the
// entry's own command line as the host would and list its tools; every tool
// the block names (`hcp`, the `<pack>__<verb>` form, `hcp__read_skill`) is one
// that server has, the shell route appears only where the host's shell can run
// it, and a gated write takes `confirm` in the form the block says. A block two
// hosts with different shapes share (AGENTS.md: Antigravity single, Codex per-command; Amp was single until it got per-tool rules)
// names neither shape.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listHosts, loadDescriptor, type Target } from "../../src/host/descriptor";
import { readHostServers } from "../../src/cli/commands/import";
import { HCPX } from "../support/cli";
import { connectMcp } from "../support/mcp";
import { scratch as scratchChild, userConfigFromProject, type Scratch } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here; the real processes stay where the process is the subject */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

const blockOf = (text: string) =>
  /<!-- hcp:begin -->\n([\s\S]*?)<!-- hcp:end -->/.exec(text)?.[1] ??
  (text.includes("<!-- hcp:prompt") ? text : undefined);

interface Served {
  names: Set<string>;
  confirmable: boolean;
}

/**
 * What one entry's command line serves, started once per file: the same argv (with this
 * scratch project and HOME in place of another's) over the same packs serves the same tools,
 * so hosts whose entries run the same command line share one server start (the cases run at
 * once: a start under way is shared too).
 */
const servedBy = new Map<string, Promise<Served>>();

/** The tools the `hcp` entry of `host`'s MCP file serves, started as written (hcpx on PATH = this build). */
async function served(s: Scratch, host: string, scope: "project" | "user"): Promise<Served | undefined> {
  const d = loadDescriptor(host);
  const t = d.scopes[scope]?.targets.find((x) => x.entry);
  if (!t) return undefined;
  const paths = Array.isArray(t.path) ? t.path : [t.path];
  for (const p of paths) {
    const file = p.startsWith("~/") ? join(s.home, p.slice(2)) : join(s.dir, p);
    // the target with another own key, so that hcpx's own entry is listed like any server
    const other: Target = { ...t, key: [...t.key!.slice(0, -1), "\u0000none"] };
    let servers;
    try {
      servers = await readHostServers(file, other, d.name);
    } catch {
      continue;
    }
    const hcp = servers.find((x) => x.name === (d.servers?.[scope] ?? d.server ?? "hcp"));
    if (!hcp?.argv) continue;
    expect(hcp.argv[0], `${host}: the entry runs hcpx from PATH`).toBe("hcpx");
    // the scratch paths in the argv (`--config ~/.config/hcp/config.json5`) and the config it reads, made comparable
    const configFile =
      hcp.argv.indexOf("--config") > 0 ? hcp.argv[hcp.argv.indexOf("--config") + 1]! : join(s.dir, "hcp.config.json5");
    const key = JSON.stringify([hcp.argv.slice(1), readFileSync(configFile, "utf8")])
      .replaceAll(s.home, "<home>")
      .replaceAll(s.dir, "<dir>");
    let known = servedBy.get(key);
    if (!known) {
      const env = Object.fromEntries(
        Object.entries(s.env).filter((e): e is [string, string] => typeof e[1] === "string"),
      );
      known = listServed([HCPX, ...hcp.argv.slice(1)], s.dir, { ...env, PATH: s.env.PATH! });
      servedBy.set(key, known);
    }
    return known;
  }
  return undefined;
}

/** Start the entry's command line as the host would and list its tools. */
async function listServed(argv: string[], dir: string, env: Record<string, string>): Promise<Served> {
  const c = await connectMcp(argv, dir, env);
  try {
    const { tools } = await c.client.listTools();
    const names = new Set(tools.map((x) => x.name));
    const gated = tools.find((x) => x.name === "ledger__transfer") ?? tools.find((x) => x.name === "hcp");
    const props = (gated?.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    return { names, confirmable: "confirm" in props };
  } finally {
    await c.client.close();
  }
}

/** Every tool name (or tool-name form) the block names in code spans. */
function mentioned(block: string): string[] {
  return [...block.matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1]!)
    .filter((x) => x === "hcp" || /^[\w<>.-]+__[\w<>.-]+$/.test(x));
}

function check(host: string, block: string, s: Served, shellRoute: boolean): void {
  for (const m of mentioned(block)) {
    if (m === "<pack>__<verb>")
      expect(
        [...s.names].some((n) => n !== "hcp__read_skill" && /^[a-z0-9-]+__/.test(n)),
        `${host}: the block names the per-command form; served: ${[...s.names].join(", ")}`,
      ).toBe(true);
    else expect(s.names.has(m), `${host}: the block names \`${m}\`; served: ${[...s.names].join(", ")}`).toBe(true);
  }
  expect(block, `${host}: no in-process tool loop is served by an MCP entry`).not.toContain("tool loop");
  if (!shellRoute) expect(block, `${host}: its shell cannot run hcpx exec`).not.toMatch(/exec <pack> <verb>/);
  if (/confirm: true/.test(block))
    expect(s.confirmable, `${host}: the block says confirm: true; the gated write's tool takes no confirm`).toBe(true);
}

async function adoptOne(host: string, scope: "project" | "user") {
  const s = scratch({ hcpxOnPath: true });
  userConfigFromProject(s); // what user scope serves
  const r = await s.adopt(host, "--scope", scope, "--write", "--json");
  expect(r.code, `${host}: ${r.stderr}${r.stdout}`).toBe(0);
  const written: string[] = JSON.parse(r.stdout).data.written;
  const blocks = written.map((f) => blockOf(s.read(f))).filter((b): b is string => b !== undefined);
  return { s, blocks };
}

// The cases run at once (each its own scratch project and HOME; the adopts, in this process, one
// after the other): most of a case is a wait on its server's start.
describe.concurrent("the prompt block names what the host's entry serves", () => {
  for (const host of listHosts()) {
    const d = loadDescriptor(host);
    for (const scope of ["project", "user"] as const) {
      if (!d.scopes[scope]) continue;
      it(`${host} (${scope})`, { timeout: 60_000 }, async () => {
        const { s, blocks } = await adoptOne(host, scope);
        if (blocks.length === 0) return; // this scope writes no prose (e.g. Cursor's user rules live in its settings)
        // the entry at this scope, or (a scope without one: Cline's project rules) the host's other scope's entry
        const other = scope === "project" ? "user" : "project";
        let srv = await served(s, host, scope);
        if (!srv) {
          const again = await s.adopt(host, "--scope", other, "--write");
          expect(again.code, again.stderr).toBe(0);
          srv = await served(s, host, other);
        }
        expect(srv, `${host}: an MCP entry serves the block's tools`).toBeDefined();
        for (const b of blocks) check(host, b, srv!, d.shellRoute !== false);
      });
    }
  }

  it(
    "a block hosts with different shapes share (Antigravity single, Codex per-command) names neither shape; each entry serves what it names",
    { timeout: 60_000 },
    async () => {
      const s = scratch({ hcpxOnPath: true });
      const r = await s.adopt("antigravity", "codex", "--write");
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const block = blockOf(s.read("AGENTS.md"))!;
      expect(block).not.toContain("`hcp`");
      expect(block).not.toContain("<pack>__<verb>");
      expect(block).toContain("hcp__read_skill");
      for (const host of ["antigravity", "codex"])
        check(host, block, (await served(s, host, "project"))!, loadDescriptor(host).shellRoute !== false);
    },
  );
});
