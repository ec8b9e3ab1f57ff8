// Writes in the scaffold (issue 17): `pack new --write`, `pack add-verb`,
// quoting in specs, `output` per command. Real git and sqlite3, real processes.
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import JSON5 from "json5";
import { envelope, hcpx as hcpxChild, tmp } from "./helpers";
import { needsProcess, runInProcessChecked } from "../support/inproc";

/** exec (the real bins) as processes; pack new, add-verb and lint (what they write and say) in this process (test/support/inproc.ts) */
const hcpx = (args: string[], cwd: string, env?: NodeJS.ProcessEnv) =>
  needsProcess(args) ? hcpxChild(args, cwd, env) : runInProcessChecked(args, { cwd, env });
import { parseVerbSpec, splitWords } from "../../src/scaffold/spec";

const hasSqlite = spawnSync("sqlite3", ["-version"]).status === 0;

async function ok(args: string[], cwd: string) {
  const r = await hcpx(args, cwd);
  expect(r.code, `hcpx ${args.join(" ")}: ${r.stderr}${r.stdout}`).toBe(0);
  return r;
}

/** A project in a real git repository (the sandbox cwd is the project). */
async function gitProject(): Promise<string> {
  const dir = tmp("hcpx-writes-");
  const git = (...a: string[]) => expect(spawnSync("git", a, { cwd: dir }).status).toBe(0);
  git("init", "-q");
  git("config", "user.email", "t@example.invalid");
  git("config", "user.name", "T");
  writeFileSync(join(dir, "a.txt"), "a\n");
  git("add", "a.txt");
  await ok(["init", "--yes"], dir);
  return dir;
}

describe("pack new with writes", () => {
  it("declares a confirm-gated local write that lints clean, says nothing read-only, and runs only with --confirm once granted", async () => {
    const dir = await gitProject();
    await ok(
      [
        "pack",
        "new",
        "gitx",
        "--wrap",
        "git",
        "--verb",
        "status=status --short",
        "--write",
        "commit=commit -m {{message}}",
        "--land",
        "local",
        "--confirm",
      ],
      dir,
    );
    const lint = envelope<{ errors: number; warnings: number }>(await hcpx(["lint", "packs/gitx", "--json"], dir));
    expect(lint.data).toMatchObject({ errors: 0, warnings: 0 });
    const policy = JSON5.parse(readFileSync(join(dir, "packs/gitx/policy.json"), "utf8"));
    expect(policy.rows).toEqual({
      status: { operation: "read" },
      commit: { operation: "write", land: "local", confirm: true },
    });
    const skill = readFileSync(join(dir, "packs/gitx/SKILL.md"), "utf8");
    expect(skill).toContain("| `commit` | Runs `git commit -m {{message}}` | write, confirm |");
    expect(skill).toContain("hcpx exec gitx commit --confirm -- message=…");
    expect(skill).not.toMatch(/read-only|every command is a read/i);

    await ok(["activate", "packs/gitx"], dir);
    await ok(["grant", "gitx.commit"], dir);
    await ok(["adopt", "codex", "--write"], dir);
    const agents = readFileSync(join(dir, "AGENTS.md"), "utf8");
    expect(agents).toContain("commit (w, confirm required)");
    expect(agents).not.toMatch(/read-only|every command is a read/i);

    const refused = await hcpx(["exec", "gitx", "commit", "--json", "--", "message=first"], dir);
    expect(envelope(refused).ok).toBe(false);
    expect(envelope(refused).error.code).toBe("confirm_required");
    const done = await hcpx(["exec", "gitx", "commit", "--confirm", "--json", "--", "message=first commit"], dir);
    expect(envelope(done).ok, done.stdout).toBe(true);
    expect(spawnSync("git", ["log", "--format=%s"], { cwd: dir, encoding: "utf8" }).stdout.trim()).toBe("first commit");
  });

  it("quotes an argument with spaces in a --verb spec: one argv element", async () => {
    const dir = await gitProject();
    await ok(
      [
        "pack",
        "new",
        "gitx",
        "--wrap",
        "git",
        "--verb",
        "grepab=grep -n 'a b'",
        "--write",
        `msg:local=commit --allow-empty -m "fixed message"`,
      ],
      dir,
    );
    const surface = JSON5.parse(readFileSync(join(dir, "packs/gitx/surface.json"), "utf8"));
    expect(surface.commands[0].cli).toEqual(["gitx", "grep", "-n", "a b"]);
    expect(surface.commands[1].cli).toEqual(["gitx", "commit", "--allow-empty", "-m", "fixed message"]);
    expect(envelope<{ errors: number }>(await hcpx(["lint", "packs/gitx", "--json"], dir)).data.errors).toBe(0);
    await ok(["activate", "packs/gitx"], dir);
    await ok(["grant", "gitx.msg"], dir);
    expect(envelope(await hcpx(["exec", "gitx", "msg", "--json"], dir)).ok).toBe(true);
    expect(spawnSync("git", ["log", "--format=%s"], { cwd: dir, encoding: "utf8" }).stdout.trim()).toBe(
      "fixed message",
    );
  });

  it("refuses what it cannot make unambiguous: a write without land, external without confirm, land on a read, an open quote (exit 64)", async () => {
    const dir = tmp("hcpx-writes-bad-");
    await ok(["init", "--yes"], dir);
    for (const [args, msg] of [
      [["--write", "push=push"], /does not say where it lands/],
      [["--write", "push:external=push"], /needs no confirm/],
      [["--verb", "push:remote=push"], /is for writes/],
      [["--verb", "msg=commit -m 'a b"], /quote is not closed/],
      [["--verb", "x:yaml=x"], /unknown attribute 'yaml'/],
      [["--land", "local"], /go with --write/],
    ] as const) {
      const r = await hcpx(["pack", "new", "gitx", "--wrap", "git", ...args, "--json"], dir);
      expect(r.code, args.join(" ")).toBe(64);
      expect(envelope(r).error.message).toMatch(msg);
    }
    expect(existsSync(join(dir, "packs/gitx"))).toBe(false);
  });
});

