// adopt's safety: plan first (a file that does not parse stops everything),
// --check catches every drift, idempotence, the ledger, symlinks, the lock,
// user scope under $HOME, and the MCP command it writes.
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { envelope, HCPX, noStack, REPO, type RunResult } from "../support/cli";
import { tmp } from "../support/project";
import { scratch as scratchChild, snapshot, userConfigFromProject } from "./helpers";
import { inProcess, runInProcess } from "../support/inproc";
import { rawMcp } from "../support/raw-mcp";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here; the real processes stay where the process is the subject */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

/** A `--json` run that failed with `exit` (no stack trace anywhere): its envelope's error (the code says which error, file/line where). */
function failed(r: RunResult, exit = 1) {
  expect(r.code).toBe(exit);
  noStack(r);
  const env = envelope(r);
  expect(env.ok).toBe(false);
  return env.error;
}

/** A `--json` run that succeeded: its envelope's data. */
function succeeded<T = Record<string, unknown>>(r: RunResult): T {
  expect(r.code, r.stderr).toBe(0);
  const env = envelope<T>(r);
  expect(env.ok).toBe(true);
  return env.data;
}

/** The drift a failed `adopt --check --json` reports (exit 1, code drift). */
function drift(r: RunResult) {
  const e = failed(r);
  expect(e.code).toBe("drift");
  return e.details as {
    drift: { kind: string; path: string; message?: string; at?: string }[];
    changes: { path: string; kind: string }[];
    conflicts: { code: string; file: string; message: string }[];
  };
}

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

