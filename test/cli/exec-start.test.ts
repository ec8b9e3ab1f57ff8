// issue 29: what `hcpx exec` loads on its start path. Node's builtins cost
// instructions to load on every call (callgrind: node:crypto ~10 M, node:os and
// the sandbox module ~2 M); exec needs neither unless a question is asked or
// sandbox.enforce is "os". Node itself lists what it loaded (process.moduleLoadList).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFd } from "../../src/cli/output";
import { HCPX, REPO, run, scratchProject, tmp } from "../support/hcpx";

/** whether script(1) is here to give a command a terminal */
const HAS_SCRIPT = spawnSync("script", ["--version"]).status === 0;

/** A calc-wrap project, a HOME, a file the preload reports into, and the preload script `body(out)` writes. */
function preloaded(name: string, body: (out: string) => string) {
  const p = scratchProject({ packs: ["calc-wrap"] });
  const home = tmp(`hcpx-${name}-home-`);
  const out = join(tmp(`hcpx-${name}-`), "report.txt");
  const preload = join(tmp(`hcpx-${name}-`), "preload.cjs");
  writeFileSync(preload, body(JSON.stringify(out)));
  return { p, home, out, preload };
}

/**
 * A calc-wrap project, a HOME, and test/fixtures/preload/loaded-at-exit.cjs with the environment that has it
 * write what the process loaded at its exit to `out`: Node's own list, or the CommonJS modules' base names.
 */
function loadedAtExit(name: string, of: "moduleLoadList" | "require.cache") {
  const p = scratchProject({ packs: ["calc-wrap"] });
  const home = tmp(`hcpx-${name}-home-`);
  const out = join(tmp(`hcpx-${name}-`), "report.txt");
  const preload = join(REPO, "test", "fixtures", "preload", "loaded-at-exit.cjs");
  const env = { LOADED_AT_EXIT: out, ...(of === "require.cache" ? { LOADED_AT_EXIT_OF: of } : {}) };
  return { p, home, out, preload, env };
}

/**
 * A preload's body: appends to the report `o` the name of each of `target`'s `keys` (getters, like
 * process.stdout or Node's lazily defined globals) the first time anything reads it.
 */
const firstReads = (target: "process" | "globalThis", keys: string[]) => (o: string) =>
  `const fs = require("node:fs");
for (const k of ${JSON.stringify(keys)}) {
  const d = Object.getOwnPropertyDescriptor(${target}, k);
  Object.defineProperty(${target}, k, { configurable: true, enumerable: d.enumerable, get() {
    fs.appendFileSync(${o}, k + "\\n");
    const v = d.get ? d.get.call(${target}) : d.value;
    Object.defineProperty(${target}, k, { value: v, configurable: true, writable: true, enumerable: d.enumerable });
    return v;
  } });
}
`;

describe("exec's start path", () => {
  it("a plain wrap call loads neither node:crypto nor node:os, the audit log off or on (its args hash is @noble/hashes' sha256)", async () => {
    const { p, home, out, preload, env } = loadedAtExit("start", "moduleLoadList");
    const bin = HCPX;
    const modules = async (audit: string | undefined) => {
      const r = await run(process.execPath, ["-r", preload, bin, "exec", "calc-wrap", "ping", "--json"], {
        cwd: p.dir,
        env: { ...env, HOME: home, ...(audit ? { HCPX_AUDIT_LOG: audit } : {}) },
      });
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
      return readFileSync(out, "utf8").split("\n");
    };
    // the audit log off: nothing but the call
    const off = await modules("off");
    expect(off).toContain("NativeModule child_process");
    expect(off.filter((m) => /^NativeModule (crypto|os)$/.test(m))).toEqual([]);
    // the audit log on (the default): the record is written, with its args hash, and node:crypto still not loaded
    const on = await modules(undefined);
    expect(on).toContain("NativeModule child_process");
    expect(on.filter((m) => /^NativeModule (crypto|os)$/.test(m))).toEqual([]);
    const log = readFileSync(join(home, ".local", "state", "hcpx", "audit.jsonl"), "utf8")
      .trim()
      .split("\n");
    const rec = JSON.parse(log.at(-1)!) as { pack: string; verb: string; args: unknown; args_sha256: string };
    expect(rec).toMatchObject({ pack: "calc-wrap", verb: "ping", args: [] });
    // sha256 of the canonical JSON "[]"
    expect(rec.args_sha256).toBe("4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945");
  });
});

