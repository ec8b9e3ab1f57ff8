// hcpx pack from-mcp and hcpx import against real MCP servers from npm
// (@modelcontextprotocol/server-everything and server-filesystem, pinned in
// devDependencies), in a scratch project: the packs lint, their reads run, a
// destructive tool waits for a confirm, an ungranted tool is refused, Binding
// values are redacted, and `hcpx mcp` serves them as one `hcp` tool — whose
// listing is measured against connecting the servers directly.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { beforeAll, describe, expect, it } from "vitest";
import { HCPX, REPO, baseEnv, tmp } from "../support/hcpx";
import { runHere } from "../support/inproc";
import { connectMcp, type Connected } from "../support/mcp";
import { envelope } from "../cli/helpers";

/** The commands, whose output and files are under test here, as function calls in this process (test/support/inproc.ts), exec included (the runtime's call to the server and the envelope are the subject; exec's process is test/cli's); `hcpx mcp` and the servers stay real processes */
const runHcpx = runHere;

const EVERYTHING = join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

/** Child pids of a process (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    for (const c of readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").split(" "))
      if (Number(c) > 0) out.push(Number(c));
  }
  return out;
}
const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
};

let dir: string;
let root: string;
const exec = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = await runHcpx(
    [
      "exec",
      ...args.slice(0, 2),
      "--json",
      ...(args.includes("--confirm") ? ["--confirm"] : []),
      "--",
      ...args.slice(2).filter((a) => a !== "--confirm"),
    ],
    { cwd: dir, env, timeoutMs: 30_000 },
  );
  return JSON.parse(r.stdout) as { ok: boolean; data?: unknown; error?: { code: string; message: string } };
};

beforeAll(async () => {
  dir = tmp("hcpx-from-mcp-");
  root = join(dir, "files");
  mkdirSync(root);
  writeFileSync(join(root, "a.txt"), "alpha\n");
  expect((await runHcpx(["init", "--yes"], { cwd: dir })).code).toBe(0);
}, 60_000);

describe("hcpx pack from-mcp", () => {
  it("writes a pack per server that lints, with a draft Policy from the annotations", async () => {
    const ev = await runHcpx(
      [
        "pack",
        "from-mcp",
        "--id",
        "everything",
        "--env",
        "EVERYTHING_TOKEN",
        "--json",
        "--",
        "node",
        EVERYTHING,
        "stdio",
      ],
      { cwd: dir, timeoutMs: 60_000 },
    );
    expect(ev.code, ev.stderr).toBe(0);
    const e = envelope<{
      commands: { verb_key: string; tool: string; operation: string; confirm: boolean; inferred: boolean }[];
      lint: { errors: number };
    }>(ev);
    expect(e.data.lint.errors).toBe(0);
    const byVerb = Object.fromEntries(e.data.commands.map((c) => [c.verb_key, c]));
    expect(byVerb.echo).toMatchObject({ tool: "echo", operation: "read", inferred: false });
    expect(byVerb["toggle-simulated-logging"]).toMatchObject({ operation: "write", inferred: true });

    const fs = await runHcpx(["pack", "from-mcp", "--id", "fs", "--json", "--", "node", FILESYSTEM, root], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect(fs.code, fs.stderr).toBe(0);
    const f = envelope<{ commands: { verb_key: string; operation: string; confirm: boolean; inferred: boolean }[] }>(
      fs,
    );
    const fsVerb = Object.fromEntries(f.data.commands.map((c) => [c.verb_key, c]));
    expect(fsVerb.read_text_file).toMatchObject({ operation: "read", confirm: false });
    expect(fsVerb.write_file).toMatchObject({ operation: "write", confirm: true, inferred: false }); // destructiveHint
    expect(fsVerb.create_directory).toMatchObject({ operation: "write", confirm: false, inferred: true });
    const surface = readFileSync(join(dir, "packs/fs/surface.json"), "utf8");
    expect(surface).toContain('"kind": "mcp"');
    expect(surface).toMatch(/"paths": \{\s*"type": "json"/); // read_multiple_files takes an array
    expect(readFileSync(join(dir, "packs/fs/SKILL.md"), "utf8")).toMatch(/\| `write_file` \| .* \| write, confirm \|/);
    // the bare `node` was resolved once and recorded in sandbox.bins
    expect(readFileSync(join(dir, "hcp.config.json5"), "utf8")).toMatch(/bins: \{ node: "\//);

    for (const p of ["packs/everything", "packs/fs"]) {
      const lint = await runHcpx(["lint", p, "--json"], { cwd: dir });
      expect(lint.code, lint.stdout).toBe(0);
      const act = await runHcpx(["activate", p], { cwd: dir });
      expect(act.code, act.stderr).toBe(0);
    }
  }, 120_000);

  it("runs the reads through the runtime; a destructive tool needs a grant and then a confirm; Binding values are redacted", async () => {
    expect(await exec(["everything", "echo", "message=hi there"])).toEqual({
      ok: true,
      data: { text: "Echo: hi there" },
    });
    expect(await exec(["everything", "get-sum", "a=2", "b=3.5"])).toMatchObject({
      ok: true,
      data: { text: expect.stringContaining("5.5") },
    });
    const read = await exec(["fs", "read_text_file", `path=${join(root, "a.txt")}`]);
    expect(read.ok).toBe(true);
    expect(JSON.stringify(read.data)).toContain("alpha");
    const many = await exec(["fs", "read_multiple_files", `paths=${JSON.stringify([join(root, "a.txt")])}`]);
    expect(JSON.stringify(many.data)).toContain("alpha");
    // the server's own refusal is an error envelope
    const outside = await exec(["fs", "read_text_file", "path=/etc/hostname"]);
    expect(outside).toMatchObject({ ok: false, error: { code: "tool_error" } });

    const target = join(root, "b.txt");
    const ungranted = await exec(["fs", "write_file", `path=${target}`, "content=x"]);
    expect(ungranted).toMatchObject({ ok: false, error: { code: "not_granted" } });
    const ungranted2 = await exec(["fs", "move_file", `source=${join(root, "a.txt")}`, `destination=${target}`]);
    expect(ungranted2).toMatchObject({ ok: false, error: { code: "not_granted" } });
    expect((await runHcpx(["grant", "fs.write_file"], { cwd: dir })).code).toBe(0);
    const noConfirm = await exec(["fs", "write_file", `path=${target}`, "content=x"]);
    expect(noConfirm).toMatchObject({ ok: false, error: { code: "confirm_required" } });
    expect(existsSync(target)).toBe(false);
    const written = await exec(["fs", "write_file", "--confirm", `path=${target}`, "content=written by hcpx"]);
    expect(written.ok, JSON.stringify(written)).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("written by hcpx");

    const env = await exec(["everything", "get-env"], { EVERYTHING_TOKEN: "tok-4f1d9c2e" });
    expect(env.ok).toBe(true);
    expect(JSON.stringify(env.data)).not.toContain("tok-4f1d9c2e");
    expect(JSON.stringify(env.data)).toContain("EVERYTHING_TOKEN");
    // the server gets the minimal env: no PATH, nothing else of the caller's
    expect(JSON.stringify(env.data)).not.toContain('"PATH"');
  }, 120_000);

  it("serves both servers behind the one `hcp` tool, and that listing is much smaller than the servers' own", async () => {
    let conn: Connected | undefined;
    const direct: { client: Client; transport: StdioClientTransport }[] = [];
    try {
      conn = await connectMcp([HCPX, "mcp", "--no-watch"], dir, baseEnv() as Record<string, string>);
      const listed = await conn.client.listTools();
      const names = listed.tools.map((t) => t.name).sort();
      expect(names).toContain("hcp");
      const call = await conn.client.callTool({
        name: "hcp",
        arguments: { pack: "fs", verb: "list_directory", args: { path: root } },
      });
      expect(JSON.stringify(call)).toContain("a.txt");
      // `hcpx mcp` keeps the server running between calls: the same filesystem server (a live child of hcpx mcp) answers both
      const live = async () => {
        await new Promise((r) => setTimeout(r, 400));
        return childrenOf(conn!.transport.pid!).filter((pid) => cmdline(pid).includes("server-filesystem"));
      };
      const first = await live();
      expect(first).toHaveLength(1);
      const again = await conn.client.callTool({
        name: "hcp",
        arguments: { pack: "fs", verb: "list_directory", args: { path: root } },
      });
      expect(JSON.stringify(again)).toContain("a.txt");
      expect(await live()).toEqual(first);
      const refused = await conn.client.callTool({
        name: "hcp",
        arguments: {
          pack: "fs",
          verb: "move_file",
          args: { source: join(root, "a.txt"), destination: join(root, "c.txt") },
        },
      });
      // not granted: to the agent, a command the pack does not have (the audit keeps not_granted)
      expect(JSON.stringify(refused)).toContain("pack fs has no command 'move_file'");
      expect(existsSync(join(root, "c.txt"))).toBe(false);

      const viaHcpx = JSON.stringify(listed.tools).length;
      // the two servers directly, side by side (each start is mostly a wait)
      const sizes = await Promise.all(
        [
          [EVERYTHING, "stdio"],
          [FILESYSTEM, root],
        ].map(async (args) => {
          const transport = new StdioClientTransport({ command: process.execPath, args, stderr: "pipe" });
          const client = new Client({ name: "direct", version: "1.0.0" });
          await client.connect(transport);
          direct.push({ client, transport });
          return JSON.stringify((await client.listTools()).tools).length;
        }),
      );
      const directBytes = sizes[0]! + sizes[1]!;
      process.stdout.write(
        `context cost: tools/list via hcpx mcp ${viaHcpx} bytes; the two servers directly ${directBytes} bytes (${(directBytes / viaHcpx).toFixed(1)}x)\n`,
      );
      expect(viaHcpx).toBeLessThan(directBytes / 2);
      // when hcpx mcp goes (the host closes its stdin), the servers it kept go with it
      await conn.client.close();
      conn = undefined;
      // gone within the same 1 s as before, looked at every 50 ms instead of once at the end
      for (let i = 0; i < 20 && cmdline(first[0]!) !== ""; i++) await new Promise((r) => setTimeout(r, 50));
      expect(cmdline(first[0]!)).toBe("");
    } finally {
      await conn?.client.close();
      for (const d of direct) await d.client.close();
    }
  }, 120_000);
});

describe("hcpx import <host>", () => {
  it("lists a host's stdio servers from its config and writes a pack of the one asked for, without copying env values", async () => {
    const proj = tmp("hcpx-import-");
    expect((await runHcpx(["init", "--yes"], { cwd: proj })).code).toBe(0);
    writeFileSync(
      join(proj, ".mcp.json"),
      JSON.stringify(
        {
          mcpServers: {
            hcp: { command: "hcpx", args: ["mcp"] },
            "server-everything": {
              command: "node",
              args: [EVERYTHING, "stdio"],
              env: { EVERYTHING_TOKEN: "tok-never-copied" },
            },
            docs: { type: "http", url: "http://127.0.0.1:9/mcp" },
          },
        },
        null,
        2,
      ),
    );
    const list = await runHcpx(["import", "claude", "--json"], { cwd: proj });
    expect(list.code, list.stderr).toBe(0);
    const l = envelope<{
      servers: { name: string; argv?: string[]; skip?: string; env: string[] }[];
      imported: unknown[];
    }>(list);
    expect(l.data.servers.map((s) => s.name)).toEqual(["server-everything", "docs"]); // hcpx's own entry is not offered
    expect(l.data.servers[1]).toMatchObject({ remote: true, url: "http://127.0.0.1:9/mcp" }); // a remote server is offered too (test/packs/mcp-url.test.ts)
    expect(l.data.imported).toEqual([]);
    const r = await runHcpx(["import", "claude", "--server", "server-everything", "--json"], {
      cwd: proj,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const e = envelope<{ imported: { id: string; dir: string; env: string[] }[] }>(r);
    expect(e.data.imported).toEqual([expect.objectContaining({ id: "everything", env: ["EVERYTHING_TOKEN"] })]);
    const files = ["surface.json", "policy.json", "SKILL.md"]
      .map((f) => readFileSync(join(proj, "packs/everything", f), "utf8"))
      .join("\n");
    expect(files).not.toContain("tok-never-copied");
    expect(files).toContain('"EVERYTHING_TOKEN"');
    // nothing listens there: the import fails, and leaves nothing behind
    const remote = await runHcpx(["import", "claude", "--server", "docs", "--json"], { cwd: proj, timeoutMs: 60_000 });
    expect(remote.code).toBe(1);
    expect(envelope(remote).error.code).toBe("mcp_connect_failed");
    expect(existsSync(join(proj, "packs/docs"))).toBe(false);
    // --all: the failing server's "nothing was written" is its own; the message names what the servers before it wrote
    const all = await runHcpx(["import", "claude", "--all", "--force", "--json"], { cwd: proj, timeoutMs: 60_000 });
    expect(all.code).toBe(1);
    expect(envelope(all).error.message).toMatch(
      /^server 'docs': .*nothing was written \(written before it: packs\/everything\)$/,
    );
  }, 120_000);
});

describe("the exec start path", () => {
  it("keeps the MCP SDK out of dist/commands/exec.cjs: the mcp adapter is its own file, imported only for mcp packs", () => {
    const exec = readFileSync(join(REPO, "dist/commands/exec.cjs"), "utf8");
    const adapter = readFileSync(join(REPO, "dist/lib/mcp-adapter.mjs"), "utf8");
    expect(adapter).toContain("LATEST_PROTOCOL_VERSION");
    expect(exec).not.toContain("LATEST_PROTOCOL_VERSION");
    expect(exec).toContain("../lib/mcp-adapter.mjs");
  });

  it("doctor's and adopt's bundles take the SDK client from that file too, not a copy of their own", () => {
    for (const name of ["doctor", "adopt"]) {
      const bundle = readFileSync(join(REPO, "dist/commands", `${name}.cjs`), "utf8");
      expect(bundle, name).not.toContain("LATEST_PROTOCOL_VERSION");
      expect(bundle, name).toContain("../lib/mcp-adapter.mjs");
    }
  });
});
