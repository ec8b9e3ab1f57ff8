// A command ends when its caller ends (issue 9 §5), with real processes: the
// fixture bin tree.mjs starts a child in its process group and a grandchild in
// its own session (setsid), writes their pids, and would append to an effect
// file 1.5 s later. A signal to `hcpx exec`, an MCP notifications/cancelled, and
// `hcpx mcp` losing its stdin must each leave none of the three running, and the
// effect file never written.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnHcpx } from "../support/cli";
import { tmp } from "../support/project";
import { startMcp } from "../mcp/support";
import { descendants, terminateTree } from "../../src/runtime/wrap";
import { abortSignalOf, NEVER, StopSignal } from "../../src/runtime/cancel";
import { alive, fxPack, project } from "./support";
import { rawMcp } from "../support/raw-mcp";

interface Tree {
  pid: number;
  child: number;
  grandchild: number;
}

const treeCmd = {
  verb_key: "run",
  summary: "start a tree and wait",
  cli: ["tree", "{{pid}}", "{{effect}}"],
  args: { pid: { type: "string", required: true }, effect: { type: "string", required: true } },
};
let dir: string;
const started: number[] = [];

beforeAll(() => {
  dir = project({
    packs: [
      fxPack("tree", "tree.mjs", [treeCmd], { wrap: { output: "text", timeout_ms: 20_000 } }),
      fxPack("stubborn", "tree.mjs", [treeCmd], {
        wrap: { output: "text", timeout_ms: 20_000, agent_env: { TREE_IGNORE_TERM: "1" } },
      }),
    ],
  }).dir;
});

afterAll(() => {
  // never leave a tree behind, whatever the test saw (after the file: the cases of a
  // describe run at once, and a case's tree must not be killed under it by another's end)
  for (const p of started.splice(0)) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      /* gone */
    }
  }
});