describe("output per command", () => {
  it.skipIf(!hasSqlite)("one verb returns parsed JSON while the pack's other verbs return text", async () => {
    const dir = tmp("hcpx-output-");
    await ok(["init", "--yes"], dir);
    spawnSync("sqlite3", [
      join(dir, "app.db"),
      "create table users(name text); insert into users values ('ada'), ('bob');",
    ]);
    await ok(
      [
        "pack",
        "new",
        "db",
        "--wrap",
        "sqlite3",
        "--verb",
        "users:json=-json -readonly app.db 'select name from users order by name'",
        "--verb",
        "tables=app.db .tables",
      ],
      dir,
    );
    const surface = JSON5.parse(readFileSync(join(dir, "packs/db/surface.json"), "utf8"));
    expect(surface.wrap.output).toBe("text");
    expect(surface.commands[0].output).toBe("json");
    expect(
      envelope<{ errors: number; warnings: number }>(await hcpx(["lint", "packs/db", "--json"], dir)).data,
    ).toMatchObject({ errors: 0, warnings: 0 });
    await ok(["activate", "packs/db"], dir);
    const users = envelope(await hcpx(["exec", "db", "users", "--json"], dir));
    expect(users.data).toEqual([{ name: "ada" }, { name: "bob" }]);
    const tables = envelope<{ text: string }>(await hcpx(["exec", "db", "tables", "--json"], dir));
    expect(tables.data.text.trim()).toBe("users");
  });
});

describe("pack add-verb", () => {
  it("adds a write to surface, policy and Skill together, keeps JSON5 comments, and takes back the scaffold's read-only words", async () => {
    const dir = await gitProject();
    await ok(
      ["pack", "new", "gitx", "--wrap", "git", "--verb", "status=status --short", "--verb", "log=log --oneline -n 5"],
      dir,
    );
    const sFile = join(dir, "packs/gitx/surface.json");
    const pFile = join(dir, "packs/gitx/policy.json");
    writeFileSync(
      sFile,
      readFileSync(sFile, "utf8").replace("  commands: [", "  // my commands, keep this comment\n  commands: ["),
    );
    writeFileSync(pFile, readFileSync(pFile, "utf8").replace("  rows: {", "  rows: { // reviewed by me"));
    const before = { s: readFileSync(sFile, "utf8"), p: readFileSync(pFile, "utf8") };
    expect(readFileSync(join(dir, "packs/gitx/SKILL.md"), "utf8")).toMatch(/\(read-only\)/);

    const r = await ok(
      ["pack", "add-verb", "packs/gitx", "--write", "commit:local:confirm=commit -m {{message}}", "--json"],
      dir,
    );
    expect(envelope(r).data).toMatchObject({
      id: "gitx",
      added: [{ verb: "commit", operation: "write", land: "local", confirm: true }],
    });
    const s = readFileSync(sFile, "utf8");
    const p = readFileSync(pFile, "utf8");
    expect(s).toContain("// my commands, keep this comment");
    expect(p).toContain("// reviewed by me");
    expect(s.startsWith(before.s.slice(0, before.s.indexOf("  commands: [")))).toBe(true);
    expect(JSON5.parse(s).commands.at(-1)).toEqual({
      verb_key: "commit",
      summary: "Runs `git commit -m {{message}}`",
      cli: ["gitx", "commit", "-m", "{{message}}"],
      args: { message: { type: "string", required: true } },
    });
    expect(JSON5.parse(p).rows.commit).toEqual({ operation: "write", land: "local", confirm: true });
    const skill = readFileSync(join(dir, "packs/gitx/SKILL.md"), "utf8");
    expect(skill).toContain("| `commit` | Runs `git commit -m {{message}}` | write, confirm |");
    expect(skill).toContain("hcpx exec gitx commit --confirm -- message=…");
    expect(skill).not.toMatch(/read-only|every command is a read/i);
    expect(
      envelope<{ errors: number; warnings: number }>(await hcpx(["lint", "packs/gitx", "--json"], dir)).data,
    ).toMatchObject({ errors: 0, warnings: 0 });

    // a verb that exists is refused, nothing written
    const again = await hcpx(["pack", "add-verb", "packs/gitx", "--verb", "log=log", "--json"], dir);
    expect(again.code).toBe(1);
    expect(envelope(again).error.code).toBe("verb_exists");
    expect(readFileSync(sFile, "utf8")).toBe(s);
  });
});

describe("spec syntax", () => {
  it("splits argv like a shell, without expansion", () => {
    expect(splitWords(`commit -m 'a b' "c \\"d\\"" e\\ f $HOME`, "s")).toEqual([
      "commit",
      "-m",
      "a b",
      'c "d"',
      "e f",
      "$HOME",
    ]);
    expect(splitWords(`-m ''`, "s")).toEqual(["-m", ""]);
  });
  it("reads attributes after the verb_key", () => {
    expect(parseVerbSpec("push:remote:confirm=push origin", "write")).toEqual({
      verb: "push",
      tail: ["push", "origin"],
      operation: "write",
      land: "remote",
      confirm: true,
    });
    expect(parseVerbSpec("cfg:json=config --list", "read")).toEqual({
      verb: "cfg",
      tail: ["config", "--list"],
      operation: "read",
      confirm: false,
      output: "json",
    });
    expect(parseVerbSpec("commit=commit", "write", { land: "local", confirm: true })).toMatchObject({
      land: "local",
      confirm: true,
    });
  });
});