describe("exec's args hash", () => {
  it("a plain exec builds no table of hex digits at load: the hash's bytes and hex are Buffer's, not @noble/hashes' utf8ToBytes/bytesToHex", async () => {
    // records each Array.from of 256 entries (noble's utils module builds its hex table so, at load); Node's own
    // modules call their captured Array.from, not this one
    const { p, home, out, preload } = preloaded(
      "hex",
      (o) => `const fs = require("node:fs");
const from = Array.from;
Array.from = function (a, ...rest) {
  if (a && a.length === 256) fs.appendFileSync(${o}, "Array.from of 256\\n");
  return from.call(this, a, ...rest);
};
`,
    );
    const r = await run(process.execPath, ["-r", preload, HCPX, "exec", "calc-wrap", "ping", "--json"], {
      cwd: p.dir,
      env: { HOME: home },
    });
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    expect(existsSync(out) ? readFileSync(out, "utf8") : "").toBe("");
  });
});

describe("exec's audit record", () => {
  it("its time stamp is made while the bin runs: after the bin's exit, no Date#toISOString on the way to the envelope", async () => {
    // notes each toISOString call, and whether the bin (the first child) had exited by then; the exit listener
    // goes on the child when it is spawned, before hcpx's own, so it is told first
    const { p, home, out, preload } = preloaded(
      "iso",
      (o) => `const fs = require("node:fs");
let exited = false;
const iso = Date.prototype.toISOString;
Date.prototype.toISOString = function () {
  fs.appendFileSync(${o}, (exited ? "after" : "before") + " the bin's exit\\n");
  return iso.call(this);
};
const cp = require("node:child_process");
const spawn = cp.ChildProcess.prototype.spawn;
cp.ChildProcess.prototype.spawn = function () {
  const r = spawn.apply(this, arguments);
  this.once("exit", () => (exited = true));
  return r;
};
`,
    );
    const t0 = Date.now();
    const r = await run(process.execPath, ["-r", preload, HCPX, "exec", "calc-wrap", "ping", "--json"], {
      cwd: p.dir,
      env: { HOME: home },
    });
    expect(r.stdout).toBe('{"ok":true,"data":{"pong":true}}\n');
    expect(readFileSync(out, "utf8").split("\n").filter(Boolean)).toEqual(["before the bin's exit"]);
    // and it is the call's start, as before
    const log = readFileSync(join(home, ".local", "state", "hcpx", "audit.jsonl"), "utf8")
      .trim()
      .split("\n");
    const rec = JSON.parse(log.at(-1)!) as { time: string; pack: string; duration_ms: number };
    expect(rec.pack).toBe("calc-wrap");
    expect(Date.parse(rec.time)).toBeGreaterThanOrEqual(t0 - 1);
    expect(Date.parse(rec.time) + rec.duration_ms).toBeLessThanOrEqual(Date.now() + 1);
  });
});

describe("exec's cancel", () => {
  it("a plain exec never builds an AbortController or AbortSignal: its cancel is a StopSignal (src/runtime/cancel.ts)", async () => {
    // records each of the two globals the first time anything reads it (Node defines both lazily)
    const {
      p,
      home,
      out: log,
      preload,
    } = preloaded("abort", firstReads("globalThis", ["AbortController", "AbortSignal"]));
    const r = await run(process.execPath, ["-r", preload, HCPX, "exec", "calc-wrap", "ping", "--json"], {
      cwd: p.dir,
      env: { HOME: home },
    });
    expect(r.stdout).toBe('{"ok":true,"data":{"pong":true}}\n');
    const read = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
    expect(read).toEqual([]);
  });
});

describe("exec's code cache writer", () => {
  it("dist/cache-save.cjs (the write door, src/cli/cache-save.ts) is loaded only by a call that writes a code cache", async () => {
    // the CommonJS modules this process loaded, at exit
    const { p, home, out, preload, env: atExit } = loadedAtExit("save", "require.cache");
    const loaded = async (env: Record<string, string>) => {
      const r = await run(process.execPath, ["-r", preload, HCPX, "exec", "calc-wrap", "ping", "--json"], {
        cwd: p.dir,
        env: { ...atExit, HOME: home, ...env },
      });
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
      return readFileSync(out, "utf8").split("\n");
    };
    // the shipped cache is taken: nothing written, the writer never read
    const shipped = await loaded({});
    expect(shipped).toContain("hcpx.cjs");
    expect(shipped).not.toContain("cache-save.cjs");
    expect(existsSync(join(home, ".cache", "hcpx", "v8"))).toBe(false);
    // none usable (the shipped one skipped): the user's is written, through the writer
    expect(await loaded({ HCPX_NO_SHIPPED_CACHE: "1" })).toContain("cache-save.cjs");
    expect(existsSync(join(home, ".cache", "hcpx", "v8"))).toBe(true);
    // and read back: the writer is not loaded again
    expect(await loaded({ HCPX_NO_SHIPPED_CACHE: "1" })).not.toContain("cache-save.cjs");
  });
});

