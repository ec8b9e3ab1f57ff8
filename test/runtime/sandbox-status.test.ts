// Whether bubblewrap set the sandbox up and started the program (sandbox.enforce "os", docs/sandbox.md) is
// taken from bubblewrap's own report (--json-status-fd, read on a pipe of hcpx's), never from the call's
// stderr: that is the program's too, and a program can print "bwrap: …" and exit 1 as bubblewrap does
// when it cannot set a sandbox up. Before the fix such a program was told as bubblewrap's refusal: the
// model read "was not run … bubblewrap could not set the sandbox up: <the program's text>" and the audit
// log `refused`, for a program that ran. An mcp pack's stdio server is told from the same report. Real bubblewrap,
// real programs and a real MCP server, children of this process: exec and pack from-mcp run in it
// (execInProcess, runInProcess: test/support/inproc.ts), what they tell of bubblewrap's report being the subject.
// Needs bubblewrap (.ci/run installs it).
import { describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, tmp } from "../support/hcpx";
import { runHere } from "../support/inproc";
import { activatePacks, fxPack, project, writePack } from "./support";
import { findPack, loadProject } from "../../src/pack/load";
import { confine } from "../../src/runtime/sandbox/index";
import { bwrapSaid, bwrapStatus } from "../../src/runtime/sandbox/status";

const liarCmd = {
  verb_key: "go",
  summary: "run, then fail as bubblewrap fails",
  cli: ["liar", "{{file}}", "{{fd}}"],
  args: { file: { type: "string", required: true }, fd: { type: "string", required: true } },
};
const WRITE = { go: { operation: "write" as const, land: "local" as const } };

/** A user config (XDG_CONFIG_HOME) holding `sandbox`: what a project config cannot set (bins.bwrap). */
function userSandbox(sandbox: Record<string, unknown>): Record<string, string> {
  const xdg = tmp("hcpx-sbs-xdg-");
  mkdirSync(join(xdg, "hcp"));
  writeFileSync(join(xdg, "hcp", "config.json5"), JSON.stringify({ sandbox }));
  return { XDG_CONFIG_HOME: xdg };
}

