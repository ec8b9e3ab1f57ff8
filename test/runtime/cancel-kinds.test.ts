// Every adapter kind is cancellable (issue 22 §7), with real processes, one
// table of cases over the adapter table (src/pack/adapters.ts): a kind added
// there without a case here fails the first test. Each callable kind has a
// `run` verb, a write, that starts work whose side effect lands 1.5 s later
// (wrap: the fixture bin tree.sh; composite: a module that starts tree.sh as
// a child of hcpx and ignores ctx.signal; openapi: a loopback service that
// records the write 1.5 s after the request unless the request was dropped;
// mcp: a stdio server that starts tree.sh and ignores notifications/cancelled).
// tree.sh is tree.mjs (test/runtime/cancel.test.ts's) as a shell script: the
// same tree of three processes, without three Node starts for each of ~16 trees.
// SIGTERM, SIGINT and SIGHUP to `hcpx exec`, an MCP notifications/cancelled
// to `hcpx mcp`, and `hcpx mcp` losing its stdin mid-call must each stop the
// call: `cancelled` (exit 1 for exec, never ok),
// within the README's bound, with no process of the tree left and the write
// never landed. A composite module that ignores ctx.signal (`run`) is stopped
// from outside: `hcpx exec` on a signal, and `hcpx mcp` losing its stdin, stop
// what the cancelled call left running under hcpx before they exit.
import { type ChildProcessWithoutNullStreams } from "node:child_process";
import { appendFileSync, cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnHcpx } from "../support/cli";
import { REPO, tmp } from "../support/hcpx";
import { startMcp } from "../mcp/support";
import { ADAPTERS } from "../../src/pack/adapters/index";
import { alive, fxPack, project, type MiniPack } from "./support";
import { rawMcp } from "../support/raw-mcp";
import { mcpLine } from "../support/mcp-lines.mjs";

interface Tree {
  pid: number;
  child: number;
  grandchild: number;
}

const write = { run: { operation: "write", land: "local", confirm: false } };
const runArgs = { pid: { type: "string", required: true }, effect: { type: "string", required: true } };

interface KindCase {
  /** the pack of this kind (undefined: the kind has no commands, nothing can be called) */
  pack?: (port: number) => MiniPack;
  /** the verb an MCP cancel uses (an in-process composite can only be asked to stop) */
  mcpVerb?: string;
  /** whether the call starts a process tree that must be gone */
  tree: boolean;
  /** what its cancelled answer says became of it, as its kind stops (src/runtime/wrap.ts cancelled()) */
  stopped?: string;
}

const CASES: Record<string, KindCase> = {
  wrap: {
    tree: true,
    stopped: "it was stopped with its process group and descendants",
    pack: () =>
      fxPack(
        "k-wrap",
        "tree.sh",
        [{ verb_key: "run", summary: "start a tree", cli: ["tree", "{{pid}}", "{{effect}}"], args: runArgs }],
        { wrap: { output: "text", timeout_ms: 20_000 } },
        write,
      ),
  },
  composite: {
    tree: true,
    // in hcpx's own process: told to stop, never killed (hcpx exec stops what it left before exiting)
    stopped: "its verb was told to stop (ctx.signal); what it started and did not stop may still run",
    mcpVerb: "polite",
    pack: () => ({
      id: "k-composite",
      surface: {
        kind: "composite",
        composite: { module: "./tree.mjs" },
        commands: ["run", "polite"].map((v) => ({ verb_key: v, summary: "start a tree", args: runArgs })),
      },
      rows: { ...write, polite: write.run },
    }),
  },
  openapi: {
    tree: false,
    stopped: "its HTTP request was aborted; the service may already have acted on it",
    pack: (port) => ({
      id: "k-openapi",
      surface: {
        kind: "openapi",
        openapi: { base_url: `http://127.0.0.1:${port}`, timeout_ms: 20_000 },
        commands: [
          {
            verb_key: "run",
            summary: "a slow write",
            http: { method: "POST", path: "/run" },
            args: { pid: { ...runArgs.pid, in: "body" }, effect: { ...runArgs.effect, in: "body" } },
          },
        ],
      },
      rows: write,
    }),
  },
  mcp: {
    tree: true,
    stopped: "it was stopped with its process group and descendants",
    pack: () => ({
      id: "k-mcp",
      surface: {
        kind: "mcp",
        mcp: { bin: "../../fx/mcp-tree.mjs", timeout_ms: 20_000, agent_env: { MCP_TREE_IGNORE_TERM: "1" } },
        commands: [{ verb_key: "run", summary: "start a tree", tool: "run", args: runArgs }],
      },
      rows: write,
    }),
  },
  sense_only: { tree: false },
};