describe("exec's envelope on fd 1", () => {
  it("a plain exec writes its envelope without building process.stdout (output.ts useFdOut)", async () => {
    // records each of process.stdout / stderr the first time anything builds it
    const { p, home, out: log, preload } = preloaded("fd1", firstReads("process", ["stdout", "stderr"]));
    const r = await run(process.execPath, ["-r", preload, HCPX, "exec", "calc-wrap", "ping", "--json"], {
      cwd: p.dir,
      env: { HOME: home, HCPX_AUDIT_LOG: "off" },
    });
    expect(r.stdout).toBe('{"ok":true,"data":{"pong":true}}\n');
    const built = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
    expect(built).not.toContain("stdout");
    // the readable form takes the same way
    const h = await run(process.execPath, ["-r", preload, HCPX, "exec", "calc-wrap", "ping"], {
      cwd: p.dir,
      env: { HOME: home, HCPX_AUDIT_LOG: "off" },
    });
    expect(h.stdout).toBe('{\n  "pong": true\n}\n');
    expect(readFileSync(log, "utf8").split("\n")).not.toContain("stdout");
  });

  it("a plain adopt writes its report the same way, and asks whether stdout is a terminal without building it: coloured on a terminal only", async () => {
    const { p, home, out: log, preload } = preloaded("adopt-fd1", firstReads("process", ["stdout", "stderr"]));
    // colour as a terminal would get it (the hermetic env's NO_COLOR off): a pipe is no terminal
    const env = { HOME: home, NO_COLOR: undefined, FORCE_COLOR: undefined };
    const r = await run(process.execPath, ["-r", preload, HCPX, "adopt", "claude"], { cwd: p.dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("+++ b/.mcp.json\n");
    expect(r.stdout).not.toContain("\x1b[");
    expect(existsSync(log) ? readFileSync(log, "utf8").split("\n") : []).not.toContain("stdout");
  });

  // on a terminal (a pty from script(1), util-linux's: Essential on Debian), the same report in colour; reported
  // as skipped where script(1) is missing, and a failure in CI, which must run it
  it.skipIf(!HAS_SCRIPT && !process.env.CI)(
    "a plain adopt on a terminal writes the same report in colour",
    async () => {
      expect(HAS_SCRIPT, "script(1) (util-linux) is not installed").toBe(true);
      const p = scratchProject({ packs: ["calc-wrap"] });
      const home = tmp("hcpx-adopt-tty-home-");
      const env = { HOME: home, NO_COLOR: undefined, FORCE_COLOR: undefined };
      const cmd = [process.execPath, HCPX, "adopt", "claude"].map((a) => JSON.stringify(a)).join(" ");
      const t = await run("script", ["-qec", cmd, "/dev/null"], { cwd: p.dir, env });
      expect(t.code, t.stdout).toBe(0);
      expect(t.stdout).toContain("+++ b/.mcp.json");
      expect(t.stdout).toContain("\x1b[");
    },
  );

  it("writeFd: every byte across short writes; on a failed write the rest, exactly, goes to the stream", () => {
    const text = "é→" + "x".repeat(10) + "😀\n";
    const bytes = Buffer.from(text, "utf8");
    // a pipe that takes 3 bytes at a time
    const got: number[] = [];
    expect(
      writeFd(text, (buf, off) => {
        const n = Math.min(3, buf.length - off);
        got.push(...buf.subarray(off, off + n));
        return n;
      }),
    ).toBe(true);
    expect(Buffer.from(got).equals(bytes)).toBe(true);
    // full after 7 bytes (EAGAIN): the stream gets bytes 7.., nothing twice, nothing lost
    const head: number[] = [];
    let rest: Buffer | undefined;
    const ok = writeFd(
      text,
      (buf, off) => {
        if (off >= 7)
          throw Object.assign(new Error("EAGAIN: resource temporarily unavailable, write"), { code: "EAGAIN" });
        const n = Math.min(7 - off, buf.length - off);
        head.push(...buf.subarray(off, off + n));
        return n;
      },
      (r) => (rest = Buffer.from(r)),
    );
    expect(ok).toBe(false);
    expect(Buffer.concat([Buffer.from(head), rest!]).equals(bytes)).toBe(true);
    expect(head).toHaveLength(7);
    // a write that takes nothing is not retried forever: the stream gets it all
    let all: Buffer | undefined;
    expect(
      writeFd(
        text,
        () => 0,
        (r) => (all = Buffer.from(r)),
      ),
    ).toBe(false);
    expect(all!.equals(bytes)).toBe(true);
  });
});
