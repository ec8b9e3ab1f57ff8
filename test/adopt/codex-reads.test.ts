// What Codex reads of the prompt block adopt writes (hosts/codex.json5; Codex's source,
// codex-rs/core/src/agents_md.rs, and codex 0.171's own `codex debug prompt-input`):
// - in a project folder it reads AGENTS.override.md *instead of* AGENTS.md when that is a
//   file, even an empty one (it then reads nothing there); in ~/.codex an empty override is
//   skipped and AGENTS.md read;
// - at most `project_doc_max_bytes` bytes (default 32 KiB) of project docs, counted from the
//   repository's root (the nearest folder above with .git) down: a block past it is cut.
//   The key is read from the project's .codex/config.toml (trusted projects), else the user's
//   ~/.codex/config.toml ($CODEX_HOME/config.toml when set); a value that is not a whole
//   number ≥ 0 stops Codex;
// - ~/.codex/AGENTS.md (user scope) whole: the limit is for project docs only.
// adopt puts the block where Codex reads it, and --check / doctor say when it would not.
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanPath, envelope, HCPX, noStack, REPO, type RunResult } from "../support/cli";
import { projectConfig, tmp } from "../support/project";
import { scratch as scratchChild, snapshot, userConfigFromProject } from "./helpers";
import { inProcess, runInProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts) */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

const BEGIN = "<!-- hcp:begin -->";
/** ~/.codex/config.toml trusting `root`, with `top` (top-level keys) before the table */
const trusted = (root: string, top = "") => `${top}[projects."${root}"]\ntrust_level = "trusted"\n`;

interface Problem {
  code: string;
  message: string;
  hint?: string;
  file?: string;
  line?: number;
}

/** A `--json` run that failed: exit ≠ 0, one envelope with ok:false, no stack trace. */
function failed(r: RunResult) {
  expect(r.code, r.stdout + r.stderr).not.toBe(0);
  noStack(r);
  const env = envelope<unknown>(r);
  expect(env.ok).toBe(false);
  return env.error as Problem & { details?: { health?: Problem[] } };
}

/** `hcpx doctor --json`'s check of the adopted host. */
async function doctorHost(s: ReturnType<typeof scratch>, host: string, env: NodeJS.ProcessEnv = {}) {
  const d = await s.run(["doctor", "--json"], env);
  const body = JSON.parse(d.stdout) as {
    ok: boolean;
    data?: { checks: unknown[] };
    error?: { details: { checks: unknown[] } };
  };
  expect(body.ok).toBe(d.code === 0);
  const checks = (body.data ?? body.error!.details).checks as { id: string; status: string; message: string }[];
  return checks.find((c) => c.id === `host:${host}`)!;
}