let dir: string;
let server: Server;
const started: number[] = [];
/** per effect file, the openapi service's request: settled once it was dropped or its write landed */
const decided = new Map<string, Promise<void>>();

beforeAll(async () => {
  // the openapi kind's service: a write lands 1.5 s after the request, only if the request is still there
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      const { pid, effect } = JSON.parse(body) as { pid: string; effect: string };
      writeFileSync(pid, JSON.stringify({ pid: 0, child: 0, grandchild: 0 }));
      let gone = false;
      let decide!: () => void;
      decided.set(effect, new Promise<void>((r) => (decide = r)));
      // dropped before the write: it can never land (the request is what the write waits on)
      res.on("close", () => {
        gone = true;
        decide();
      });
      setTimeout(() => {
        if (gone) return;
        appendFileSync(effect, "ran\n");
        decide();
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ landed: true }));
      }, 1500);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const packs = Object.values(CASES).flatMap((c) => (c.pack ? [c.pack(port)] : []));
  packs.push({ id: "k-sense", surface: { kind: "sense_only", stimuli: [{ id: "tick", summary: "a tick" }] } });
  const p = project({ packs });
  dir = p.dir;
  cpSync(join(REPO, "test", "fixtures", "composite", "tree.mjs"), join(dir, "packs", "k-composite", "tree.mjs"));
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

// after the file, not after each case: the cases run at once (describe.concurrent), and a case's
// tree must not be killed under it by another case's end
afterAll(() => {
  for (const p of started.splice(0)) {
    try {
      if (p > 0) process.kill(p, "SIGKILL");
    } catch {
      /* gone */
    }
  }
});

/**
 * The `hcpx mcp` the notifications/cancelled cases call, one for the file: a cancel leaves the server
 * going on (each case pings it after its own call was stopped), so the cases share one start.
 */
let mcpServer: ReturnType<typeof startMcp> | undefined;
const sharedMcp = () => (mcpServer ??= startMcp({ dir }));
afterAll(async () => {
  if (mcpServer) await (await mcpServer).close();
});

