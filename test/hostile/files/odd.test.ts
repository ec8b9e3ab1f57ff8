// Odd files and odd output (issue 9, §6): a FIFO, a device, a socket or a
// directory where a pack, config or Skill file should be; files over the size
// caps; JSON5 and bin output nested deep enough to overflow the stack; a
// read-only file system and a full disk. Each is a clear error naming the file
// (exit 1 or an ok:false envelope), never a hang, a multi-GB read or exit 70;
// `hcpx mcp` keeps answering and serves the other packs.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { envelope, HCPX, run, runHcpx, tmp, type Env, type RunResult } from "../../support/hcpx";
import { execInProcess, runInProcess } from "../../support/inproc";
import { connectMcp } from "../../support/mcp";
import { fxPack, project } from "../../runtime/support";
import { writeSh } from "../../support/sh-bins";

const cmd = (verb: string) => ({ verb_key: verb, summary: verb, cli: ["p", verb], args: {} });
/**
 * The packs' bin: argv-echo.mjs's argv as a shell script (test/fixtures/bins/argv-only.sh): the odd files are
 * under test, and the healthy pack's calls only show that a call still runs (a Node start each, ~60 ms of CPU).
 */
const BIN = "argv-only.sh";
/**
 * A run whose odd file can neither hang nor fill memory (a socket, a directory, a size cap, deep nesting) as a
 * function call in this process (test/support/inproc.ts): what it decides is under test. The FIFOs, /dev/zero and
 * the servers stay processes: there the process is the subject (it must end, under the test's timeout).
 */
const inProcess = (args: string[], opts: { cwd: string }) =>
  args[0] === "exec" ? execInProcess(args, opts) : runInProcess(args, opts);
const haveMkfifo = spawnSync("mkfifo", ["--version"]).status === 0;

/** Two packs `p` (to be made odd) and `ok`, both over argv-echo. */
function twoPacks() {
  const p = project({
    packs: [fxPack("p", BIN, [cmd("show")]), fxPack("ok", BIN, [cmd("show")])],
  });
  return { ...p, pack: join(p.dir, "packs", "p") };
}