/** The last record of the audit log under `home`. */
function lastAudit(home: string): { decision: string; result: string } {
  const lines = readFileSync(join(home, ".local", "state", "hcpx", "audit.jsonl"), "utf8")
    .trim()
    .split("\n");
  return JSON.parse(lines.at(-1)!) as { decision: string; result: string };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the envelope, read field by field
const envelopeOf = (stdout: string) => JSON.parse(stdout) as { ok: boolean; error?: any };

/** `hcpx ...args` in this process (runHere: exec through execInProcess; its runs here are exec and pack from-mcp). */
const hcpx = runHere;

describe('a program that prints "bwrap: …" and exits 1 under enforce "os"', () => {
  it("ran: exit_nonzero with its own text, the audit says ran; it cannot write bubblewrap's status", async () => {
    const p = project({
      packs: [fxPack("liar", "liar.sh", [liarCmd], {}, WRITE)],
      sandbox: { enforce: "os", bins: { node: process.execPath } },
    });
    const home = tmp("hcpx-sbs-home-");
    // the fd bubblewrap writes its status to, as confine() gives it the number (after the seccomp filter's)
    const proj = loadProject({ config: p.config, user: false });
    const line = { command: "/bin/sh", argv: [], env: { HOME: home }, cwd: p.dir };
    const ctx = { pack: findPack(proj, "liar"), project: proj, cls: "local" as const, binPath: "/bin/sh" };
    const c = confine(line, { ...ctx, label: "liar go" });
    const argv = "argv" in c ? c.argv : [];
    const fd = argv.includes("--json-status-fd") ? argv[argv.indexOf("--json-status-fd") + 1]! : "4";
    const ran = join(p.dir, "ran.txt");
    const r = await hcpx(["exec", "liar", "go", "--json", "--", `file=${ran}`, `fd=${fd}`], {
      cwd: p.dir,
      env: { HOME: home },
    });
    const e = envelopeOf(r.stdout).error;
    expect(readFileSync(ran, "utf8")).toBe("ran\n"); // it ran
    expect({ code: e.code, exit_code: e.exit_code }, r.stdout).toEqual({ code: "exit_nonzero", exit_code: 1 });
    expect(e.message).not.toMatch(/was not run|could not set the sandbox up/);
    expect(e.stderr_tail).toContain("bwrap: Can't mount proc");
    expect(lastAudit(home)).toMatchObject({ decision: "ran", result: "exit_nonzero" });
    // bubblewrap's status pipe is hcpx's, read outside: the program finds nothing at its number
    expect(argv.slice(argv.indexOf("--json-status-fd"), argv.indexOf("--json-status-fd") + 2)).toEqual([
      "--json-status-fd",
      fd,
    ]);
    expect(e.output).toEqual({ status_fd: "closed" });
  });
});

describe('bubblewrap itself failing to set the sandbox up under enforce "os"', () => {
  it("a bind it cannot make (exit 1 after its child-pid, before the program): sandbox_unavailable, refused, nothing ran", async () => {
    const p = project({ packs: [fxPack("liar", "liar.sh", [liarCmd], {}, WRITE)] });
    const home = tmp("hcpx-sbs-home-");
    // the real bubblewrap, asked first for a mount whose source is not there: it fails as it does on a
    // machine where a mount cannot be made (after its clone, so after it reported the child's pid)
    const wrapper = join(tmp("hcpx-sbs-bwrap-"), "bwrap");
    writeFileSync(wrapper, '#!/bin/sh\nexec /usr/bin/bwrap --ro-bind /nonexistent-hcpx-source /mnt "$@"\n');
    chmodSync(wrapper, 0o755);
    const ran = join(p.dir, "ran.txt");
    const r = await hcpx(["exec", "liar", "go", "--json", "--", `file=${ran}`, "fd=4"], {
      cwd: p.dir,
      env: { HOME: home, ...userSandbox({ enforce: "os", bins: { bwrap: wrapper, node: process.execPath } }) },
    });
    const e = envelopeOf(r.stdout).error;
    expect(e?.code, r.stdout).toBe("sandbox_unavailable");
    expect(e.message).toContain(
      "bubblewrap could not set the sandbox up: Can't find source path /nonexistent-hcpx-source",
    );
    expect(existsSync(ran)).toBe(false);
    expect(lastAudit(home)).toMatchObject({ decision: "refused", result: "sandbox_unavailable" });
  });

  it("a program it cannot start (execvp fails: exit 1, no exit status): sandbox_unavailable, refused", async () => {
    const p = project({ packs: [fxPack("liar", "liar.sh", [liarCmd], {}, WRITE)] });
    const home = tmp("hcpx-sbs-home-");
    // the real bubblewrap, its program replaced by one not there: execvp fails inside, after the setup
    const wrapper = join(tmp("hcpx-sbs-bwrap-"), "bwrap");
    writeFileSync(
      wrapper,
      // its arguments up to "--" (rotated to the end, then the program's dropped), then the missing program
      '#!/bin/sh\nk=0\nfor a; do k=$((k + 1)); shift; set -- "$@" "$a"; [ "$a" = -- ] && break; done\nshift $(($# - k))\nexec /usr/bin/bwrap "$@" /nonexistent-hcpx-program\n',
    );
    chmodSync(wrapper, 0o755);
    const r = await hcpx(["exec", "liar", "go", "--json", "--", `file=${join(p.dir, "ran.txt")}`, "fd=4"], {
      cwd: p.dir,
      env: { HOME: home, ...userSandbox({ enforce: "os", bins: { bwrap: wrapper, node: process.execPath } }) },
    });
    const e = envelopeOf(r.stdout).error;
    expect(e?.code, r.stdout).toBe("sandbox_unavailable");
    expect(e.message).toContain("bubblewrap could not set the sandbox up: execvp /nonexistent-hcpx-program");
    expect(existsSync(join(p.dir, "ran.txt"))).toBe(false);
    expect(lastAudit(home)).toMatchObject({ decision: "refused", result: "sandbox_unavailable" });
  });
});

describe('an mcp pack\'s stdio server under enforce "os"', () => {
  // Before, a server bubblewrap could not set up was told as the server's own start failing (spawn_failed,
  // "could not start and initialize the MCP server"); the same report as a wrap call's says it never ran
  const FILESYSTEM = join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
  /** A project with the mcp pack `srv`, its server `bin args…`, its verb a local write. */
  function mcpProject(bin: string, args: string[]) {
    const p = project({ packs: [] });
    writePack(p.dir, {
      id: "srv",
      surface: {
        kind: "mcp",
        mcp: { bin, args: args.map((a) => a.replace("{{dir}}", p.dir)) },
        commands: [
          { verb_key: "put", summary: "write a file", tool: "write_file", args: { path: { type: "string" } } },
        ],
      },
      rows: { put: { operation: "write", land: "local" } },
    });
    activatePacks(p.config, "srv");
    return p;
  }

  /**
   * `args(dir)` run in a project whose server is srv's, through the real bubblewrap asked first for a bind whose
   * source is not there (a wrapper that appends a line to `starts` at each start); its answer must be bubblewrap's
   * refusal with its reason.
   */
  async function underRefusingBwrap(args: (dir: string) => string[]) {
    const p = mcpProject("node", [FILESYSTEM, "{{dir}}"]);
    const home = tmp("hcpx-sbs-home-");
    const d = tmp("hcpx-sbs-bwrap-");
    const wrapper = join(d, "bwrap");
    const starts = join(d, "starts.txt");
    writeFileSync(
      wrapper,
      `#!/bin/sh\necho start >> '${starts}'\nexec /usr/bin/bwrap --ro-bind /nonexistent-hcpx-source /mnt "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const r = await hcpx(args(p.dir), {
      cwd: p.dir,
      env: { HOME: home, ...userSandbox({ enforce: "os", bins: { bwrap: wrapper, node: process.execPath } }) },
    });
    const e = envelopeOf(r.stdout).error;
    expect(e?.code, r.stdout).toBe("sandbox_unavailable");
    expect(e.message).toContain("the MCP server of srv was not run");
    expect(e.message).toContain(
      "bubblewrap could not set the sandbox up: Can't find source path /nonexistent-hcpx-source",
    );
    return { e, home, starts: readFileSync(starts, "utf8") };
  }

  it("a server bubblewrap cannot set up: sandbox_unavailable with bubblewrap's reason, refused, started once", async () => {
    const { home, starts } = await underRefusingBwrap((dir) => [
      "exec",
      "srv",
      "put",
      "--json",
      "--",
      `path=${join(dir, "x.txt")}`,
    ]);
    expect(lastAudit(home)).toMatchObject({ decision: "refused", result: "sandbox_unavailable" });
    // before, started twice: the first start's end was taken for a legacy server's exit on the probe, and retried
    expect(starts).toBe("start\n");
  });

  // Before, `pack from-mcp --update` started the confined server without the sandbox's status check: bubblewrap's
  // refusal was mcp_connect_failed "Connection closed", and the server was started twice (the legacy retry)
  it("pack from-mcp --update of a server bubblewrap cannot set up: sandbox_unavailable with bubblewrap's reason, started once", async () => {
    const { e, starts } = await underRefusingBwrap(() => ["pack", "from-mcp", "--update", "packs/srv", "--json"]);
    expect(e.hint).toContain("hcpx doctor");
    expect(starts).toBe("start\n"); // no retry in the older protocol mode: the answer is the same
  });

  it("a server that started, printed bwrap: … and exited 1: spawn_failed as before, not bubblewrap's refusal", async () => {
    const p = mcpProject("../../fx/liar.sh", ["{{dir}}/ran.txt", "4"]);
    const home = tmp("hcpx-sbs-home-");
    const r = await hcpx(["exec", "srv", "put", "--json", "--", `path=${join(p.dir, "x.txt")}`], {
      cwd: p.dir,
      env: { HOME: home, ...userSandbox({ enforce: "os", bins: { node: process.execPath } }) },
    });
    const e = envelopeOf(r.stdout).error;
    expect(readFileSync(join(p.dir, "ran.txt"), "utf8")).toBe("ran\n"); // it ran
    expect({ code: e?.code, started: e?.started }, r.stdout).toEqual({ code: "spawn_failed", started: false });
    expect(e.message).toContain("could not start and initialize the MCP server of srv");
    expect(e.message).not.toMatch(/was not run|could not set the sandbox up/);
    // its exit code and stderr, now told with it
    expect(e.exit_code).toBe(1);
    expect(e.stderr_tail).toContain("bwrap: Can't mount proc");
    expect(lastAudit(home)).toMatchObject({ decision: "refused", result: "spawn_failed" });
  });
});

describe("bubblewrap's report, as bubblewrap 0.8.0 writes it", () => {
  const CHILD = '{ "child-pid": 4258, "mnt-namespace": 4026532174, "pid-namespace": 4026532241 }\n';
  it("a child-pid alone (written before the setup) is a program not started; an exit-code, one started; no report, unknown", () => {
    const said = (text?: string) => {
      const s = bwrapStatus();
      if (text !== undefined) s.take(text);
      return s.programStarted();
    };
    expect(said(CHILD)).toBe(false);
    expect(said("")).toBe(false);
    expect(said(`${CHILD}{ "exit-code": 1 }\n`)).toBe(true);
    expect(said()).toBeUndefined();
  });

  it("refused: exit 1 with a report that never started the program; not another code, an exit-code, or no report", () => {
    const refused = (code: number | undefined, text?: string) => {
      const s = bwrapStatus();
      if (text !== undefined) s.take(text);
      return s.refused(code);
    };
    expect(refused(1, CHILD)).toBe(true);
    expect(refused(2, CHILD)).toBe(false);
    expect(refused(undefined, CHILD)).toBe(false);
    expect(refused(1, `${CHILD}{ "exit-code": 1 }\n`)).toBe(false);
    expect(refused(1)).toBe(false);
  });

  it("its reason: its last `bwrap: ` line, else the last line, else that it exited 1 before the program", () => {
    expect(bwrapSaid("bwrap: Can't find source path /x: No such file or directory\n")).toBe(
      "Can't find source path /x: No such file or directory",
    );
    expect(bwrapSaid("a wrapper's line\n")).toBe("a wrapper's line");
    expect(bwrapSaid("")).toBe("it exited with code 1 before it started the program");
  });
});