async function waitFile(file: string, ms = 10_000): Promise<Tree> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (existsSync(file)) {
      const t = JSON.parse(readFileSync(file, "utf8")) as Tree;
      started.push(t.pid, t.child, t.grandchild);
      return t;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${file} never appeared`);
}

const running = (t: Tree) => [t.pid, t.child, t.grandchild].filter(alive);

/**
 * Until the effect can no longer be written, at most 1.7 s (past the 1.5 s at
 * which it would be): its one writer is tree.mjs's root (`t.pid`); once that
 * is gone, the effect file is what it will stay.
 */
async function settled(t: Tree): Promise<void> {
  for (const end = Date.now() + 1700; alive(t.pid) && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
}

function files(): { pid: string; effect: string } {
  const d = tmp("hcpx-cancel-");
  return { pid: join(d, "tree.json"), effect: join(d, "effect.txt") };
}

function execTree(
  pack: string,
  f: { pid: string; effect: string },
  json = true,
): {
  child: ChildProcessWithoutNullStreams;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
} {
  const child = spawnHcpx(
    ["exec", pack, "run", ...(json ? ["--json"] : []), "--", `pid=${f.pid}`, `effect=${f.effect}`],
    { cwd: dir },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (r) =>
      child.on("close", (code, signal) => {
        clearTimeout(guard);
        r({ code, signal, stdout, stderr });
      }),
  );
  return { child, done };
}

describe.concurrent("hcpx exec: a signal ends the bin's whole tree", () => {
  for (const [sig, pack] of [
    ["SIGTERM", "tree"],
    ["SIGINT", "tree"],
    ["SIGHUP", "tree"],
    ["SIGTERM", "stubborn"],
  ] as const) {
    it(`${sig} to hcpx exec (${pack === "stubborn" ? "a tree that ignores SIGTERM" : "a plain tree"}): cancelled envelope, exit 1, no process of the tree left, no side effect`, async () => {
      const f = files();
      const run = execTree(pack, f);
      const t = await waitFile(f.pid);
      expect(running(t)).toHaveLength(3);
      const t0 = Date.now();
      run.child.kill(sig);
      const r = await run.done;
      const took = Date.now() - t0;
      // by the time hcpx has exited, the tree is gone (grace 1 s + SIGKILL, bounded)
      expect(running(t), `still running after hcpx exited: ${JSON.stringify(t)}`).toEqual([]);
      expect(took).toBeLessThan(5000);
      expect(r.signal).toBeNull();
      expect(r.code).toBe(1);
      const env = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; message: string } };
      expect(env.ok).toBe(false);
      expect(env.error.code).toBe("cancelled");
      expect(env.error.message).toContain(sig);
      await settled(t);
      expect(existsSync(f.effect)).toBe(false);
    });
  }

  it("readable form: the cancel is reported on stderr, exit 1", async () => {
    const f = files();
    const run = execTree("tree", f, false);
    const t = await waitFile(f.pid);
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(running(t)).toEqual([]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error \[cancelled\]/);
  });
});

describe.concurrent("hcpx mcp: a cancelled call and a lost client leave no bin running", () => {
  it("notifications/cancelled (the SDK client's AbortSignal) stops the bin's tree; the next call still works", async () => {
    const s = await startMcp({ dir });
    try {
      const f = files();
      const ac = new AbortController();
      const call = s.client.callTool(
        { name: "hcp", arguments: { pack: "tree", verb: "run", args: { pid: f.pid, effect: f.effect } } },
        undefined,
        { signal: ac.signal, timeout: 30_000 },
      );
      const caught = call.catch((e: unknown) => e);
      const t = await waitFile(f.pid);
      expect(running(t)).toHaveLength(3);
      ac.abort("test cancels");
      expect(await caught).toBeDefined();
      // bounded: SIGTERM, 1 s grace, SIGKILL
      for (let i = 0; i < 150 && running(t).length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(running(t), `still running: ${JSON.stringify(t)}`).toEqual([]);
      await settled(t);
      expect(existsSync(f.effect)).toBe(false);
      // the server is healthy: a later call runs (and is cancelled in turn)
      const g = files();
      const ac2 = new AbortController();
      const second = s.client
        .callTool(
          { name: "hcp", arguments: { pack: "stubborn", verb: "run", args: { pid: g.pid, effect: g.effect } } },
          undefined,
          { signal: ac2.signal, timeout: 30_000 },
        )
        .catch((e: unknown) => e);
      const t2 = await waitFile(g.pid);
      ac2.abort();
      await second;
      for (let i = 0; i < 200 && running(t2).length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(running(t2)).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("stdin closed mid-call: the server stops the tree and only then exits 0", async () => {
    const f = files();
    const child = spawnHcpx(["mcp"], { cwd: dir });
    const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const exited = new Promise<{ code: number | null; t: Tree | undefined }>((r) =>
      child.on("exit", (code) => r({ code, t: undefined })),
    );
    rawMcp(child.stdin, {
      method: "tools/call",
      params: { name: "hcp", arguments: { pack: "stubborn", verb: "run", args: { pid: f.pid, effect: f.effect } } },
    });
    const t = await waitFile(f.pid);
    child.stdin.end();
    const r = await exited;
    clearTimeout(guard);
    // checked at the moment the server exited: nothing of the tree is left
    expect(running(t), `still running when hcpx mcp exited: ${JSON.stringify(t)}`).toEqual([]);
    expect(r.code).toBe(0);
    await settled(t);
    expect(existsSync(f.effect)).toBe(false);
  });
});

describe("the tree walk and its portable fallback", () => {
  it("ps (the fallback where /proc is absent) finds the same descendants as /proc, and terminateTree ends them all", async () => {
    const f = files();
    const bin = spawn(process.execPath, [join(dir, "fx", "tree.mjs"), f.pid], {
      detached: true,
      stdio: "ignore",
      env: { ...process.env, TREE_IGNORE_TERM: "1" },
    });
    const t = await waitFile(f.pid);
    expect(t.pid).toBe(bin.pid);
    const viaProc = descendants(t.pid, "proc").sort();
    const viaPs = descendants(t.pid, "ps").sort();
    expect(viaProc).toEqual([t.child, t.grandchild].sort());
    expect(viaPs).toEqual(viaProc);
    const t0 = Date.now();
    await terminateTree(t.pid, 300);
    expect(Date.now() - t0).toBeLessThan(3000);
    for (let i = 0; i < 50 && running(t).length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(running(t)).toEqual([]);
  });
});

describe("exec's StopSignal and abortSignalOf (src/runtime/cancel.ts)", () => {
  it("aborts once with its reason; listeners run once, in order; a removed one or one added after never runs", () => {
    const s = new StopSignal();
    const ran: string[] = [];
    const a = () => ran.push("a");
    const b = () => ran.push("b");
    const gone = () => ran.push("gone");
    s.addEventListener("abort", a, { once: true });
    s.addEventListener("abort", b);
    s.addEventListener("abort", a); // the same listener twice is one listener, as on an EventTarget
    s.addEventListener("abort", gone);
    s.removeEventListener("abort", gone);
    expect([s.aborted, s.reason]).toEqual([false, undefined]);
    s.abort("SIGTERM");
    s.abort("SIGINT");
    expect([s.aborted, s.reason, ran]).toEqual([true, "SIGTERM", ["a", "b"]]);
    s.addEventListener("abort", () => ran.push("late"));
    s.abort("SIGHUP");
    expect(ran).toEqual(["a", "b"]);
  });

  it("abortSignalOf: an AbortSignal as it is; a StopSignal's follows it with its reason; an aborted one is aborted; NEVER never", () => {
    const real = new AbortController().signal;
    expect(abortSignalOf(real)).toBe(real);
    const s = new StopSignal();
    const follows = abortSignalOf(s);
    expect(follows).toBeInstanceOf(AbortSignal);
    expect(follows.aborted).toBe(false);
    s.abort("SIGINT");
    expect([follows.aborted, follows.reason]).toEqual([true, "SIGINT"]);
    const late = abortSignalOf(s);
    expect([late.aborted, late.reason]).toEqual([true, "SIGINT"]);
    const never = abortSignalOf(NEVER);
    expect(never.aborted).toBe(false);
    expect(Object.isFrozen(NEVER)).toBe(true);
  });
});
