// The library adopts and generates in-process, through the same use cases as
// the CLI (src/app/): what adopt() and generate() plan and write is what
// `hcpx adopt --json` and `hcpx generate --json` plan and write for the same
// project, and a wrong request is a ProjectError, never a stack. The CLI's runs are its commander
// program from src in this process too (test/support/inproc.ts: argv, cwd, environment, stdout and
// exit code its own).
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { adopt, generate, ProjectError } from "hcpx";
import { describe, expect, it } from "vitest";
import { envelope } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { probeProject } from "./support";

// this process runs with the file's scratch HOME (test/support/env.ts: no XDG_CONFIG_HOME, no HCP_CONFIG
// either); the CLI runs with the same one (host files at user scope, detection, health)
const cliOpts = (cwd: string) => ({ cwd, env: { HOME: process.env.HOME } });

const tree = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();

describe("adopt() in-process", () => {
  it("plans what `hcpx adopt --json` plans, writes it with write, and is then in sync", async () => {
    const pp = probeProject();
    // one command line for both (an in-process run's argv[1] is dist/hcpx.cjs too, the package's bin)
    const command = "hcpx mcp";
    const cli = envelope<{ changes: { path: string; kind: string }[] }>(
      await runInProcess(["adopt", "claude", "cursor", "--command", command, "--json"], cliOpts(pp.dir)),
    );
    expect(cli.ok).toBe(true);
    const planned = await adopt({ hosts: ["claude", "cursor"], cwd: pp.dir, command });
    expect(planned.wrote).toBe(false);
    expect(planned.changes.map((c) => [c.path, c.kind])).toEqual(
      cli.ok ? cli.data.changes.map((c) => [c.path, c.kind]) : [],
    );
    expect(planned.changes.length).toBeGreaterThan(0);
    expect(existsSync(join(pp.dir, ".mcp.json"))).toBe(false);

    const wrote = await adopt({ hosts: ["claude", "cursor"], cwd: pp.dir, write: true, command });
    expect(wrote.wrote).toBe(true);
    expect(wrote.written.sort()).toEqual(planned.changes.map((c) => c.path).sort());
    expect(JSON.parse(readFileSync(join(pp.dir, ".hcp", "adopted.json"), "utf8")).hosts).toHaveProperty("claude");
    // the same request again: up to date, not a byte written
    const again = await adopt({ hosts: ["claude", "cursor"], cwd: pp.dir, write: true, command });
    expect(again).toMatchObject({ wrote: false, written: [], deleted: [] });

    // the CLI's --check agrees with the library's
    const check = await adopt({ hosts: ["claude", "cursor"], cwd: pp.dir, check: true, command });
    const cliCheck = envelope<{ inSync: boolean }>(
      await runInProcess(["adopt", "claude", "cursor", "--command", command, "--check", "--json"], cliOpts(pp.dir)),
    );
    expect(check.changes).toEqual([]);
    expect(cliCheck.ok && cliCheck.data.inSync).toBe(check.inSync);

    const removed = await adopt({ hosts: ["claude", "cursor"], cwd: pp.dir, remove: true, write: true });
    expect(removed.deleted.length).toBeGreaterThan(0);
    expect(existsSync(join(pp.dir, ".hcp", "adopted.json"))).toBe(false);
  });

  it("without command, an entry runs this package's own bin, never the host app's script", async () => {
    const pp = probeProject();
    const r = await adopt({ hosts: ["claude"], cwd: pp.dir, write: true });
    const entry = JSON.parse(readFileSync(join(pp.dir, ".mcp.json"), "utf8")).mcpServers.hcp as {
      command: string;
      args: string[];
    };
    const argv = [entry.command, ...entry.args];
    expect(
      argv.join(" ") === "hcpx mcp" || argv.some((a) => a.endsWith(join("dist", "hcpx.cjs"))),
      argv.join(" "),
    ).toBe(true);
    expect(argv.join(" ")).not.toMatch(/vitest|node_modules/);
    expect(r.wrote).toBe(true);
  });

  it("--gitignore is planned with the rest: the .gitignore block is one more file of the plan", async () => {
    const pp = probeProject();
    const r = await adopt({ hosts: ["claude"], cwd: pp.dir, gitignore: true });
    expect(r.changes.map((c) => c.path)).toContain(".gitignore");
    await adopt({ hosts: ["claude"], cwd: pp.dir, gitignore: true, write: true });
    expect(readFileSync(join(pp.dir, ".gitignore"), "utf8")).toContain("# hcp:begin");
  });

  it("a wrong request is a ProjectError with the CLI's code, and nothing is written", async () => {
    const pp = probeProject();
    const e1 = await adopt({ hosts: ["claud"], cwd: pp.dir, write: true }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ProjectError);
    expect((e1 as ProjectError).code).toBe("unknown_host");
    expect((e1 as ProjectError).problems[0]!.hint).toMatch(/claude/);
    const e2 = await adopt({ hosts: ["claude"], cwd: pp.dir, write: true, check: true }).catch((e: unknown) => e);
    expect((e2 as ProjectError).code).toBe("bad_args");
    expect(existsSync(join(pp.dir, ".hcp"))).toBe(false);
  });
});

describe("generate() in-process", () => {
  it("writes what `hcpx generate` writes, byte for byte, and check then says current", async () => {
    const a = probeProject({ examples: ["ledger"] });
    const cli = await runInProcess(["generate", "--json"], cliOpts(a.dir));
    expect(cli.code, cli.stderr).toBe(0);
    const b = probeProject({ examples: ["ledger"] });
    const r = await generate({ cwd: b.dir });
    const out = (d: string) => join(d, ".hcp", "generated");
    expect(tree(out(b.dir))).toEqual(tree(out(a.dir)));
    for (const f of tree(out(a.dir)))
      if (f !== ".manifest.json")
        expect(readFileSync(join(out(b.dir), f), "utf8"), f).toBe(readFileSync(join(out(a.dir), f), "utf8"));
    expect(r.written.length).toBe(r.files.length);
    expect(r.files).toContain("system-prompt.md");

    const again = await generate({ cwd: b.dir, check: true });
    expect(again.current).toBe(true);
    expect(again.written).toEqual([]);
  });

  it("check names a file changed by hand as the CLI's --check does, and writes nothing", async () => {
    const pp = probeProject();
    await generate({ cwd: pp.dir, hosts: ["none"] });
    const f = join(pp.dir, ".hcp", "generated", "system-prompt.md");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(f, "edited\n");
    const r = await generate({ cwd: pp.dir, hosts: ["none"], check: true });
    expect(r.current).toBe(false);
    expect(r.drift).toEqual([{ path: "system-prompt.md", state: "differs" }]);
    expect(readFileSync(f, "utf8")).toBe("edited\n");
    const cli = envelope(await runInProcess(["generate", "--host", "none", "--check", "--json"], cliOpts(pp.dir)));
    expect(cli.ok).toBe(false);
    expect(!cli.ok && (cli.error as { files?: unknown }).files).toEqual(r.drift);
  });
});