describe("a file that does not parse: clear error, non-zero exit, nothing written anywhere", () => {
  // [name, file, its text, the error: code, line (undefined: any), column (undefined: any), what its message starts with (several errors share a code)]
  const bad: [string, string, string, { code: string; line?: number; column?: number; says: RegExp }][] = [
    [
      "bad JSON",
      ".mcp.json",
      '{\n  "mcpServers": {\n    "other": { "command": "x" \n  }\n',
      { code: "bad_json", says: /^cannot parse JSON/ },
    ],
    [
      "trailing comma in strict JSON (Claude)",
      ".mcp.json",
      '{\n  "mcpServers": {\n    "other": { "command": "x" },\n  }\n}\n',
      { code: "bad_json", line: 4, says: /^trailing comma/ },
    ],
    [
      "a comment in strict JSON (Claude)",
      ".mcp.json",
      '{\n  // mine\n  "mcpServers": {}\n}\n',
      { code: "bad_json", line: 2, says: /^comments are not allowed/ },
    ],
    [
      "trailing comma in Gemini settings (fatal there)",
      ".gemini/settings.json",
      '{\n  "theme": "x",\n}\n',
      { code: "bad_json", line: 3, says: /^trailing comma/ },
    ],
    [
      "bad TOML",
      ".codex/config.toml",
      'model = "o3"\n[mcp_servers.other\ncommand = "x"\n',
      { code: "bad_toml", line: 2, says: /^cannot parse TOML/ },
    ],
    [
      "mcpServers is not an object",
      ".cursor/mcp.json",
      '{ "mcpServers": [] }\n',
      { code: "bad_json_shape", line: 1, says: /^`mcpServers` is an array/ },
    ],
    [
      "unbalanced markers",
      "AGENTS.md",
      "# A\n<!-- hcp:begin -->\nhalf\n",
      { code: "bad_markers", line: 2, column: 1, says: /^unbalanced hcp markers/ },
    ],
  ];
  for (const [name, path, text, want] of bad) {
    it(name, async () => {
      const s = scratch();
      s.write(path, text);
      const before = { p: snapshot(s.dir), h: snapshot(s.home) };
      const r = await s.adopt("all", "--write", "--json");
      const e = failed(r);
      const where = {
        code: want.code,
        file: path,
        line: want.line ?? expect.any(Number),
        column: want.column ?? expect.any(Number),
      };
      expect(e).toMatchObject(where);
      expect(e.problems?.[0]).toMatchObject({ ...where, message: expect.stringMatching(want.says) });
      expect(e.hint).toEqual(expect.any(String));
      expect(snapshot(s.dir)).toEqual(before.p);
      expect(snapshot(s.home)).toEqual(before.h);
    });
  }

  it("a directory where a file should be, and a file where the skills directory should be", async () => {
    const s = scratch();
    mkdirSync(join(s.dir, "CLAUDE.md"));
    s.write(".cursor/skills", "not a dir\n");
    const before = snapshot(s.dir);
    const e = failed(await s.adopt("claude", "cursor", "--write", "--json"));
    expect(
      (e.problems as { code: string; file?: string }[] | undefined)?.map(({ code, file }) => ({ code, file })),
    ).toEqual([
      { code: "not_a_file", file: "CLAUDE.md" },
      { code: "not_a_directory", file: ".cursor/skills" },
    ]);
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("an `hcp` server hcpx did not write is not replaced without --force", async () => {
    const s = scratch();
    s.write(".mcp.json", '{ "mcpServers": { "hcp": { "command": "mine" } } }\n');
    const before = snapshot(s.dir);
    const e = failed(await s.adopt("claude", "--write", "--json"));
    expect(e).toMatchObject({
      code: "not_ours",
      file: ".mcp.json",
      line: 1,
      column: expect.any(Number),
      message: expect.stringContaining("`mcpServers.hcp`"),
    });
    expect(snapshot(s.dir)).toEqual(before);
    const f = await s.adopt("claude", "--write", "--force");
    expect(f.code).toBe(0);
    expect(JSON.parse(s.read(".mcp.json")).mcpServers.hcp.type).toBe("stdio");
  });
});

describe("review first", () => {
  it("the default prints a unified diff and writes nothing; no colour with NO_COLOR, colour with FORCE_COLOR", async () => {
    const s = scratch();
    s.write("CLAUDE.md", "# Mine\n");
    const before = snapshot(s.dir);
    const r = await s.adopt("claude");
    expect(r.code).toBe(0);
    // prose on purpose: the unified diff a person reviews is what this default prints (the plan as data: the --json test below)
    expect(r.stdout).toContain("--- a/CLAUDE.md\n+++ b/CLAUDE.md\n@@ -1,1 +1,");
    expect(r.stdout).toContain("--- /dev/null\n+++ b/.mcp.json\n");
    expect(r.stdout).toContain("+<!-- hcp:begin -->");
    expect(r.stdout).toMatch(/nothing written/);
    expect(r.stdout).not.toContain("\u001b[");
    expect(snapshot(s.dir)).toEqual(before);
    const env = { ...s.env, FORCE_COLOR: "1" } as NodeJS.ProcessEnv;
    delete env.NO_COLOR;
    // colour is read from the environment at each call (src/cli/output.ts), stdout never a terminal here either
    const colored = await runInProcess(["adopt", "claude"], {
      cwd: s.dir,
      pureEnv: true,
      env: { ...process.env, ...env, NO_COLOR: undefined },
    });
    expect(colored.stdout).toContain("\u001b[32m+<!-- hcp:begin -->");
  });

  it("--json: the plan as an envelope", async () => {
    const s = scratch();
    const r = await s.adopt("codex", "--json");
    const env = JSON.parse(r.stdout);
    expect(env.ok).toBe(true);
    expect(env.data.wrote).toBe(false);
    expect(env.data.changes.map((c: { path: string }) => c.path)).toContain(".codex/config.toml");
  });

  it("unknown host: a usage error naming the known ones", async () => {
    const s = scratch();
    const e = failed(await s.adopt("emacs", "--json"), 64);
    expect(e).toMatchObject({ code: "unknown_host", message: "unknown host 'emacs'" });
    // the known hosts are in the hint a person reads
    const known =
      /known hosts: ([a-z, -]+)/
        .exec(e.hint ?? "")?.[1]
        ?.trim()
        .split(", ") ?? [];
    for (const h of [
      "claude",
      "codex",
      "cursor",
      "copilot",
      "qwen",
      "droid",
      "qoder",
      "kilo",
      "auggie",
      "amp",
      "cline",
      "continue",
      "goose",
      "devin",
      "kiro",
      "zed",
      "antigravity",
      "junie",
    ])
      expect(known, e.hint).toContain(h);
    expect(known).toEqual([...known].sort());
  });
});

describe("--check catches drift", () => {
  it("an edited entry, an edited Skill copy, a missing file; --write repairs them (the hand-edited copy with --force)", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "codex", "--write")).code).toBe(0);
    expect((await s.adopt("claude", "codex", "--check")).code).toBe(0);

    const mcp = JSON.parse(s.read(".mcp.json"));
    mcp.mcpServers.hcp.args = ["--edited"];
    s.write(".mcp.json", JSON.stringify(mcp, null, 2) + "\n");
    let d = drift(await s.adopt("claude", "--check", "--json"));
    expect(d.drift).toEqual([{ kind: "changed", path: ".mcp.json" }]);
    expect(d.changes.map((x) => [x.path, x.kind])).toEqual([[".mcp.json", "update"]]);
    expect((await s.adopt("claude", "--write")).code).toBe(0);

    s.write(".claude/skills/ledger/SKILL.md", s.read(".claude/skills/ledger/SKILL.md") + "\nmy note\n");
    const handOnly = await s.adopt("claude", "--check", "--json");
    // --write keeps the edit, so the hint does not send there alone: it says what does
    expect(failed(handOnly).hint).toBe(
      "`hcpx adopt claude --write` keeps what was changed by hand: rerun with --force to replace it (your edit is lost), or undo the edit",
    );
    d = drift(handOnly);
    // a hand edit in hcpx's own file is kept by --write until --force (issue 26): --check names it
    expect(d.drift).toContainEqual({
      kind: "foreign",
      path: ".claude/skills/ledger/SKILL.md",
      message: expect.stringMatching(/^this file was edited since hcpx wrote it: kept/),
    });
    expect(d.conflicts).toContainEqual(
      expect.objectContaining({ code: "changed_since_adopt", file: ".claude/skills/ledger/SKILL.md" }),
    );

    unlinkSync(join(s.dir, ".claude/skills/transit/SKILL.md"));
    const both = await s.adopt("claude", "--check", "--json");
    expect(failed(both).hint).toMatch(
      /^run `hcpx adopt claude --write`; `hcpx adopt claude --write` keeps what was changed by hand: /,
    );
    const text = await s.adopt("claude", "--check");
    expect(text.stdout + text.stderr).toContain(
      "; run `hcpx adopt claude --write`; `hcpx adopt claude --write` keeps what",
    );
    d = drift(both);
    expect(d.changes).toContainEqual(
      expect.objectContaining({ path: ".claude/skills/transit/SKILL.md", kind: "create" }),
    );

    const toml = s.read(".codex/config.toml").replace('"mcp"', '"mcp", "--x"');
    s.write(".codex/config.toml", toml);
    d = drift(await s.adopt("codex", "--check", "--json"));
    expect(d.drift).toContainEqual({ kind: "changed", path: ".codex/config.toml" });

    expect((await s.adopt("claude", "codex", "--write")).code).toBe(0);
    expect(s.read(".claude/skills/ledger/SKILL.md")).toContain("my note");
    expect((await s.adopt("claude", "codex", "--write", "--force")).code).toBe(0);
    expect(s.read(".claude/skills/ledger/SKILL.md")).not.toContain("my note");
    expect((await s.adopt("claude", "codex", "--check")).code).toBe(0);
  });

  it("a stale Skill of a deactivated pack: --check exits 1, --write deletes it when unchanged, keeps it when edited (until --force)", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "cursor", "--write")).code).toBe(0);
    const cfg = join(s.dir, "hcp.config.json5");
    writeFileSync(
      cfg,
      readFileSync(cfg, "utf8")
        .replace('"./packs/transit"', "")
        .replace(/,\s*\]/, "]"),
    );
    s.write(".cursor/skills/transit/SKILL.md", s.read(".cursor/skills/transit/SKILL.md") + "\nI changed this.\n");

    const d = drift(await s.adopt("claude", "cursor", "--check", "--json"));
    expect(d.drift).toContainEqual({ kind: "stale", path: ".claude/skills/transit/SKILL.md" });
    expect(d.changes).toContainEqual(
      expect.objectContaining({ path: ".claude/skills/transit/SKILL.md", kind: "delete" }),
    ); // the Claude copy would be deleted
    expect(d.drift).toContainEqual({
      kind: "foreign",
      path: ".cursor/skills/transit/SKILL.md",
      message: expect.stringMatching(/^this file was changed since hcpx wrote it/),
    });

    const w = succeeded<{
      deleted: string[];
      conflicts: { code: string; file: string; message: string; severity: string }[];
    }>(await s.adopt("claude", "cursor", "--write", "--json"));
    expect(w.deleted).toEqual([".claude/skills/transit/SKILL.md"]);
    expect(w.conflicts).toEqual([
      expect.objectContaining({
        code: "changed_since_adopt",
        file: ".cursor/skills/transit/SKILL.md",
        severity: "warning",
        message: expect.stringMatching(/: left in place$/),
      }),
    ]);
    expect(existsSync(join(s.dir, ".claude/skills/transit"))).toBe(false); // its empty directory too
    expect(s.read(".cursor/skills/transit/SKILL.md")).toContain("I changed this.");
    expect(s.read("CLAUDE.md")).not.toContain("### transit");
    expect((await s.adopt("claude", "cursor", "--check")).code).toBe(1); // still drift: the edited stale copy

    const f = await s.adopt("claude", "cursor", "--write", "--force");
    expect(f.code).toBe(0);
    expect(existsSync(join(s.dir, ".cursor/skills/transit"))).toBe(false);
    expect((await s.adopt("claude", "cursor", "--check")).code).toBe(0);
  });
});

