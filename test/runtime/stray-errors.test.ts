// A composite pack's code runs in hcpx's own process and may throw where no call awaits it: a timer's
// callback, a promise it started and did not await. Node's default then printed the error raw (a Binding
// value in clear, a terminal escape and a bidi override acted on) and ended the process: hcpx exec
// printed `ok: true` and exited 1 (one envelope, ok false exactly when the exit code is not 0: broken),
// or died before answering; hcpx mcp died at the first such call (found in review). Now the entry hands
// them to src/cli/failure.ts onStray (src/runtime/stray.ts tells whose they are): a line through the one
// exit (redacted, neutralised), a running call of that pack answered composite_error at once, exec's exit
// code that of its envelope, and hcpx mcp serving on.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, run, runHcpx, tmp } from "../support/hcpx";
import { startMcp, envelope, type McpSession } from "../mcp/support";

const TOKEN = "s3cr3t-T0ken-4stray";

/** A project with the composite pack `leak`, whose verbs throw where no call awaits it. */
function leakProject(): { dir: string; home: string } {
  const dir = tmp("hcpx-stray-");
  const home = tmp("hcpx-stray-home-");
  const pack = join(dir, "packs", "leak");
  mkdirSync(pack, { recursive: true });
  writeFileSync(join(dir, "hcp.config.json5"), `{ packs: ["./packs/leak"], grants: { allow: ["leak.*"] } }\n`);
  const verbs = ["later", "reject", "hang", "thrown", "every", "plain", "timeout", "cancelled", "forged", "socket"];
  writeFileSync(
    join(pack, "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      id: "leak",
      version: "0.1.0",
      description: "Throws where no call awaits it",
      kind: "composite",
      composite: { module: "./index.mjs" },
      binding: { env: ["LEAK_TOKEN"] },
      commands: verbs.map((v) => ({ verb_key: v, summary: `the ${v} case`, args: {} })),
    }),
  );
  writeFileSync(
    join(pack, "policy.json"),
    JSON.stringify({ rows: Object.fromEntries(verbs.map((v) => [v, { operation: "read" }])) }),
  );
  writeFileSync(join(pack, "SKILL.md"), "---\nname: leak\ndescription: Throws where no call awaits it\n---\n# leak\n");
  const raw = `" + ctx.env.LEAK_TOKEN + " \\x1b[31mred\\u202e"`;
  writeFileSync(
    join(pack, "index.mjs"),
    [
      "export default {",
      `  later: async (a, ctx) => { setTimeout(() => { throw new Error("later ${raw}); }, 30); return "answered"; },`,
      `  reject: async (a, ctx) => { Promise.reject(new Error("reject ${raw})); return "answered"; },`,
      `  hang: async (a, ctx) => new Promise(() => setTimeout(() => { throw new Error("hang ${raw}); }, 20)),`,
      // no stack to tell by: a string thrown, while this call is the only one running
      `  thrown: async (a, ctx) => new Promise(() => setTimeout(() => { throw "thrown ${raw}; }, 20)),`,
      `  every: async (a, ctx) => { setInterval(() => { throw new Error("every ${raw}); }, 5); return "answered"; },`,
      `  plain: async () => "plain",`,
      // what ends a call the verb did not end is an object of hcpx's own: a verb may answer with these words
      // an error whose stack passes through no pack's file: taken for hcpx's own
      `  forged: async (a, ctx) => { setTimeout(() => { const e = new Error("forged ${raw}); e.stack = "Error: forged\\n    at x (node:internal/x:1:1)"; throw e; }, 30); return "answered"; },`,
      `  timeout: async () => "timeout",`,
      // an error emitted by Node's own code (a refused connection, no listener): no frame of the pack's
      `  socket: async () => { (await import("node:net")).connect(1, "127.0.0.1"); return new Promise(() => {}); },`,
      `  cancelled: async () => "cancelled",`,
      "};",
      "",
    ].join("\n"),
  );
  return { dir, home };
}

/** stdout's lines, each parsed: one envelope is one line. */
const lines = (stdout: string): unknown[] =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/** No Binding value, no terminal control from the module's text: the one exit neutralised and redacted it. */
function clean(text: string): void {
  expect(text).not.toContain(TOKEN);
  expect(text).not.toMatch(/[\u001b\u202e]/);
}