function fifo(path: string): void {
  rmSync(path, { force: true, recursive: true });
  const r = spawnSync("mkfifo", [path]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${r.stderr}`);
}

/** A unix socket bound at `path`; returns a closer. */
async function socketAt(path: string): Promise<() => void> {
  rmSync(path, { force: true, recursive: true });
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(path, r));
  return () => srv.close();
}

interface Named {
  code: string;
  message: string;
  file?: string;
}

/** The problems a failed --json run reports: its error's (or the error itself), lint's (details.packs[]) and status's (details.broken[]). */
function problemsOf(env: Env): Named[] {
  const details = env.error.details as
    { packs?: { problems?: Named[] }[]; broken?: { problems: Named[] }[] } | undefined;
  return [
    ...(env.error.problems ?? [env.error]),
    ...[...(details?.packs ?? []), ...(details?.broken ?? [])].flatMap((p) => p.problems ?? []),
  ];
}

/** A --json run refused at once (exit 1, not the guard, not internal) with a problem of `code` whose file is `file` and whose message says `what`. */
function expectClearError(r: RunResult, file: RegExp, what: RegExp, code: string): void {
  expect(r.signal, "killed by the test's timeout: it hung").toBeNull();
  expect(r.code, r.stdout + r.stderr).toBe(1);
  const env = envelope(r);
  expect(env.ok).toBe(false);
  expect(env.error.code).not.toBe("internal");
  expect(problemsOf(env)).toContainEqual(
    expect.objectContaining({ code, file: expect.stringMatching(file), message: expect.stringMatching(what) }),
  );
}

describe.skipIf(!haveMkfifo)("a FIFO where a file should be: an error, never a hang", () => {
  it.each(["surface.json", "policy.json", "SKILL.md"])(
    "%s as a FIFO: lint, exec, status, generate answer at once (exit 1, the file named)",
    async (name) => {
      const p = twoPacks();
      fifo(join(p.pack, name));
      // status and exec do not read SKILL.md; the runs side by side (each its own process, guard and FIFO open)
      const runs = [
        ["lint", p.pack],
        ["generate"],
        ...(name === "SKILL.md" ? [] : [["status"], ["exec", "p", "show"]]),
      ];
      const [ok, ...results] = await Promise.all([
        // an unrelated pack still runs
        runHcpx(["exec", "ok", "show", "--json"], { cwd: p.dir, timeoutMs: 8000 }),
        ...runs.map((args) => runHcpx([...args, "--json"], { cwd: p.dir, timeoutMs: 8000 })),
      ]);
      for (const r of results) expectClearError(r, new RegExp(`${name.replace(".", "\\.")}$`), /FIFO/, "not_a_file");
      expect(JSON.parse(ok!.stdout).ok).toBe(true);
    },
  );

  it("hcp.config.json5 as a FIFO: exec and grant answer at once", async () => {
    const p = twoPacks();
    fifo(p.config);
    const runs = [["exec", "p", "show"], ["grant", "p.show"], ["status"]];
    for (const r of await Promise.all(
      runs.map((args) => runHcpx([...args, "--json"], { cwd: p.dir, timeoutMs: 8000 })),
    ))
      expectClearError(r, /hcp\.config\.json5$/, /FIFO/, "not_a_file");
  });

  it("hcpx mcp with a FIFO as one pack's SKILL.md and another's surface.json: starts, lists tools, serves the healthy pack, names the broken ones", async () => {
    const p = project({
      packs: [fxPack("p", BIN, [cmd("show")]), fxPack("q", BIN, [cmd("show")]), fxPack("ok", BIN, [cmd("show")])],
    });
    fifo(join(p.dir, "packs", "p", "SKILL.md"));
    fifo(join(p.dir, "packs", "q", "surface.json"));
    const t0 = Date.now();
    const s = await connectMcp([HCPX, "mcp"], p.dir, {
      PATH: process.env.PATH ?? "",
      HOME: tmp("hcpx-odd-home-"),
      NO_COLOR: "1",
    });
    try {
      const tools = await s.client.listTools();
      expect(Date.now() - t0).toBeLessThan(8000);
      const hcp = tools.tools.find((t) => t.name === "hcp")!;
      expect(hcp.description).toMatch(/^- ok: show$/m);
      expect(hcp.description).toMatch(/^- p \(.*\): \S*SKILL\.md: is a FIFO/m);
      expect(hcp.description).toMatch(/^- \S*packs\/q: \S*surface\.json: is a FIFO/m);
      expect(tools.tools.find((t) => t.name === "hcp__read_skill")!.description).toContain("Not served, broken");
      const ok = (await s.client.callTool({ name: "hcp", arguments: { pack: "ok", verb: "show" } })) as unknown as {
        structuredContent: { ok: boolean };
      };
      expect(ok.structuredContent.ok).toBe(true);
      const bad = (await s.client.callTool({ name: "hcp__read_skill", arguments: { pack: "p" } })) as unknown as {
        structuredContent: { ok: boolean; error: { code: string; message: string } };
      };
      expect(bad.structuredContent.error.code).toBe("bad_pack");
      expect(bad.structuredContent.error.message).toMatch(/FIFO/);
      // still responsive after every refresh
      expect((await s.client.listResources()).resources.map((r) => r.name)).toEqual(["ok"]);
      expect(s.stderr()).toMatch(/not serving 2 broken pack\(s\)/);
      expect(s.stderr()).toMatch(/SKILL\.md: is a FIFO/);
    } finally {
      await s.client.close();
    }
    // doctor shows it (in this process; the server it starts is a process)
    const d = await runInProcess(["doctor", "--json", "--mcp-timeout", "8000"], { cwd: p.dir });
    expect(d.code).toBe(1);
    const checks = (envelope(d).error.details as { checks: { id: string; status: string; message: string }[] }).checks;
    const check = (id: string) => checks.find((c) => c.id === id);
    expect(check("pack:p")).toMatchObject({
      status: "fail",
      problems: expect.arrayContaining([
        expect.objectContaining({ code: "not_a_file", file: expect.stringMatching(/SKILL\.md$/) }),
      ]),
    });
    expect(check("mcp")?.status).toBe("fail");
    expect(check("mcp")?.message).toMatch(/starts and lists 2 tool\(s\).*does not serve 2 broken pack\(s\)/);
  });
});

describe("devices, sockets, directories and files over the caps", () => {
  it("surface.json -> /dev/zero: refused as a device, not read without end", async () => {
    const p = twoPacks();
    rmSync(join(p.pack, "surface.json"));
    symlinkSync("/dev/zero", join(p.pack, "surface.json"));
    const r = await runHcpx(["exec", "p", "show", "--json"], { cwd: p.dir, timeoutMs: 8000 });
    expectClearError(r, /surface\.json$/, /is a device/, "not_a_file");
  });

  it.skipIf(process.platform === "win32")("policy.json as a unix socket", async () => {
    const p = twoPacks();
    const close = await socketAt(join(p.pack, "policy.json"));
    try {
      const r = await inProcess(["lint", p.pack, "--json"], { cwd: p.dir });
      expectClearError(r, /policy\.json$/, /socket/, "not_a_file");
    } finally {
      close();
    }
  });

  it("SKILL.md as a directory", async () => {
    const p = twoPacks();
    rmSync(join(p.pack, "SKILL.md"));
    mkdirSync(join(p.pack, "SKILL.md"));
    const r = await inProcess(["generate", "--json"], { cwd: p.dir });
    expectClearError(r, /SKILL\.md$/, /is a directory/, "not_a_file");
  });

  it("a 5 MiB surface.json and a 2 MiB config are refused by size (file_too_large)", async () => {
    const p = twoPacks();
    const sf = join(p.pack, "surface.json");
    writeFileSync(sf, readFileSync(sf, "utf8") + " ".repeat(5 * 1024 * 1024));
    const r = await inProcess(["exec", "p", "show", "--json"], { cwd: p.dir });
    expect(JSON.parse(r.stdout).error.problems[0]).toMatchObject({ code: "file_too_large" });
    writeFileSync(p.config, readFileSync(p.config, "utf8") + "\n//" + "x".repeat(2 * 1024 * 1024));
    const c = await inProcess(["status", "--json"], { cwd: p.dir });
    expectClearError(c, /hcp\.config\.json5$/, /more than the 1048576 bytes/, "file_too_large");
  });
});

describe("nesting deep enough to overflow a stack", () => {
  it("a surface.json nested 200,000 levels deep: too_deep naming the file (exec, lint)", async () => {
    const p = twoPacks();
    const sf = join(p.pack, "surface.json");
    const s = readFileSync(sf, "utf8");
    writeFileSync(sf, s.replace(/\}\s*$/, `, "stimuli": ${"[".repeat(200_000)}${"]".repeat(200_000)} }`));
    const runs = [
      ["exec", "p", "show"],
      ["lint", p.pack],
    ];
    for (const r of await Promise.all(runs.map((args) => inProcess([...args, "--json"], { cwd: p.dir }))))
      expectClearError(r, /surface\.json$/, /nested deeper than 64 levels/, "too_deep");
  });

  it("a bin printing JSON nested 1,000,000 deep: bad_output, exit 1 (--json and readable, with a Binding to redact)", async () => {
    const p = project({
      packs: [fxPack("deep", "deep.sh", [cmd("show")], { binding: { env: ["DEEP_TOKEN"] } })],
    });
    // "[" x 1,000,000 then "]" x 1,000,000 (a shell and two coreutils, not a Node start, each run)
    writeSh(join(p.dir, "fx", "deep.sh"), [
      "head -c 1000000 /dev/zero | tr '\\0' '['",
      "head -c 1000000 /dev/zero | tr '\\0' ']'",
    ]);
    const modes = [true, false];
    const results = await Promise.all(
      modes.map((json) =>
        runHcpx(["exec", "deep", "show", ...(json ? ["--json"] : [])], {
          cwd: p.dir,
          env: { DEEP_TOKEN: "tok-deep-1234" },
          timeoutMs: 15_000,
        }),
      ),
    );
    for (const [i, r] of results.entries()) {
      const json = modes[i]!;
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout + r.stderr).not.toMatch(/internal error/);
      if (json) expect(JSON.parse(r.stdout).error).toMatchObject({ code: "bad_output", limit_depth: 512 });
      else expect(r.stderr).toMatch(/bad_output.*nested deeper than 512 levels/);
    }
  });

  it("hcpx mcp passes a deep bin output on as bad_output and keeps serving", async () => {
    const p = project({ packs: [fxPack("deep", "deep.sh", [cmd("show")])] });
    // '{"a":' x 300,000, then 1, then "}" x 300,000
    writeSh(join(p.dir, "fx", "deep.sh"), [
      `yes '{"a":' | head -n 300000 | tr -d '\\n'`,
      "printf 1",
      "head -c 300000 /dev/zero | tr '\\0' '}'",
    ]);
    const s = await connectMcp([HCPX, "mcp"], p.dir, {
      PATH: process.env.PATH ?? "",
      HOME: tmp("hcpx-odd-home-"),
      NO_COLOR: "1",
    });
    try {
      const r = (await s.client.callTool({ name: "hcp", arguments: { pack: "deep", verb: "show" } })) as unknown as {
        structuredContent: { ok: boolean; error: { code: string } };
      };
      expect(r.structuredContent.error.code).toBe("bad_output");
      expect((await s.client.listTools()).tools.length).toBe(2);
    } finally {
      await s.client.close();
    }
  });
});

// A private mount namespace (unshare -rm) lets an unprivileged test mount a
// read-only bind or a tiny tmpfs; skipped where that is not possible.
const canUnshare =
  process.platform === "linux" &&
  spawnSync("unshare", [
    "-rm",
    "sh",
    "-c",
    'mount -t tmpfs -o size=16k tmpfs /mnt 2>/dev/null || mount -t tmpfs -o size=16k tmpfs "$(mktemp -d)"',
  ]).status === 0;

/** Run hcpx in `dir` inside a private mount namespace after `mount` (shell); `after` runs there too, its output on stderr after "--after--". */
function inNamespace(mount: string, dir: string, args: string[], after = "true"): Promise<RunResult> {
  const script = `${mount} && cd "$1" && shift && "$@"; rc=$?; echo --after-- >&2; ${after} >&2; exit $rc`;
  return run("unshare", ["-rm", "sh", "-c", script, "sh", dir, process.execPath, HCPX, ...args], {
    timeoutMs: 20_000,
    pureEnv: true,
    env: { ...process.env, HOME: tmp("hcpx-odd-home-"), NO_COLOR: "1" },
  });
}

describe.skipIf(!canUnshare)("a read-only file system and a full disk", () => {
  it("read-only project: generate, adopt --write, grant and pack new say so, naming the file (exit 1, not 70); exec still runs", async () => {
    const p = twoPacks();
    const ro = `mount --bind "${p.dir}" "${p.dir}" && mount -o remount,bind,ro "${p.dir}"`;
    const runs = [
      ["generate"],
      ["adopt", "claude", "--write"],
      ["grant", "p.show"],
      ["pack", "new", "zzz", "--wrap", "git", "--verb", "status=status"],
      ["generate", "--json"],
    ];
    // each run in a namespace of its own (its own read-only bind), side by side
    const [ok, ...results] = await Promise.all([
      inNamespace(ro, p.dir, ["exec", "ok", "show", "--json"]),
      ...runs.map((args) => inNamespace(ro, p.dir, args)),
    ]);
    for (const [i, r] of results.entries()) {
      const args = runs[i]!;
      expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.stdout + r.stderr, args.join(" ")).toMatch(/read-only \(EROFS\)/);
      expect(r.stdout + r.stderr, args.join(" ")).not.toMatch(/internal error/);
      if (args.includes("--json")) expect(JSON.parse(r.stdout).error).toMatchObject({ code: "io_error", file: ".hcp" });
    }
    expect(JSON.parse(ok!.stdout).ok).toBe(true);
  });

  it("a full disk under .hcp: generate names the file it could not write (ENOSPC, exit 1) and leaves no temp file", async () => {
    const p = twoPacks();
    mkdirSync(join(p.dir, ".hcp"));
    const full = `mount -t tmpfs -o size=16k tmpfs "${p.dir}/.hcp" && head -c 12000 /dev/zero > "${p.dir}/.hcp/filler"`;
    const runs = [["generate"], ["generate", "--json"]];
    // each in a namespace of its own (its own full tmpfs on .hcp), side by side
    const results = await Promise.all(runs.map((args) => inNamespace(full, p.dir, args, `find .hcp -name '*.tmp'`)));
    for (const [i, r] of results.entries()) {
      const args = runs[i]!;
      expect(r.code, r.stdout + r.stderr).toBe(1);
      const [err, after] = r.stderr.split("--after--\n");
      expect(r.stdout + err).not.toMatch(/internal error/);
      if (args.includes("--json"))
        expect(JSON.parse(r.stdout).error).toMatchObject({
          code: "io_error",
          message: "cannot write: no space left on the device (ENOSPC)",
        });
      else expect(err).toMatch(/^error \.hcp\/generated\/\S+: cannot write: no space left on the device \(ENOSPC\)/m);
      expect(after!.trim(), "temp files left on the full disk").toBe("");
    }
  });
});