describe("idempotence and the ledger", () => {
  it("a second --write changes no byte and no mtime", async () => {
    const s = scratch();
    s.write("AGENTS.md", "# Mine\n");
    expect((await s.adopt("all", "--write")).code).toBe(0);
    const a = snapshot(s.dir, { mtimes: true });
    await new Promise((r) => setTimeout(r, 20));
    const r = succeeded<{ written: string[]; deleted: string[] }>(await s.adopt("all", "--write", "--json"));
    expect(r).toMatchObject({ written: [], deleted: [] }); // up to date, nothing written
    expect(snapshot(s.dir, { mtimes: true })).toEqual(a);
  });

  it("--write --json: `wrote` is true exactly when a byte was written (a second identical run, a --remove of nothing: false)", async () => {
    const s = scratch();
    const first = succeeded<{ wrote: boolean; written: string[] }>(await s.adopt("claude", "--write", "--json"));
    expect(first.wrote).toBe(true);
    expect(first.written.length).toBeGreaterThan(0);
    const a = snapshot(s.dir, { mtimes: true });
    const again = succeeded<{ wrote: boolean; written: string[] }>(await s.adopt("claude", "--write", "--json"));
    expect(again).toMatchObject({ wrote: false, written: [] });
    expect(snapshot(s.dir, { mtimes: true })).toEqual(a);
    // a host that was never adopted here: nothing to remove, nothing written
    const none = succeeded<{ wrote: boolean; deleted: string[] }>(
      await s.adopt("codex", "--remove", "--write", "--json"),
    );
    expect(none).toMatchObject({ wrote: false, deleted: [] });
    expect(snapshot(s.dir, { mtimes: true })).toEqual(a);
    const gone = succeeded<{ wrote: boolean; deleted: string[] }>(
      await s.adopt("claude", "--remove", "--write", "--json"),
    );
    expect(gone.wrote).toBe(true);
    expect(gone.deleted.length).toBeGreaterThan(0);
  });

  it("the ledger records each entry with its hash; file modes are kept", async () => {
    const s = scratch();
    s.write(".mcp.json", "{}\n");
    chmodSync(join(s.dir, ".mcp.json"), 0o600);
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    expect(statSync(join(s.dir, ".mcp.json")).mode & 0o777).toBe(0o600);
    const l = JSON.parse(s.read(".hcp/adopted.json"));
    const e = l.hosts.claude.entries.find((x: { path: string }) => x.path === ".mcp.json");
    expect(e).toMatchObject({ kind: "json", key: ["mcpServers", "hcp"], created: false });
    expect(e.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(existsSync(join(s.dir, ".hcp/adopt.lock"))).toBe(false);
  });

  it("--remove of a fresh project leaves it byte-identical (created files and dirs, .hcp included)", async () => {
    const s = scratch();
    const before = snapshot(s.dir);
    expect((await s.adopt("all", "--write")).code).toBe(0);
    expect(existsSync(join(s.dir, ".hcp/adopted.json"))).toBe(true);
    const r = await s.adopt("all", "--remove", "--write");
    expect(r.code).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("--remove keeps an entry changed by hand (reported), --force removes it; removing one host keeps a file another still uses", async () => {
    const s = scratch();
    expect((await s.adopt("codex", "opencode", "--write")).code).toBe(0);
    const r1 = await s.adopt("codex", "--remove", "--write");
    expect(r1.code).toBe(0);
    expect(s.read("AGENTS.md")).toContain("<!-- hcp:begin -->"); // opencode still reads it
    expect(existsSync(join(s.dir, ".agents/skills/ledger/SKILL.md"))).toBe(true);
    s.write("opencode.json", s.read("opencode.json").replace('"enabled": true', '"enabled": false'));
    const r2 = succeeded<{ conflicts: unknown[] }>(await s.adopt("opencode", "--remove", "--write", "--json"));
    expect(r2.conflicts).toEqual([
      expect.objectContaining({
        code: "changed_since_adopt",
        file: "opencode.json",
        severity: "warning",
        message: "the entry `mcp.hcp` was changed since hcpx wrote it: left in place",
      }),
    ]);
    expect(existsSync(join(s.dir, "opencode.json"))).toBe(true);
    expect(existsSync(join(s.dir, "AGENTS.md"))).toBe(false);
    const r3 = await s.adopt("opencode", "--remove", "--write", "--force");
    expect(r3.code).toBe(0);
    expect(existsSync(join(s.dir, "opencode.json"))).toBe(false);
    expect(existsSync(join(s.dir, ".hcp"))).toBe(false);
  });

  it("a lock held by a live process stops adopt; a stale one (dead pid) is taken over", async () => {
    // the lock's holder (this process) and adopt are two processes: a lock naming adopt's own pid is
    // one it left itself, which it takes over (src/util/fsio.ts acquireLock)
    const s = scratchChild();
    mkdirSync(join(s.dir, ".hcp"));
    writeFileSync(join(s.dir, ".hcp/adopt.lock"), `${process.pid}\n`);
    // the held lock waited for 300 ms, not the default 5 s (how long is not the subject: test/hostile/files/race.test.ts)
    const e = failed(await s.run(["adopt", "claude", "--write", "--json"], { HCPX_LOCK_WAIT_MS: "300" }));
    expect(e).toMatchObject({
      code: "locked",
      file: ".hcp/adopt.lock",
      message: `another hcpx adopt is running (pid ${process.pid}); waited 0.3 s for it`,
    });
    expect(existsSync(join(s.dir, ".mcp.json"))).toBe(false);
    const dead = execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).toString();
    writeFileSync(join(s.dir, ".hcp/adopt.lock"), `${dead}\n`);
    // taken over: adopt may run in this process now
    const ok = await inProcess(s).adopt("claude", "--write");
    expect(ok.code).toBe(0);
    expect(existsSync(join(s.dir, ".hcp/adopt.lock"))).toBe(false);
  });

  it("a run killed after making .hcp and before its lock file named it: the next run still counts .hcp as adopt's (its ledger and --remove as after a clean run)", async () => {
    // what a clean first adopt records: .hcp is a folder adopt made (its --remove takes it away)
    const clean = scratch();
    expect((await clean.adopt("claude", "--write")).code).toBe(0);
    expect(JSON.parse(clean.read(".hcp/adopted.json")).dirs).toEqual([".hcp"]);
    // killed in that window: .hcp empty, or holding only the dead run's lock temp file
    const dead = execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).toString();
    for (const left of [[], [`adopt.lock.${dead}-k1lled.tmp`]]) {
      const s = scratch();
      mkdirSync(join(s.dir, ".hcp"));
      for (const f of left) writeFileSync(join(s.dir, ".hcp", f), `${dead}\nx\n[]\n`);
      expect((await s.adopt("claude", "--write")).code).toBe(0);
      expect(JSON.parse(s.read(".hcp/adopted.json")).dirs, left.join()).toEqual([".hcp"]);
      expect((await s.adopt("claude", "--remove", "--write")).code).toBe(0);
      expect(existsSync(join(s.dir, ".hcp")), left.join()).toBe(false);
    }
    // a .hcp that holds something else (hcpx generate's output, the person's files) is not adopt's
    const other = scratch();
    mkdirSync(join(other.dir, ".hcp", "generated"), { recursive: true });
    expect((await other.adopt("claude", "--write")).code).toBe(0);
    expect(JSON.parse(other.read(".hcp/adopted.json")).dirs).toBeUndefined();
  });
});

describe("symlinks", () => {
  it("a target that is a symlink leading outside the project is refused, nothing written", async () => {
    const s = scratch();
    const outside = tmp("hcpx-outside-");
    writeFileSync(join(outside, "mcp.json"), "{}\n");
    symlinkSync(join(outside, "mcp.json"), join(s.dir, ".mcp.json"));
    const before = snapshot(s.dir);
    const e = failed(await s.adopt("claude", "--write", "--json"));
    expect(e).toMatchObject({
      code: "symlink_refused",
      file: ".mcp.json",
      message: expect.stringMatching(/^is a symlink leading outside the project/),
    });
    expect(readFileSync(join(outside, "mcp.json"), "utf8")).toBe("{}\n");
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("a directory symlink leading outside is refused too", async () => {
    const s = scratch();
    const outside = tmp("hcpx-outside-");
    symlinkSync(outside, join(s.dir, ".cursor"));
    const e = failed(await s.adopt("cursor", "--write", "--json"));
    expect(e).toMatchObject({
      code: "symlink_refused",
      message: expect.stringMatching(/symlink leading outside the project/),
    });
    expect(snapshot(outside)).toEqual({});
  });

  it("a symlink inside the project is written through: the link stays, its target gets the block", async () => {
    const s = scratch();
    s.write("docs/agents.md", "# Shared rules\n");
    symlinkSync("docs/agents.md", join(s.dir, "CLAUDE.md"));
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    expect(lstatSync(join(s.dir, "CLAUDE.md")).isSymbolicLink()).toBe(true);
    expect(s.read("docs/agents.md")).toMatch(/^# Shared rules\n\n<!-- hcp:begin -->/);
    expect((await s.adopt("claude", "--remove", "--write")).code).toBe(0);
    expect(s.read("docs/agents.md")).toBe("# Shared rules\n");
  });
});

describe("user scope honours $HOME", () => {
  it("writes ~/.claude.json, ~/.claude/CLAUDE.md and ~/.claude/skills, ledger under $XDG_CONFIG_HOME/hcp; the project is untouched; --remove restores HOME", async () => {
    const s = scratch();
    s.write("~/.claude.json", '{\n  "numStartups": 3,\n  "projects": {}\n}\n');
    const xdg = join(s.home, "xdg");
    userConfigFromProject(s, xdg);
    const before = { p: snapshot(s.dir), h: snapshot(s.home) };
    const r = succeeded<{ scope: string; written: string[] }>(
      await s.run(["adopt", "claude", "--scope", "user", "--write", "--json"], { XDG_CONFIG_HOME: xdg }),
    );
    expect(r.scope).toBe("user");
    expect(r.written).toContain("~/.claude/skills/ledger/SKILL.md");
    const cj = JSON.parse(s.read("~/.claude.json"));
    expect(cj.numStartups).toBe(3);
    expect(cj.mcpServers["hcp-user"].type).toBe("stdio");
    expect(s.read("~/.claude/CLAUDE.md")).toContain("~/.claude/skills/<pack>/SKILL.md");
    expect(existsSync(join(xdg, "hcp", "adopted.json"))).toBe(true);
    expect(snapshot(s.dir)).toEqual(before.p);
    expect((await s.run(["adopt", "claude", "--scope", "user", "--check"], { XDG_CONFIG_HOME: xdg })).code).toBe(0);
    const rm = await s.run(["adopt", "claude", "--scope", "user", "--remove", "--write"], { XDG_CONFIG_HOME: xdg });
    expect(rm.code).toBe(0);
    expect(snapshot(s.home)).toEqual(before.h);
  });

  it("Windsurf: the MCP entry is user-scope only; project scope says how to get it", async () => {
    const s = scratch();
    const p = await s.adopt("windsurf", "--write");
    // prose on purpose: the note a person reads, saying where to go
    expect(p.stdout).toMatch(
      /The Cascade agent \(Windsurf's\) reads MCP servers only from ~\/\.codeium\/windsurf\/mcp_config\.json/,
    );
    expect(existsSync(join(s.home, ".codeium"))).toBe(false);
    const file = userConfigFromProject(s);
    const r = await s.adopt("windsurf", "--scope", "user", "--write");
    expect(r.code).toBe(0);
    expect(JSON.parse(s.read("~/.codeium/windsurf/mcp_config.json")).mcpServers["hcp-user"].args.slice(-7)).toEqual([
      "mcp",
      "--shape",
      "per-command",
      "--host",
      "devin",
      "--config",
      file,
    ]);
    expect(s.read("~/.codeium/windsurf/memories/global_rules.md")).toMatch(/^<!-- hcp:begin -->/);
  });
});

describe("the MCP command", () => {
  it("`hcpx mcp` when hcpx on PATH is this install (portable, no note); --command overrides", async () => {
    const s = scratch();
    const bin = tmp("hcpx-bin-");
    symlinkSync(HCPX, join(bin, "hcpx"));
    const r = succeeded<{ notes: string[] }>(
      await s.run(["adopt", "claude", "--write", "--json"], { PATH: `${bin}:${s.env.PATH}` }),
    );
    expect(r.notes.filter((n) => n.includes("machine-specific"))).toEqual([]);
    expect(JSON.parse(s.read(".mcp.json")).mcpServers.hcp).toEqual({
      type: "stdio",
      command: "hcpx",
      args: ["mcp", "--shape", "per-command", "--client-host", "claude"],
    });
    const o = await s.adopt("claude", "--write", "--command", "npx -y hcpx mcp");
    expect(o.code).toBe(0);
    expect(JSON.parse(s.read(".mcp.json")).mcpServers.hcp).toEqual({
      type: "stdio",
      command: "npx",
      args: ["-y", "hcpx", "mcp", "--shape", "per-command", "--client-host", "claude"],
    });
  });

  it("a --command is recorded but not trusted: without it (or --use-recorded-command) --check and doctor report the difference; --use-recorded-command keeps it; --remove still restores", async () => {
    const s = scratch();
    const before = snapshot(s.dir);
    expect((await s.adopt("claude", "--write", "--command", "npx -y hcpx mcp")).code).toBe(0);
    const written = s.read(".mcp.json");
    expect(JSON.parse(written).mcpServers.hcp).toEqual({
      type: "stdio",
      command: "npx",
      args: ["-y", "hcpx", "mcp", "--shape", "per-command", "--client-host", "claude"],
    });
    // the ledger is a shared file: its command is a value to show, not to bless
    const c = drift(await s.adopt("claude", "--check", "--json"));
    expect(c.drift).toContainEqual({
      kind: "ignored",
      path: ".hcp/adopted.json",
      at: "hosts.claude.command",
      message: expect.stringMatching(/^records the MCP command `npx -y hcpx mcp` for claude \(an earlier --command\)/),
    });
    const d = await s.run(["doctor", "--json"]);
    expect(JSON.stringify(JSON.parse(d.stdout))).toMatch(
      /host claude \(project\): .*records the MCP command `npx -y hcpx mcp`/,
    );
    // asked for: in sync, and a re-run keeps it byte for byte
    expect((await s.adopt("claude", "--check", "--use-recorded-command")).code).toBe(0);
    expect((await s.adopt("claude", "--check", "--command", "npx -y hcpx mcp")).code).toBe(0);
    expect((await s.adopt("claude", "--write", "--use-recorded-command")).code).toBe(0);
    expect(s.read(".mcp.json")).toBe(written);
    // (a command that is on PATH: one that is not makes --check fail, test/adopt/team.test.ts)
    expect((await s.adopt("claude", "--write", "--command", "npx hcpx mcp")).code).toBe(0);
    expect(JSON.parse(s.read(".mcp.json")).mcpServers.hcp).toEqual({
      type: "stdio",
      command: "npx",
      args: ["hcpx", "mcp", "--shape", "per-command", "--client-host", "claude"],
    });
    expect((await s.adopt("claude", "--check", "--use-recorded-command")).code).toBe(0);
    expect((await s.adopt("claude", "--remove", "--write")).code).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("the command adopt writes starts a working MCP server (initialize + tools/list over stdio)", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const e = JSON.parse(s.read(".mcp.json")).mcpServers.hcp as { command: string; args: string[] };
    const reply = await new Promise<string>((res, rej) => {
      const ch = spawn(e.command, e.args, { cwd: s.dir, env: { ...process.env, HOME: s.home } });
      let out = "";
      const timer = setTimeout(() => {
        ch.kill("SIGKILL");
        rej(new Error(`no tools/list reply: ${out}`));
      }, 15000);
      ch.stdout.on("data", (d) => {
        out += d;
        if (out.includes('"id":2')) {
          clearTimeout(timer);
          ch.stdin.end();
          res(out);
        }
      });
      rawMcp(ch.stdin, { method: "tools/list" });
    });
    // Claude Code is given one tool per command (hosts/claude.json5 tools: per-command)
    expect(reply).toContain('"name":"ledger__balance"');
  });
});
