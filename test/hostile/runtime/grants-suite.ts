// Issue 6, item 5 (grants), shared by grants.test.ts and grants.slow.ts: for any generated grant patterns (allow/deny over a
// set of packs whose ids and verbs are prefixes of each other) what `generate`
// projects, what `exec` allows (anything but not_granted) and what `mcp` lists
// and allows are the same set — the set the grant rule of DESIGN.md defines.
// Most configs in-process (buildProjection / exportView / execute); some
// through the real CLI and two real MCP servers that re-read the config per
// call: 6 in `npm test` (grants.test.ts), 24 in `npm run test:hostile:slow`
// (grants.slow.ts, called by .ci/run).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadPacks, loadProject } from "../../../src/pack/load";
import { execute } from "../../../src/runtime/execute";
import { buildProjection } from "../../../src/projection/build";
import { exportView } from "../../../src/mcp/view";
import { runHcpx, type RunOptions, type RunResult } from "../../support/hcpx";
import { execInProcess, runInProcess } from "../../support/inproc";
import { project } from "../../runtime/support";
import { envOf, hcpCall, startServer, type Env, type Session } from "./support";

const x = { x: { type: "string", required: true } };
const c = (verb: string) => ({
  verb_key: verb,
  summary: `do ${verb}`,
  cli: ["echo", ...verb.split("."), "{{x}}"],
  args: x,
});
/** pack id → its verbs. Ids and verbs are prefixes of each other on purpose. */
const UNIVERSE: Record<string, string[]> = {
  ab: ["read", "entry", "entry.add", "entry.del", "entryx"],
  "ab-c": ["read", "entry.add", "list"],
  abc: ["say", "list"], // pass_through
  "inbox-watch": [], // sense_only
};
const PACK_IDS = Object.keys(UNIVERSE);
const PATTERNS = [
  "*",
  "ab.*",
  "ab-c.*",
  "abc.*",
  "a.*",
  "ab.entry.*",
  "ab.entry",
  "ab.entry.add",
  "ab.entry.add.*",
  "ab.entryx",
  "ab.read",
  "ab-c.entry.*",
  "ab-c.list",
  "ab-c.read",
  "abc.say",
  "abc.list",
  "inbox-watch.*",
  "zz.*",
  "ab.entr.*",
];

