// Issue 6, item 7 (runtime faults), through the CLI and through the MCP server:
// a bin that hangs (the timeout kills it and its children — checked in /proc:
// nothing of its process group remains, no zombies; also a child that escaped
// into its own session), floods stdout past the cap, dies by a signal, prints
// invalid JSON, is deleted between lint and exec, or is replaced by a symlink
// to an unlisted program. Each is a clean envelope error with its code; the
// MCP server keeps no child and answers the next call.
// The faulty bins are shell scripts (test/fixtures/bins/*.sh, hfx/hang-detached.sh:
// the .mjs fixtures' twins, the same output, signals and process trees): hcpx's
// handling of a fault is under test, not the bin's language, and ~40 of them start
// here (a Node start ~60 ms of CPU). The victim's bin stays a Node one: its file
// (a .mjs run with Node, deleted, a symlink to another) is the subject.
// Through the CLI, exec runs in this process (execInProcess, test/support/inproc.ts):
// what it does with a faulty bin (envelope, exit code, its stderr, the bin's tree
// killed) is the subject, not exec's own process. The bins are real processes,
// children of this one, which lives on after the call as a server's process does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHcpx, tmp } from "../../support/hcpx";
import { execInProcess } from "../../support/inproc";
import { FIXTURE_BINS, fxPack, project } from "../../runtime/support";
import {
  childrenOf,
  copyOwnFixtures,
  groupMembers,
  hcpCall,
  running,
  settle,
  startServer,
  type Env,
  type Session,
} from "./support";

const cmd = (verb: string, cli: string[]) => ({ verb_key: verb, summary: verb, cli, args: {} });
let dir: string;
let outside: string;
const pidFile = (name: string) => join(dir, `${name}.pid`);

/** [pack, verb, expected code, extra check of the error] */
const CASES: [string, string, string, ((e: Env["error"]) => void)?][] = [
  ["slow", "hang", "timeout"],
  ["slowd", "hang", "timeout"],
  ["flood", "flood", "output_too_large"],
  ["sig", "die", "exit_nonzero", (e) => expect(e).toMatchObject({ signal: "SIGKILL" })],
  ["sigterm", "die", "exit_nonzero", (e) => expect(e).toMatchObject({ signal: "SIGTERM" })],
  ["bad", "truncated", "bad_output"],
  ["bad", "text", "bad_output"],
  ["bad", "two", "bad_output"],
  ["bad", "empty", "bad_output"],
];

beforeAll(() => {
  outside = tmp("hcpx-outside-");
  writeFileSync(join(outside, "other.mjs"), "process.stdout.write(JSON.stringify({ other: true }))\n");
  const sp = project({
    packs: [
      fxPack("slow", "hang.sh", [cmd("hang", ["hang"])], {
        wrap: { timeout_ms: 800, output: "text", agent_env: { HANG_PID_FILE: "PLACEHOLDER_slow" } },
      }),
      {
        id: "slowd",
        surface: {
          kind: "wrap",
          wrap: {
            bin: "../../hfx/hang-detached.sh",
            json_flag: null,
            output: "text",
            timeout_ms: 800,
            agent_env: { HANG_PID_FILE: "PLACEHOLDER_slowd" },
          },
          commands: [cmd("hang", ["hang"])],
        },
      },
      fxPack("flood", "flood.sh", [cmd("flood", ["flood"])]),
      fxPack("sig", "sigkill-self.sh", [cmd("die", ["sig"])]),
      fxPack("sigterm", "sigkill-self.sh", [cmd("die", ["sig"])], {
        wrap: { agent_env: { SIGKILL_SELF_SIGNAL: "SIGTERM" } },
      }),
      fxPack(
        "bad",
        "badjson.sh",
        ["truncated", "text", "two", "empty"].map((m) => cmd(m, ["bad", m])),
      ),
      fxPack("ok", "argv-only.sh", [cmd("echo", ["echo", "alive"])]),
      {
        id: "victim",
        surface: { kind: "wrap", wrap: { bin: "./bin.mjs", json_flag: null }, commands: [cmd("run", ["v", "run"])] },
      },
    ],
  });
  dir = sp.dir;
  copyOwnFixtures(dir);
  copyFileSync(join(FIXTURE_BINS, "argv-echo.mjs"), join(dir, "packs", "victim", "bin.mjs"));
  for (const id of ["slow", "slowd"]) {
    const f = join(dir, "packs", id, "surface.json");
    writeFileSync(f, readFileSync(f, "utf8").replace(`PLACEHOLDER_${id}`, pidFile(id)));
  }
});