async function waitFile(file: string, ended?: Promise<Done>, ms = 10_000): Promise<Tree> {
  let over: Done | undefined;
  void ended?.then((d) => (over = d));
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (over) throw new Error(`hcpx exited before the call started: ${over.stdout}`);
    if (existsSync(file)) {
      try {
        const t = JSON.parse(readFileSync(file, "utf8")) as Tree;
        started.push(t.pid, t.child, t.grandchild);
        return t;
      } catch {
        /* half written */
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${file} never appeared`);
}

const running = (t: Tree) => [t.pid, t.child, t.grandchild].filter((p) => p > 0 && alive(p));

/**
 * Until the write can no longer land, at most 1.8 s (past the 1.5 s at which
 * it would): the one writer is tree.sh's root (`t.pid`) for a tree, the
 * service's pending request for openapi. Once that is gone, the effect file
 * is what it will stay.
 */
async function settled(t: Tree, f: { effect: string }): Promise<void> {
  const service = decided.get(f.effect);
  const end = Date.now() + 1800;
  if (service) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([service, new Promise<void>((r) => (timer = setTimeout(r, 1800)))]);
    return clearTimeout(timer);
  }
  while (t.pid > 0 && alive(t.pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
}

function files(): { pid: string; effect: string } {
  const d = tmp("hcpx-cancel-kind-");
  return { pid: join(d, "started.json"), effect: join(d, "effect.txt") };
}

type Done = { code: number | null; signal: NodeJS.Signals | null; stdout: string };

function exec(
  pack: string,
  verb: string,
  f: { pid: string; effect: string },
): { child: ChildProcessWithoutNullStreams; done: Promise<Done> } {
  const child = spawnHcpx(["exec", pack, verb, "--json", "--", `pid=${f.pid}`, `effect=${f.effect}`], { cwd: dir });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.resume();
  const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const done = new Promise<Done>((r) =>
    child.on("close", (code, signal) => {
      clearTimeout(guard);
      r({ code, signal, stdout });
    }),
  );
  return { child, done };
}

const packOf = (kind: string) => `k-${kind === "sense_only" ? "sense" : kind}`;

/**
 * `hcpx mcp` loses its stdin while `verb` of the `kind` pack runs: the call
 * must be stopped before hcpx exits (the tree gone, when there is one) and
 * the write never land.
 */
async function stdinLoss(kind: string, verb: string, tree: boolean): Promise<void> {
  const f = files();
  const child = spawnHcpx(["mcp"], { cwd: dir });
  child.stdout.resume();
  child.stderr.resume();
  const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  rawMcp(child.stdin, {
    method: "tools/call",
    params: { name: "hcp", arguments: { pack: packOf(kind), verb, args: { pid: f.pid, effect: f.effect } } },
  });
  const t = await waitFile(f.pid);
  child.stdin.end();
  const code = await exited;
  clearTimeout(guard);
  if (tree) expect(running(t), `still running when hcpx mcp exited: ${JSON.stringify(t)}`).toEqual([]);
  expect(code).toBe(0);
  await settled(t, f);
  expect(existsSync(f.effect), "the write landed").toBe(false);
}

/**
 * Two calls in flight when `hcpx mcp` loses its stdin: an mcp-kind call whose server ignores SIGTERM (its
 * stop takes the grace, CANCEL_GRACE_MS), then a careless composite call (`run`, which ignores ctx.signal)
 * whose tree writes 800 ms after it is up (TREE_EFFECT_DELAY_MS, which hcpx passes on to the module's
 * child). What the careless call left running must be stopped at once, not after the slow call's grace:
 * else its write lands after the client is gone. The mcp call's own write is not this case's subject
 * (it may land before stdin ends: its tree is up first).
 */
async function stdinLossBesideSlowStop(): Promise<void> {
  const slow = files();
  const careless = files();
  const child = spawnHcpx(["mcp"], { cwd: dir, env: { TREE_EFFECT_DELAY_MS: "800" } });
  child.stdout.resume();
  child.stderr.resume();
  const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const call = (id: number, kind: string, f: { pid: string; effect: string }) =>
    mcpLine({
      id,
      method: "tools/call",
      params: { name: "hcp", arguments: { pack: packOf(kind), verb: "run", args: f } },
    });
  rawMcp(child.stdin, { method: "ping" });
  child.stdin.write(call(3, "mcp", slow));
  const ts = await waitFile(slow.pid);
  child.stdin.write(call(4, "composite", careless));
  const tc = await waitFile(careless.pid);
  child.stdin.end();
  const code = await exited;
  clearTimeout(guard);
  expect(running(ts), `the mcp call's tree still running when hcpx mcp exited: ${JSON.stringify(ts)}`).toEqual([]);
  expect(running(tc), `the careless call's tree still running when hcpx mcp exited: ${JSON.stringify(tc)}`).toEqual([]);
  expect(code).toBe(0);
  await settled(tc, careless);
  expect(existsSync(careless.effect), "the careless call's write landed").toBe(false);
}

// The cases run at once: each has its own files, process and tree (the openapi
// service tells its requests apart by their effect file), and most of a case
// is a wait on processes (starts, a grace period, the cancel).
describe.concurrent("cancellation over every adapter kind", () => {
  it("the cases cover the adapter table: one case per kind", () => {
    expect(Object.keys(CASES).sort()).toEqual(ADAPTERS.map((a) => a.kind).sort());
    for (const a of ADAPTERS) expect(CASES[a.kind]!.pack !== undefined, a.kind).toBe(a.capabilities.callable);
  });

  for (const a of ADAPTERS) {
    const c = CASES[a.kind];
    if (!c?.pack) {
      it(`${a.kind}: no command can be called, so there is nothing to cancel (exec refuses at once)`, async () => {
        const f = files();
        const r = await exec(packOf(a.kind), "run", f).done;
        expect(r.code).toBe(64);
        const env = JSON.parse(r.stdout) as { ok: boolean; error: { code: string } };
        expect(env.error.code).toBe("unknown_verb");
      });
      continue;
    }
    for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      it(`${a.kind}: ${sig} to hcpx exec answers cancelled (exit 1) within the bound; the tree is gone and the write never lands`, async () => {
        const f = files();
        const run = exec(packOf(a.kind), "run", f);
        const t = await waitFile(f.pid, run.done);
        if (c.tree) expect(running(t)).toHaveLength(3);
        const t0 = Date.now();
        run.child.kill(sig);
        const r = await run.done;
        const took = Date.now() - t0;
        if (c.tree) expect(running(t), `still running after hcpx exited: ${JSON.stringify(t)}`).toEqual([]);
        expect(r.signal).toBeNull();
        const env = JSON.parse(r.stdout) as { ok: boolean; error?: { code: string; message: string } };
        expect(env.ok).toBe(false);
        expect(env.error?.code).toBe("cancelled");
        expect(env.error?.message).toContain(sig);
        expect(env.error?.message).toContain(c.stopped);
        expect(r.code).toBe(1);
        expect(took).toBeLessThan(4000);
        await settled(t, f);
        expect(existsSync(f.effect), "the write landed").toBe(false);
      });
    }
    it(`${a.kind}: notifications/cancelled to hcpx mcp stops the call; the tree is gone, the write never lands, the server goes on`, async () => {
      // the server the four kinds' cases share (sharedMcp)
      const s = await sharedMcp();
      const f = files();
      const ac = new AbortController();
      const call = s.client.callTool(
        {
          name: "hcp",
          arguments: { pack: packOf(a.kind), verb: c.mcpVerb ?? "run", args: { pid: f.pid, effect: f.effect } },
        },
        undefined,
        { signal: ac.signal, timeout: 30_000 },
      );
      const caught = call.then(
        (v) => ({ answered: v }),
        (e: unknown) => ({ error: e }),
      );
      const t = await waitFile(f.pid);
      ac.abort("test cancels");
      expect("error" in (await caught)).toBe(true);
      for (let i = 0; i < 150 && running(t).length; i++) await new Promise((r) => setTimeout(r, 20));
      if (c.tree) expect(running(t), `still running: ${JSON.stringify(t)}`).toEqual([]);
      await settled(t, f);
      expect(existsSync(f.effect), "the write landed").toBe(false);
      await s.client.ping();
    });
    it(`${a.kind}: hcpx mcp losing its stdin mid-call stops the call before it exits; the tree is gone, the write never lands`, () =>
      stdinLoss(a.kind, c.mcpVerb ?? "run", c.tree));
  }
  // a composite module that ignores ctx.signal: hcpx mcp, which exits next, stops what the call left
  // running under it (as hcpx exec does on a signal)
  it("composite, a careless module: hcpx mcp losing its stdin mid-call stops what the call left running under hcpx before it exits; the write never lands", () =>
    stdinLoss("composite", "run", true));
  it("composite, a careless module beside a call slow to stop: hcpx mcp losing its stdin stops what the careless call left running at once; its write never lands", () =>
    stdinLossBesideSlowStop());
});