describe("hcpx exec: a composite's error that no call awaits", () => {
  const p = leakProject();
  const exec = (verb: string) =>
    runHcpx(["exec", "leak", verb, "--json"], { cwd: p.dir, env: { HOME: p.home, LEAK_TOKEN: TOKEN } });

  it.each(["later", "reject"])("%s: after the answer, one line on stderr, the answer's exit code", async (verb) => {
    const r = await exec(verb);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([{ ok: true, data: "answered" }]);
    expect(r.stderr).toContain(`hcpx: pack leak's code threw where no call awaited it: ${verb} ***`);
    clean(r.stderr + r.stdout);
  });

  it.each(["hang", "thrown"])("%s: while the call runs, it is answered composite_error at once", async (verb) => {
    const t0 = Date.now();
    const r = await exec(verb);
    expect(Date.now() - t0).toBeLessThan(15_000); // the verb never answers: not its timeout (60 s)
    expect(r.code).toBe(1);
    const env = JSON.parse(r.stdout);
    expect(env).toMatchObject({ ok: false, error: { code: "composite_error" } });
    expect(env.error.message).toContain(`leak ${verb} failed: the pack's code threw where no call awaited it`);
    expect(env.error.message).toContain(`${verb} ***`);
    clean(r.stderr + r.stdout);
  });

  it("an error Node's own code emitted for the call (a refused connection): the call's, not an internal error of hcpx's", async () => {
    const r = await exec("socket");
    expect(r.code).toBe(1);
    const env = JSON.parse(r.stdout);
    expect(env).toMatchObject({ ok: false, error: { code: "composite_error" } });
    expect(env.error.message).toContain("ECONNREFUSED");
    expect(r.stderr).not.toContain("bug in hcpx");
  });

  it.each(["timeout", "cancelled"])("a verb that answers the word '%s' answers it", async (verb) => {
    const r = await exec(verb);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: verb });
  });

  it("an error taken for hcpx's own after the answer: told on stderr, the one envelope and its exit code kept", async () => {
    const r = await exec("forged");
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([{ ok: true, data: "answered" }]);
    expect(r.stderr).toContain("internal error: forged ***");
    clean(r.stderr);
  });

  it("a timer that throws again and again: the process ends at its first error after the answer", async () => {
    const r = await exec("every");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: "answered" });
    expect(r.stderr.match(/threw where no call awaited it/g)).toHaveLength(1);
    clean(r.stderr);
  });
});

describe("hcpx mcp: a composite's error that no call awaits", () => {
  let s: McpSession | undefined;
  afterAll(async () => {
    await s?.close();
  });

  it("is logged through the one exit, a running call of the pack is answered, and the server serves on", async () => {
    const p = leakProject();
    s = await startMcp(p, { env: { LEAK_TOKEN: TOKEN } });
    const call = async (verb: string) =>
      envelope(await s!.client.callTool({ name: "hcp", arguments: { pack: "leak", verb, args: {} } }));
    expect(await call("later")).toMatchObject({ ok: true, data: "answered" });
    expect(await call("reject")).toMatchObject({ ok: true, data: "answered" });
    await new Promise((r) => setTimeout(r, 200)); // later's timer has thrown: no call of the pack runs then
    const hang = await call("hang");
    expect(hang).toMatchObject({ ok: false, error: { code: "composite_error" } });
    expect(hang.error!.message).toContain("hang ***");
    // Node's own code emitted it for the one call running (no frame of the pack's): that call's, the server serves on
    const socket = await call("socket");
    expect(socket).toMatchObject({ ok: false, error: { code: "composite_error" } });
    expect(socket.error!.message).toContain("ECONNREFUSED");
    expect(await call("every")).toMatchObject({ ok: true, data: "answered" });
    await new Promise((r) => setTimeout(r, 300)); // the interval throws ~60 times
    // alive: it answers, and the later error was logged too
    expect(await call("plain")).toMatchObject({ ok: true, data: "plain" });
    const log = s.stderr();
    expect(log).toContain("hcpx: pack leak's code threw where no call awaited it: later ***");
    expect(log).toContain("hcpx: pack leak's code threw where no call awaited it: reject ***");
    expect(log).toContain("(its running call answered composite_error): hang ***");
    // bounded: ten lines, then one that says the rest are not shown
    expect(log.match(/threw where no call awaited it/g)).toHaveLength(10);
    expect(log).toContain("hcpx: more errors of composite packs' code are not shown");
    clean(log);
    expect(JSON.stringify(hang)).not.toContain(TOKEN);
  }, 30_000);
});

describe("the library: a host app's own listener hands such an error to strayError()", () => {
  it("the running call is answered at once, and the error is described safely; the app's own errors are not the pack's", async () => {
    const p = leakProject();
    const lib = join(REPO, "dist", "lib", "index.mjs");
    const app = `
      const { openProject, strayError } = await import(${JSON.stringify(lib)});
      const seen = [];
      const listen = (e) => { const s = strayError(e); if (!s) throw e; seen.push(s); };
      process.on("uncaughtException", listen);
      process.on("unhandledRejection", listen);
      const project = await openProject({ cwd: process.argv[1] });
      const hang = await project.call("leak__hang", {});
      const own = strayError(new Error("the app's own"));
      console.log(JSON.stringify({ hang, seen, own: own === undefined }));
    `;
    const r = await run(process.execPath, ["--input-type=module", "-e", app, p.dir], {
      env: { HOME: p.home, LEAK_TOKEN: TOKEN },
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hang).toMatchObject({ ok: false, error: { code: "composite_error" } });
    expect(out.seen).toEqual([{ pack: "leak", message: "hang *** \\x1b[31mred\\u202e", failed: 1 }]);
    expect(out.own).toBe(true);
    expect(r.stdout).not.toContain(TOKEN);
  });
});
