// hcpx init and hcpx pack new: what they write, and what they refuse.
import { describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import JSON5 from "json5";
import { spawnSync } from "node:child_process";
import { REPO, run } from "../support/hcpx";
import { HAND, envelope, hcpx as hcpxChild, hcpxBin, noStack, project, tmp } from "./helpers";
import { execInProcess, needsProcess, runInProcessChecked } from "../support/inproc";

/**
 * A bare init (it asks on stdin) as a process; init --yes, pack new, activate, lint, status (what they write
 * and refuse) as function calls in this process (test/support/inproc.ts), and exec of a wrap pack (what the
 * scaffolded pack answers) through execInProcess, with a run's checks (no stack trace, no internal error)
 */
const hcpx = async (args: string[], cwd: string, env?: NodeJS.ProcessEnv) => {
  if (args[0] === "exec") {
    const r = await execInProcess(args, { cwd, env });
    noStack(r);
    return r;
  }
  return needsProcess(args) ? hcpxChild(args, cwd, env) : runInProcessChecked(args, { cwd, env });
};

describe("hcpx init", () => {
  it("writes a commented, valid config without asking (no TTY, stdin closed)", async () => {
    const dir = tmp("hcpx-init-");
    const r = await hcpx(["init"], dir);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(dir, "hcp.config.json5"), "utf8");
    expect(text.match(/^\s*\/\/ /gm)!.length).toBeGreaterThan(8);
    const v = JSON5.parse(text);
    expect(v).toEqual({
      packs: [],
      principal: { id: "dev", kind: "agent" },
      grants: { allow: [], deny: [] },
      sandbox: { bins: {}, roots: ["."], cwd: "." },
    });
    const s = envelope<{ packs: unknown[] }>(await hcpx(["status", "--json"], dir));
    expect(s.ok).toBe(true);
    expect(s.data.packs).toEqual([]);
  });

  it("--force waits for the config's edit lock: while another command holds it, nothing is written (locked)", async () => {
    const p = project();
    // a live holder (this test's parent; not the process the run is in, whose own pid in a lock is one it
    // left, src/util/fsio.ts): what a grant or activate running now leaves in place
    const lock = join(p.dir, ".hcp.config.json5.lock");
    writeFileSync(lock, `${process.ppid}\nheld-by-the-test\n`);
    const env = { HCPX_LOCK_WAIT_MS: "300" };
    const r = await hcpx(["init", "--yes", "--force", "--principal", "ci-bot", "--json"], p.dir, env);
    expect(r.code, r.stdout).toBe(1);
    expect(envelope(r).error.code).toBe("locked");
    expect(p.read()).toBe(HAND);
    rmSync(lock);
    expect((await hcpx(["init", "--yes", "--force", "--json"], p.dir, env)).code).toBe(0);
  });

  it("refuses to overwrite a hand-edited config (byte for byte unchanged); --force overwrites", async () => {
    const p = project();
    const r = await hcpx(["init", "--yes", "--json"], p.dir);
    expect(r.code).toBe(1);
    const e = envelope(r).error;
    expect(e.code).toBe("config_exists");
    expect(e.hint).toContain("--force");
    expect(p.read()).toBe(HAND);
    const f = await hcpx(["init", "--yes", "--force", "--principal", "ci-bot", "--json"], p.dir);
    expect(f.code, f.stderr).toBe(0);
    expect(envelope<{ created: boolean }>(f).data.created).toBe(false);
    expect(JSON5.parse(p.read()).principal).toEqual({ id: "ci-bot", kind: "agent" });
  });
});

describe("hcpx init --config", () => {
  it("the next steps name the config again, and the user config is adopted at user scope: the printed steps run", async () => {
    const home = tmp("hcpx-init-home-");
    const dir = tmp("hcpx-init-elsewhere-"); // no project config here or above
    const file = join(home, ".config", "hcp", "config.json5");
    const env = { HOME: home, XDG_CONFIG_HOME: undefined };
    const r = await hcpx(["init", "--yes", "--config", file], dir, env);
    expect(r.code, r.stderr).toBe(0);
    const steps = r.stdout.split("\n").map((l) => l.trim().split(/\s{2,}/)[0]!);
    expect(steps).toContain(`hcpx status --config ${file}`);
    expect(steps).toContain(`hcpx activate <pack-dir> --config ${file}`);
    expect(steps).toContain("hcpx adopt <host> --scope user --write");
    // the activate step, as printed, works from here; without --config there is no config to edit here
    cpSync(join(REPO, "packs", "ledger"), join(dir, "ledger"), { recursive: true });
    const bare = await hcpx(["activate", "./ledger", "--json"], dir, env);
    expect(envelope(bare).error.message).toMatch(/no hcp\.config\.json5/);
    const a = await hcpx(["activate", "./ledger", "--config", file, "--json"], dir, env);
    expect(a.code, a.stderr).toBe(0);
    expect(JSON5.parse(readFileSync(file, "utf8")).packs).toHaveLength(1);
  });
});