/** After a hang case: neither the bin nor its child runs, nothing of the bin's process group is left (zombies included). */
async function expectHangGone(id: string): Promise<void> {
  const { pid, child } = JSON.parse(readFileSync(pidFile(id), "utf8")) as { pid: number; child: number };
  expect(
    await settle(() => !running(pid) && !running(child)),
    `${id}: bin ${pid} or child ${child} still running`,
  ).toBe(true);
  expect(
    await settle(() => groupMembers(pid).length === 0),
    `${id}: group ${pid} has ${JSON.stringify(groupMembers(pid))}`,
  ).toBe(true);
  rmSync(pidFile(id));
}

describe("faults through the CLI", () => {
  it.each(CASES)("%s %s → %s, exit 1, nothing left running", async (pack, verb, code, extra) => {
    const r = await execInProcess(["exec", pack, verb, "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    const env = JSON.parse(r.stdout) as Env;
    expect(env.error?.code).toBe(code);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    extra?.(env.error);
    if (pack.startsWith("slow")) await expectHangGone(pack);
  });

  it("a bin deleted between lint and exec: spawn_failed; replaced by a symlink to an unlisted program: bin_denied", async () => {
    const bin = join(dir, "packs", "victim", "bin.mjs");
    // the pack as linted: its bin is there and runs
    const lint = await runHcpx(["lint", "packs/victim"], { cwd: dir });
    expect(lint.stdout + lint.stderr).not.toMatch(/bin/i);
    expect(JSON.parse((await execInProcess(["exec", "victim", "run", "--json"], { cwd: dir })).stdout).ok).toBe(true);
    rmSync(bin);
    let env = JSON.parse((await execInProcess(["exec", "victim", "run", "--json"], { cwd: dir })).stdout) as Env;
    expect(env.error?.code).toBe("spawn_failed");
    for (const target of ["/usr/bin/env", join(outside, "other.mjs")]) {
      symlinkSync(target, bin);
      env = JSON.parse((await execInProcess(["exec", "victim", "run", "--json"], { cwd: dir })).stdout) as Env;
      expect(env.error?.code, target).toBe("bin_denied");
      rmSync(bin);
    }
    copyFileSync(join(FIXTURE_BINS, "argv-echo.mjs"), bin);
  });
});

describe("faults through the MCP server", () => {
  let s: Session;
  beforeAll(async () => {
    s = await startServer(dir);
  });
  afterAll(async () => {
    await s?.close();
  });

  const noChildren = async () => {
    expect(
      await settle(() => childrenOf(s.serverPid).length === 0),
      `children of the server: ${JSON.stringify(childrenOf(s.serverPid))}`,
    ).toBe(true);
  };
  const stillAnswers = async () => {
    const env = await hcpCall(s, "ok", "echo");
    expect(env.data.argv).toEqual(["alive"]);
  };

  it.each(CASES)(
    "%s %s → %s; the server keeps no child or zombie and answers the next call",
    async (pack, verb, code, extra) => {
      const env = await hcpCall(s, pack, verb);
      expect(env.error?.code).toBe(code);
      extra?.(env.error);
      if (pack.startsWith("slow")) await expectHangGone(pack);
      await noChildren();
      await stillAnswers();
    },
  );

  it("all faults at once (concurrent calls): every envelope right, no child left, still answering", async () => {
    const envs = await Promise.all(CASES.filter(([p]) => !p.startsWith("slow")).map(([p, v]) => hcpCall(s, p, v)));
    expect(envs.map((e) => e.error?.code)).toEqual(CASES.filter(([p]) => !p.startsWith("slow")).map(([, , c]) => c));
    await noChildren();
    await stillAnswers();
  });

  it("bin deleted while the server runs, then a symlink to an unlisted program: spawn_failed, bin_denied; then restored: ok", async () => {
    const bin = join(dir, "packs", "victim", "bin.mjs");
    expect((await hcpCall(s, "victim", "run")).ok).toBe(true);
    rmSync(bin);
    expect((await hcpCall(s, "victim", "run")).error?.code).toBe("spawn_failed");
    symlinkSync("/usr/bin/env", bin);
    expect((await hcpCall(s, "victim", "run")).error?.code).toBe("bin_denied");
    rmSync(bin);
    copyFileSync(join(FIXTURE_BINS, "argv-echo.mjs"), bin);
    expect((await hcpCall(s, "victim", "run")).ok).toBe(true);
    await noChildren();
    expect(existsSync(bin)).toBe(true);
  });
});