describe("Codex reads AGENTS.override.md instead of AGENTS.md", () => {
  it("an override with the person's text: --write merges the block into it too (AGENTS.md keeps its own), --check is in sync, --remove --write gives both back byte for byte", async () => {
    const s = scratch({ packs: ["ledger"] });
    s.write("AGENTS.override.md", "# Mine\n\nMy local notes for Codex.\n");
    const before = snapshot(s.dir);
    const w = await s.adopt("codex", "--write");
    expect(w.code, w.stderr).toBe(0);
    const over = s.read("AGENTS.override.md");
    expect(over.startsWith("# Mine\n\nMy local notes for Codex.\n")).toBe(true);
    expect(over).toContain(BEGIN);
    expect(s.read("AGENTS.md")).toContain(BEGIN);
    // the same block in both
    const block = (t: string) => t.slice(t.indexOf(BEGIN));
    expect(block(over)).toBe(block(s.read("AGENTS.md")));
    expect((await s.adopt("codex", "--check")).code).toBe(0);
    expect((await s.adopt("codex", "--remove", "--write")).code).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("an override that appears after adopt: --check is not in sync and names it (one envelope, ok:false); --write brings the block into it", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    expect((await s.adopt("codex", "--check")).code).toBe(0);
    s.write("AGENTS.override.md", "Only this, for Codex.\n");
    const c = failed(await s.adopt("codex", "--check", "--json"));
    expect(JSON.stringify(c)).toContain("AGENTS.override.md");
    const text = await s.adopt("codex", "--check");
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/AGENTS\.override\.md/);
    expect(text.stdout).toMatch(/instead of AGENTS\.md/);
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    expect(s.read("AGENTS.override.md")).toContain(BEGIN);
    expect((await s.adopt("codex", "--check")).code).toBe(0);
  });

  it("an empty override hides AGENTS.md from Codex: --write leaves it empty and says so, --check and doctor fail naming it", async () => {
    const s = scratch({ packs: ["ledger"] });
    s.write("AGENTS.override.md", "\n");
    const w = await s.adopt("codex", "--write");
    expect(w.code, w.stderr).toBe(0);
    expect(s.read("AGENTS.override.md")).toBe("\n");
    expect(s.read("AGENTS.md")).toContain(BEGIN);
    expect(w.stdout).toMatch(/AGENTS\.override\.md/);
    const c = failed(await s.adopt("codex", "--check", "--json"));
    const h = c.details!.health!.find((p) => p.file === "AGENTS.override.md")!;
    expect(h).toBeDefined();
    expect(h.message).toMatch(/empty/);
    expect(h.message).toMatch(/instead of AGENTS\.md/);
    expect(h.hint).toMatch(/AGENTS\.override\.md/);
    const d = await doctorHost(s, "codex");
    expect(d.status).toBe("fail");
    expect(d.message).toMatch(/AGENTS\.override\.md/);
    // a folder of that name is not read (Codex takes files only): in sync once it replaces the file
    rmSync(join(s.dir, "AGENTS.override.md"));
    s.write("AGENTS.override.md/keep", "");
    expect((await s.adopt("codex", "--check")).code).toBe(0);
  });

  it("user scope: an empty ~/.codex/AGENTS.override.md is skipped by Codex (in sync, left empty); one with text gets the block", async () => {
    const s = scratch({ packs: ["ledger"] });
    userConfigFromProject(s);
    s.write("~/.codex/AGENTS.override.md", "");
    expect((await s.adopt("codex", "--scope", "user", "--write")).code).toBe(0);
    expect(s.read("~/.codex/AGENTS.override.md")).toBe("");
    const c = await s.adopt("codex", "--scope", "user", "--check");
    expect(c.code, c.stdout).toBe(0);
    s.write("~/.codex/AGENTS.override.md", "personal\n");
    expect((await s.adopt("codex", "--scope", "user", "--check")).code).toBe(1);
    expect((await s.adopt("codex", "--scope", "user", "--write")).code).toBe(0);
    expect(s.read("~/.codex/AGENTS.override.md")).toMatch(new RegExp(`^personal\\n\\n${BEGIN}`));
    expect((await s.adopt("codex", "--scope", "user", "--check")).code).toBe(0);
  });
});