describe("hcpx init on a terminal", () => {
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.runIf(hasScript)(
    "asks for the principal on a TTY (a pty from script(1)); --yes on the same TTY does not ask",
    async () => {
      const dir = tmp("hcpx-tty-");
      const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(hcpxBin())} init`;
      const r = await run("script", ["-qec", cmd, "/dev/null"], {
        cwd: dir,
        input: "alice\nperson\n",
        env: { CI: "" },
        timeoutMs: 20_000,
      });
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout).toContain("Principal id (who acts here) [dev]:");
      expect(JSON5.parse(readFileSync(join(dir, "hcp.config.json5"), "utf8")).principal).toEqual({
        id: "alice",
        kind: "person",
      });
      const dir2 = tmp("hcpx-tty-");
      const y = await run("script", ["-qec", `${cmd} --yes`, "/dev/null"], {
        cwd: dir2,
        env: { CI: "" },
        timeoutMs: 20_000,
      });
      expect(y.code, y.stdout).toBe(0);
      expect(y.stdout).not.toContain("Principal id");
      expect(JSON5.parse(readFileSync(join(dir2, "hcp.config.json5"), "utf8")).principal).toEqual({
        id: "dev",
        kind: "agent",
      });
    },
  );
});

describe("hcpx pack new", () => {
  async function lintClean(dir: string, packDir: string) {
    const l = await hcpx(["lint", packDir, "--json"], dir);
    expect(l.code, l.stdout + l.stderr).toBe(0);
    const env = envelope<{ errors: number; warnings: number }>(l);
    expect(env.data.errors).toBe(0);
    expect(env.data.warnings).toBe(0);
  }

  it("--wrap git: lints with zero warnings, records sandbox.bins.git in the config (one member added), and runs", async () => {
    const dir = tmp("hcpx-new-");
    await hcpx(["init", "--yes"], dir);
    const before = readFileSync(join(dir, "hcp.config.json5"), "utf8");
    const r = await hcpx(["pack", "new", "gitx", "--wrap", "git", "--json"], dir);
    expect(r.code, r.stderr).toBe(0);
    const env = envelope<{
      dir: string;
      files: string[];
      sandboxBin: { name: string; path: string; recorded: string };
    }>(r);
    expect(env.data.files).toEqual(["surface.json", "policy.json", "SKILL.md"]);
    expect(env.data.sandboxBin).toMatchObject({ name: "git", recorded: "added" });
    const gitPath = env.data.sandboxBin.path;
    expect(readFileSync(join(dir, "hcp.config.json5"), "utf8")).toBe(
      before.replace("bins: {},", `bins: { git: ${JSON.stringify(gitPath)} },`),
    );
    await lintClean(dir, "packs/gitx");
    const skill = readFileSync(join(dir, "packs/gitx/SKILL.md"), "utf8");
    expect(skill).toMatch(/^---\nname: gitx\ndescription: .+\nleads:\n {2}- .+\n---\n/);
    expect(skill).toContain(
      "| verb | what it does | read/write |\n|---|---|---|\n| `version` | Version of git | read |\n| `help` | Usage summary of git | read |",
    );
    await hcpx(["activate", "packs/gitx"], dir);
    const x = await hcpx(["exec", "gitx", "version", "--json"], dir);
    expect(x.code, x.stdout + x.stderr).toBe(0);
    expect(JSON.parse(x.stdout).data.text).toMatch(/^git version /);
  });

  it("--composite and --sense lint clean; the composite runs in-process", async () => {
    const dir = tmp("hcpx-new-");
    await hcpx(["init", "--yes"], dir);
    expect((await hcpx(["pack", "new", "tools", "--composite"], dir)).code).toBe(0);
    expect(existsSync(join(dir, "packs/tools/index.mjs"))).toBe(true);
    expect((await hcpx(["pack", "new", "hooks", "--sense", "--dir", "sense/hooks"], dir)).code).toBe(0);
    await lintClean(dir, "packs/tools");
    await lintClean(dir, "sense/hooks");
    await hcpx(["activate", "packs/tools"], dir);
    const a = await hcpx(["activate", "sense/hooks"], dir);
    expect(a.code, a.stderr).toBe(0);
    // a process: a composite's module loaded in this (shared) worker would stay in it (test/support/shared-composites.ts)
    const x = await hcpxChild(["exec", "tools", "echo", "--json", "--", "message=hi"], dir);
    expect(JSON.parse(x.stdout)).toEqual({ ok: true, data: { message: "hi" } });
  });

  it("--wrap of a script inside the project uses a relative wrap.bin", async () => {
    const dir = tmp("hcpx-new-");
    await hcpx(["init", "--yes"], dir);
    mkdirSync(join(dir, "tools"));
    writeFileSync(
      join(dir, "tools/hello.mjs"),
      "console.log(process.argv.slice(2).join(' ') === '--version' ? 'hello 1.0' : 'usage: hello');\n",
    );
    chmodSync(join(dir, "tools/hello.mjs"), 0o755);
    const r = await hcpx(["pack", "new", "hello", "--wrap", "./tools/hello.mjs"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON5.parse(readFileSync(join(dir, "packs/hello/surface.json"), "utf8")).wrap.bin).toBe(
      "../../tools/hello.mjs",
    );
    await lintClean(dir, "packs/hello");
    await hcpx(["activate", "packs/hello"], dir);
    const x = await hcpx(["exec", "hello", "version", "--json"], dir);
    expect(JSON.parse(x.stdout)).toEqual({ ok: true, data: { text: "hello 1.0\n" } });
  });

  it("refuses an invalid id (with the id rule), a missing kind, two kinds, and a non-empty directory", async () => {
    const dir = tmp("hcpx-new-");
    for (const bad of ["Git", "9lives", "a__b", "../x", "a".repeat(33)]) {
      const r = await hcpx(["pack", "new", bad, "--wrap", "git", "--json"], dir);
      expect(r.code, bad).toBe(64);
      expect(envelope(r).error).toMatchObject({ code: "bad_id" });
      expect(envelope(r).error.hint).toContain("^[a-z][a-z0-9-]{0,31}$");
    }
    expect((await hcpx(["pack", "new", "x"], dir)).code).toBe(64);
    expect((await hcpx(["pack", "new", "x", "--composite", "--sense"], dir)).code).toBe(64);
    mkdirSync(join(dir, "packs/taken"), { recursive: true });
    writeFileSync(join(dir, "packs/taken/keep.txt"), "mine");
    const t = await hcpx(["pack", "new", "taken", "--composite", "--json"], dir);
    expect(t.code).toBe(1);
    expect(envelope(t).error).toMatchObject({ code: "dir_exists", file: "packs/taken" });
    expect(readFileSync(join(dir, "packs/taken/keep.txt"), "utf8")).toBe("mine");
  });

  it("--verb declares named read commands; {{name}} becomes a required arg passed as one argv element; misuse is refused", async () => {
    const dir = tmp("hcpx-new-");
    await hcpx(["init", "--yes"], dir);
    const r = await hcpx(
      [
        "pack",
        "new",
        "echoer",
        "--wrap",
        process.execPath,
        "--verb",
        "say=-e process.stdout.write(process.argv[1]) {{what}}",
        "--verb",
        "ver=--version",
        "--verb",
        "as=-e process.stdout.write(process.argv[1]) {{my-text}}",
        "--json",
      ],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const surface = JSON5.parse(readFileSync(join(dir, "packs/echoer/surface.json"), "utf8"));
    expect(surface.commands.map((c: { verb_key: string }) => c.verb_key)).toEqual(["say", "ver", "as"]);
    // a placeholder name that is not an identifier is a quoted key, so the pack parses and lints clean
    expect(surface.commands[2].args).toEqual({ "my-text": { type: "string", required: true } });
    expect(surface.commands[0].cli).toEqual(["echoer", "-e", "process.stdout.write(process.argv[1])", "{{what}}"]);
    expect(surface.commands[0].args).toEqual({ what: { type: "string", required: true } });
    await lintClean(dir, "packs/echoer");
    await hcpx(["activate", "packs/echoer"], dir);
    const x = await hcpx(["exec", "echoer", "say", "--json", "--", "what=a b; $(id)"], dir);
    expect(JSON.parse(x.stdout), x.stderr).toEqual({ ok: true, data: { text: "a b; $(id)" } });
    for (const bad of [
      ["--verb", "Bad=x"],
      ["--verb", "x=a{{b}}"],
      ["--verb", "x=1", "--verb", "x=2"],
      ["--verb", "x=show {{constructor}}"],
    ]) {
      const b = await hcpx(["pack", "new", "other", "--wrap", "git", ...bad, "--json"], dir);
      expect(b.code, bad.join(" ")).toBe(64);
      expect(envelope(b).error.hint).toBeTruthy();
    }
    const c = await hcpx(["pack", "new", "other", "--composite", "--verb", "x=y", "--json"], dir);
    expect(c.code).toBe(64);
    expect(existsSync(join(dir, "packs/other"))).toBe(false);
  });

  it("without a config, a bare bin is not recorded and the output says how", async () => {
    const dir = tmp("hcpx-new-");
    const r = await hcpx(["pack", "new", "gitx", "--wrap", "git", "--json"], dir);
    expect(r.code).toBe(0);
    const { data } = envelope<{
      sandboxBin: { name: string; recorded: string };
      warnings: { code: string; message: string; hint: string }[];
    }>(r);
    expect(data.sandboxBin).toMatchObject({ name: "git", recorded: "no_config" });
    expect(data.warnings).toEqual([expect.objectContaining({ code: "no_config", severity: "warning" })]);
    expect(data.warnings[0]!.hint).toContain("hcpx init");
  });
});