const tool = (p: string, v: string) => `${p}__${v.replace(/\./g, "_")}`;
const matches = (pattern: string, name: string) =>
  pattern === "*" || (pattern.endsWith(".*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name);

interface Cfg {
  packs: string[];
  allow: string[];
  deny: string[];
}
/** The grant rule (DESIGN.md): allowed by some allow pattern and by no deny pattern; activated packs only. */
function expectedSet(cfg: Cfg): Set<string> {
  const out = new Set<string>();
  for (const p of cfg.packs)
    for (const v of UNIVERSE[p]!)
      if (cfg.allow.some((a) => matches(a, `${p}.${v}`)) && !cfg.deny.some((d) => matches(d, `${p}.${v}`)))
        out.add(`${p}.${v}`);
  return out;
}
const cfgArb: fc.Arbitrary<Cfg> = fc.record({
  packs: fc.subarray(PACK_IDS, { minLength: 1 }),
  allow: fc.subarray(PATTERNS, { maxLength: 5 }),
  deny: fc.subarray(PATTERNS, { maxLength: 3 }),
});

let dir: string;
let config: string;
function writeCfg(cfg: Cfg): void {
  const body = {
    packs: cfg.packs.map((p) => `./packs/${p}`),
    principal: { id: "test", kind: "agent" },
    grants: { allow: cfg.allow, deny: cfg.deny },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
  };
  const tmpFile = `${config}.tmp`;
  writeFileSync(tmpFile, JSON.stringify(body, null, 2));
  renameSync(tmpFile, config); // the MCP servers re-read it: never let them see half a file
}
const sorted = (s: Iterable<string>) => [...s].sort();
const allCalls = (cfg: Cfg) => cfg.packs.flatMap((p) => UNIVERSE[p]!.map((v) => ({ p, v })));
/** The request that, for a granted command, stops before any spawn (bad_args / confirm_required). */
const reqFor = (p: string, v: string) =>
  p === "abc" ? { pack: p, verb: v, argv: ["1", "2", "3"] } : { pack: p, verb: v, args: {} };

/**
 * The suites: `inProcessRuns` generated configs in-process (0: none), `cliRuns` through the CLI and the MCP servers.
 * `fewProcesses`: of the CLI's runs, the first config's generate and each config's first exec are processes, the
 * others run in this process (execInProcess, runInProcess): the same commands and checks, for what generate writes
 * and what exec decides (the grant check), without a Node start each (~84 processes -> ~11 for 6 configs).
 */
export function grantSuites(opts: { inProcessRuns: number; cliRuns: number; fewProcesses?: boolean }): void {
  const cli = (real: boolean, args: string[], o: RunOptions): Promise<RunResult> =>
    real || !opts.fewProcesses ? runHcpx(args, o) : args[0] === "exec" ? execInProcess(args, o) : runInProcess(args, o);
  beforeAll(() => {
    const sp = project({
      examples: ["inbox-watch"],
      packs: [
        {
          id: "ab",
          surface: {
            kind: "wrap",
            wrap: { bin: "../../fx/argv-echo.mjs", json_flag: null },
            commands: UNIVERSE.ab!.map(c),
          },
          rows: {
            "entry.add": { operation: "write", land: "local", confirm: true },
            "entry.del": { operation: "write", land: "local" },
            read: { operation: "read" },
            entry: { operation: "read" },
            entryx: { operation: "read" },
          },
        },
        {
          id: "ab-c",
          surface: {
            kind: "wrap",
            wrap: { bin: "../../fx/argv-echo.mjs", json_flag: null },
            commands: UNIVERSE["ab-c"]!.map(c),
          },
          rows: {
            read: { operation: "read" },
            "entry.add": { operation: "write", land: "remote" },
            list: { operation: "read" },
          },
        },
        {
          id: "abc",
          surface: {
            kind: "wrap",
            wrap: {
              bin: "../../fx/argv-echo.mjs",
              json_flag: null,
              pass_through: { allowedSubcommands: ["say", "list"], maxArgv: 2 },
            },
          },
          rows: { say: { operation: "read" }, list: { operation: "read" } },
        },
      ],
    });
    dir = sp.dir;
    config = sp.config;
  });

  if (opts.inProcessRuns > 0)
    describe("grants: in-process", () => {
      it("generated configs: projection tools = MCP export tools = what execute() lets past the grant check = the grant rule", async () => {
        let nonEmpty = 0;
        let partial = 0;
        await fc.assert(
          fc.asyncProperty(cfgArb, async (cfg) => {
            writeCfg(cfg);
            const want = expectedSet(cfg);
            const proj = loadProject({ config });
            const projection = buildProjection(proj, loadPacks(proj));
            expect(sorted(projection.tools.map((t) => t.name).filter((n) => n !== "hcp__read_skill"))).toEqual(
              sorted([...want].map((n) => tool(n.split(".")[0]!, n.slice(n.indexOf(".") + 1)))),
            );
            const view = exportView(proj);
            expect(sorted([...view.byTool.values()].map((t) => `${t.pack}.${t.verb}`))).toEqual(sorted(want));
            const allowed = new Set<string>();
            for (const { p, v } of allCalls(cfg)) {
              const env = (await execute(proj, reqFor(p, v))) as Env;
              expect(env.ok).toBe(false); // nothing may run here
              expect(["not_granted", "bad_args", "confirm_required"]).toContain(env.error!.code);
              if (env.error!.code !== "not_granted") allowed.add(`${p}.${v}`);
            }
            expect(sorted(allowed)).toEqual(sorted(want));
            if (want.size) nonEmpty++;
            if (want.size && want.size < allCalls(cfg).length) partial++;
          }),
          { numRuns: opts.inProcessRuns },
        );
        expect(nonEmpty).toBeGreaterThan(opts.inProcessRuns / 6);
        expect(partial).toBeGreaterThan(opts.inProcessRuns / 10);
      });
    });

  describe("grants: real CLI and real MCP servers", () => {
    let single: Session;
    let perCommand: Session;
    beforeAll(async () => {
      writeCfg({ packs: ["ab"], allow: ["ab.*"], deny: [] });
      [single, perCommand] = await Promise.all([
        startServer(dir, { env: {} }),
        startServer(dir, { shape: "per-command" }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([single?.close(), perCommand?.close()]);
    });

    it(`${opts.cliRuns} generated configs: generate's tools/mcp.json, exec, mcp tools/list and tools/call agree`, async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(cfgArb, async (cfg) => {
          n++;
          writeCfg(cfg);
          const want = expectedSet(cfg);
          const wantTools = sorted([...want].map((k) => tool(k.split(".")[0]!, k.slice(k.indexOf(".") + 1))));
          // generate
          const g = await cli(n === 1, ["generate", "--host", "none"], { cwd: dir });
          expect(g.code, g.stderr).toBe(0);
          const mcpJson = JSON.parse(readFileSync(join(dir, ".hcp", "generated", "tools", "mcp.json"), "utf8")) as {
            name: string;
          }[];
          expect(sorted(mcpJson.map((t) => t.name).filter((t) => t !== "hcp__read_skill"))).toEqual(wantTools);
          // exec, four at a time
          const calls = allCalls(cfg);
          const execAllowed = new Set<string>();
          for (let i = 0; i < calls.length; i += 4) {
            await Promise.all(
              calls.slice(i, i + 4).map(async ({ p, v }, j) => {
                const args = ["exec", p, v, "--json", "--", ...(p === "abc" ? ["1", "2", "3"] : [])];
                const r = await cli(i + j === 0, args, { cwd: dir });
                const env = JSON.parse(r.stdout) as Env;
                expect(r.code).toBe(1);
                expect(["not_granted", "bad_args", "confirm_required"]).toContain(env.error!.code);
                if (env.error!.code !== "not_granted") execAllowed.add(`${p}.${v}`);
              }),
            );
          }
          expect(sorted(execAllowed)).toEqual(sorted(want));
          // mcp: per-command tools/list, calls of every tool name; single-shape calls
          const listed = (await perCommand.client.listTools()).tools
            .map((t) => t.name)
            .filter((t) => t !== "hcp__read_skill");
          expect(sorted(listed)).toEqual(wantTools);
          const singleDesc = (await single.client.listTools()).tools.find((t) => t.name === "hcp")!.description!;
          const mcpAllowed = new Set<string>();
          for (const { p, v } of calls) {
            const viaSingle = await hcpCall(single, p, v, p === "abc" ? { argv: ["1", "2", "3"] } : {});
            // not granted: to the agent, a command its pack does not have, or a pack that is not there
            expect(["unknown_verb", "unknown_pack", "bad_args", "confirm_required"]).toContain(viaSingle.error!.code);
            const viaTool = envOf(
              await perCommand.client.callTool({
                name: tool(p, v),
                arguments: p === "abc" ? { argv: ["1", "2", "3"] } : {},
              }),
            );
            const g1 = !["unknown_verb", "unknown_pack"].includes(viaSingle.error!.code);
            const g2 = viaTool.error!.code !== "unknown_verb";
            expect(g2).toBe(g1);
            if (g1) mcpAllowed.add(`${p}.${v}`);
            // the single tool's description names a pack's verb exactly when it is granted
            const line = singleDesc.split("\n").find((l) => l.startsWith(`- ${p}:`) || l.startsWith(`- ${p} (argv):`));
            const verbs = line
              ? line
                  .replace(/\[[^\]]*\]/g, "")
                  .slice(line.indexOf(":") + 1)
                  .split(",")
                  .map((s) => s.trim())
              : [];
            expect(verbs.includes(v)).toBe(g1);
          }
          expect(sorted(mcpAllowed)).toEqual(sorted(want));
        }),
        { numRuns: opts.cliRuns },
      );
      expect(n).toBe(opts.cliRuns);
    }, 180_000);
  });
}