describe("Codex reads at most project_doc_max_bytes of project docs", () => {
  it("a limit in ~/.codex/config.toml below the block's end: --check fails naming the file, the key and its line; doctor fails; --write refuses and writes nothing", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    s.write("~/.codex/config.toml", trusted(s.dir, "# mine\nproject_doc_max_bytes = 64\n\n"));
    const c = failed(await s.adopt("codex", "--check", "--json"));
    expect(c.code).toBe("too_large");
    expect(c.message).toContain("project_doc_max_bytes = 64");
    expect(c.message).toContain("~/.codex/config.toml:2");
    expect(c.file).toBe("AGENTS.md");
    const d = await doctorHost(s, "codex");
    expect(d.status).toBe("fail");
    expect(d.message).toContain("project_doc_max_bytes");

    const fresh = scratch({ packs: ["ledger"] });
    fresh.write("~/.codex/config.toml", trusted(fresh.dir, "project_doc_max_bytes = 64\n"));
    const before = snapshot(fresh.dir);
    const e = failed(await fresh.adopt("codex", "--write", "--json"));
    expect(e.code).toBe("too_large");
    expect(snapshot(fresh.dir)).toEqual(before);
  });

  it("0 means no project docs at all; the project's .codex/config.toml wins over the user's (a trusted project's layer)", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    s.write("~/.codex/config.toml", trusted(s.dir, "project_doc_max_bytes = 0\n"));
    expect(failed(await s.adopt("codex", "--check", "--json")).message).toMatch(
      /Codex reads none of it \(project_doc_max_bytes = 0/,
    );
    // the project's layer raises it again
    s.write(".codex/config.toml", "project_doc_max_bytes = 65536\n\n" + s.read(".codex/config.toml"));
    expect((await s.adopt("codex", "--check")).code).toBe(0);
    // and lowers it
    s.write("~/.codex/config.toml", trusted(s.dir));
    s.write(".codex/config.toml", s.read(".codex/config.toml").replace("65536", "100"));
    const c = failed(await s.adopt("codex", "--check", "--json"));
    expect(c.message).toContain(".codex/config.toml:1");
  });

  it("$CODEX_HOME moves Codex's config: the limit set in $CODEX_HOME/config.toml counts, ~/.codex's does not", async () => {
    const s = scratch({ packs: ["ledger"] });
    const ch = tmp("hcpx-codex-home-");
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    s.write("~/.codex/config.toml", trusted(s.dir, "project_doc_max_bytes = 65536\n"));
    writeFileSync(join(ch, "config.toml"), trusted(s.dir, "project_doc_max_bytes = 64\n"));
    const c = failed(await s.run(["adopt", "codex", "--check", "--json"], { CODEX_HOME: ch }));
    expect(c.message).toContain(`${ch}/config.toml:1`);
    expect((await s.adopt("codex", "--check")).code).toBe(0);
  });

  it("user scope with $CODEX_HOME elsewhere: --check is not in sync (adopt writes where Codex reads: test/adopt/host-homes.test.ts); outside $HOME it is refused; naming ~/.codex itself is fine", async () => {
    const s = scratch({ packs: ["ledger"] });
    userConfigFromProject(s);
    expect((await s.adopt("codex", "--scope", "user", "--write")).code).toBe(0);
    const moved = join(s.home, "codex-elsewhere");
    mkdirSync(moved);
    const c = await s.run(["adopt", "codex", "--scope", "user", "--check", "--json"], { CODEX_HOME: moved });
    expect(c.code, c.stdout).not.toBe(0);
    expect(JSON.parse(c.stdout).ok).toBe(false);
    const outside = failed(
      await s.run(["adopt", "codex", "--scope", "user", "--check", "--json"], { CODEX_HOME: tmp("hcpx-codex-home-") }),
    );
    expect(outside.code).toBe("host_home");
    const same = await s.run(["adopt", "codex", "--scope", "user", "--check"], { CODEX_HOME: join(s.home, ".codex") });
    expect(same.code, same.stdout).toBe(0);
  });

  it("a config Codex cannot read is an error naming the file and line, never the default", async () => {
    const s = scratch({ packs: ["ledger"] });
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    s.write("~/.codex/config.toml", trusted(s.dir, 'project_doc_max_bytes = "big"\n'));
    const c = failed(await s.adopt("codex", "--check", "--json"));
    expect(c).toMatchObject({ file: "~/.codex/config.toml", line: 1 });
    expect(c.message).toMatch(/project_doc_max_bytes/);
    const ch = tmp("hcpx-codex-home-");
    writeFileSync(join(ch, "config.toml"), "project_doc_max_bytes = 100\n[projects\n");
    const b = failed(await s.run(["adopt", "codex", "--check", "--json"], { CODEX_HOME: ch }));
    expect(b).toMatchObject({ code: "bad_toml", line: 2 });
    expect(b.file).toContain(ch);
  });

  it("the docs of the folders above the project, from the repository's root, count first", async () => {
    // a repository whose root AGENTS.md nearly fills Codex's 32 KiB; the hcpx project in app/
    const repo = tmp("hcpx-codex-repo-");
    const home = tmp("hcpx-codex-home-");
    mkdirSync(join(repo, ".git"));
    writeFileSync(join(repo, "AGENTS.md"), "# Repo\n" + "x".repeat(32_500) + "\n");
    const app = join(repo, "app");
    mkdirSync(app);
    cpSync(join(REPO, "packs"), join(app, "packs"), { recursive: true });
    cpSync(join(REPO, "bins"), join(app, "bins"), { recursive: true });
    writeFileSync(join(app, "hcp.config.json5"), JSON.stringify(projectConfig({ packs: ["ledger"] })));
    const env = { HOME: home, PATH: cleanPath() };
    const run = (...a: string[]) => runInProcess(["adopt", "codex", ...a], { cwd: app, env });
    const c = failed(await run("--write", "--json"));
    expect(c.code).toBe("too_large");
    expect(c.message).toContain(`${repo}/AGENTS.md`);
    expect(existsSync(join(app, "AGENTS.md"))).toBe(false);
    // an empty override in the root hides its AGENTS.md: nothing counted
    writeFileSync(join(repo, "AGENTS.override.md"), "");
    expect((await run("--write")).code).toBe(0);
    expect((await run("--check")).code).toBe(0);
  });

  it("user scope: Codex reads ~/.codex/AGENTS.md whole (the limit is for project docs): a long one of the person's still gets the block", async () => {
    const s = scratch({ packs: ["ledger"] });
    userConfigFromProject(s);
    s.write("~/.codex/AGENTS.md", "# Mine\n" + "y".repeat(40_000) + "\n");
    s.write("~/.codex/config.toml", "project_doc_max_bytes = 64\n");
    const w = await s.adopt("codex", "--scope", "user", "--write");
    expect(w.code, w.stderr).toBe(0);
    expect(s.read("~/.codex/AGENTS.md")).toContain(BEGIN);
    expect((await s.adopt("codex", "--scope", "user", "--check")).code).toBe(0);
  });
});
