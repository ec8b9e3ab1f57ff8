// The one options schema (src/cli/spec.ts) is what commander, the fast paths and
// completion read (issue 28). In-process: the program built from the schema with
// runners that record what commander hands each command.
import { describe, expect, it } from "vitest";
import type { Command } from "commander";
import { buildProgram, type Runners } from "../../src/cli/program";
import { COMMANDS, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from "../../src/cli/spec";
import { MCP_DEFAULTS, parseFastAdopt, parseFastExec, parseFastMcp } from "../../src/cli/fast-exec";

interface Seen {
  path: string;
  args: unknown[];
  opts: Record<string, unknown>;
  globals: Record<string, unknown>;
}

/** Parse argv (after `hcpx`) with the schema's program; what the command's runner got. */
async function commanderParse(argv: string[]): Promise<Seen> {
  let seen: Seen | undefined;
  const runners = new Proxy({} as Runners, {
    get:
      (_t, path: string) =>
      async (args: unknown[], opts: Record<string, unknown>, globals: Record<string, unknown>) => {
        seen = { path, args, opts: { ...opts }, globals: { ...globals } };
        return 0;
      },
  });
  await buildProgram(runners).parseAsync(["node", "hcpx", ...argv]);
  if (!seen) throw new Error(`no command ran for ${argv.join(" ")}`);
  return seen;
}

const specs = Object.entries(COMMANDS) as [string, CommandSpec][];
const flagsOf = (o: OptionSpec) => o.flags.split(/[ ,]+/).filter((f) => f.startsWith("-"));

describe("the options schema", () => {
  it("keys each option by the name commander gives it, and the program has exactly the schema's commands and options", () => {
    const program = buildProgram();
    const find = (path: string): Command =>
      path.split(" ").reduce<Command>((c, n) => c.commands.find((x) => x.name() === n)!, program);
    for (const [path, spec] of specs) {
      const cmd = find(path);
      expect(cmd, path).toBeDefined();
      expect(cmd.description()).toBe(spec.description);
      const got = cmd.options.map((o) => [o.attributeName(), o.flags]);
      expect(got, path).toEqual(Object.entries(spec.options ?? {}).map(([k, o]) => [k, o.flags]));
      expect(
        cmd.registeredArguments.map((a) => a.name()),
        path,
      ).toEqual((spec.args ?? []).map((a) => a.name.replace(/[<>[\].]/g, "")));
    }
    const all = (c: Command, prefix: string): string[] =>
      c.commands.flatMap((s) => [prefix + s.name(), ...all(s, `${prefix}${s.name()} `)]);
    expect(all(program, "")).toEqual(specs.map(([p]) => p));
    expect(program.options.find((o) => o.long === "--config")?.attributeName()).toBe(Object.keys(GLOBAL_OPTIONS)[0]);
  });

  it("types what commander hands a command: strings, lists, repeats, defaults, negations", async () => {
    const a = await commanderParse([
      "--config",
      "c.json5",
      "pack",
      "from-openapi",
      "doc.json",
      "--id",
      "todo",
      "--include",
      "tag:a",
      "--include",
      "op:b",
    ]);
    expect(a).toMatchObject({
      path: "pack from-openapi",
      args: ["doc.json"],
      opts: { id: "todo", include: ["tag:a", "op:b"] },
      globals: { config: "c.json5" },
    });
    const m = await commanderParse(["mcp", "--no-watch"]);
    expect(m.opts).toEqual({ shape: MCP_DEFAULTS.shape, watch: false, auth: true });
    const g = await commanderParse(["generate", "--host", "claude", "cursor"]);
    expect(g.opts).toEqual({ host: ["claude", "cursor"] });
    const ad = await commanderParse(["adopt", "claude", "cursor", "--write"]);
    expect(ad).toMatchObject({ args: [["claude", "cursor"]], opts: { scope: "project", write: true } });
  });
});

// Every form a fast path reads must mean what commander makes of it; every other
// form, the fast path leaves to commander. The argv below are built from the
// schema's own options, so an option added, renamed or retyped there is tried here.
describe("the fast paths read the schema's options as commander does", () => {
  const tries = (cmd: "exec" | "mcp" | "adopt", lead: string[]): string[][] => {
    const opts = Object.values(COMMANDS[cmd].options as Record<string, OptionSpec>);
    const out: string[][] = [lead];
    for (const o of [...opts, GLOBAL_OPTIONS.config]) {
      for (const f of flagsOf(o)) {
        const valued = o.flags.includes("<");
        const value = cmd === "mcp" && f === "--shape" ? "per-command" : "v1";
        out.push(valued ? [...lead, f, value] : [...lead, f]);
        out.push(valued ? [...lead, f, value, f, value] : [...lead, f, f]);
      }
    }
    out.push([...lead, "--json", "--no-such-flag"]);
    return out;
  };

  it("exec", async () => {
    let fast = 0;
    for (const argv of tries("exec", ["exec", "ledger", "balance", "a=1"])) {
      const f = parseFastExec(argv);
      if (!f) continue;
      fast++;
      const c = await commanderParse(argv);
      expect(
        { pack: f.pack, verb: f.verb, operands: f.operands, confirm: f.confirm, json: f.json },
        argv.join(" "),
      ).toEqual({
        pack: c.args[0],
        verb: c.args[1],
        operands: c.args[2],
        confirm: c.opts.confirm === true,
        json: c.opts.json === true,
      });
      expect(c.globals, argv.join(" ")).toEqual({});
    }
    expect(fast).toBeGreaterThanOrEqual(5); // the plain form and both of its flags, once and twice
  });

  it("mcp", async () => {
    let fast = 0;
    for (const argv of tries("mcp", ["mcp"])) {
      const f = parseFastMcp(argv);
      if (!f) continue;
      fast++;
      const c = await commanderParse(argv);
      expect({ ...f }, argv.join(" ")).toEqual({ ...c.opts, ...c.globals });
    }
    expect(fast).toBeGreaterThanOrEqual(4); // the plain form, --shape, --host, --config, --no-watch
  });

  it("adopt", async () => {
    let fast = 0;
    for (const argv of tries("adopt", ["adopt", "claude"])) {
      const f = parseFastAdopt(argv);
      if (!f) continue;
      fast++;
      const c = await commanderParse(argv);
      expect({ hosts: f.hosts, opts: f.opts }, argv.join(" ")).toEqual({ hosts: c.args[0], opts: c.opts });
      expect(c.globals).toEqual({});
    }
    expect(fast).toBeGreaterThanOrEqual(4); // the plain form, --write, --json, --command
  });
});

describe("completion comes from the schema", () => {
  it("offers every command's flags, and hosts, packs, names and directories where the schema says", async () => {
    const { run } = await import("../../src/cli/commands/completion");
    let script = "";
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => ((script += s), true)) as typeof process.stdout.write;
    try {
      expect(await run("bash", {})).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    for (const [path, spec] of specs) {
      if (spec.group) continue;
      const line = script.split("\n").find((l) => l.startsWith(`    ${JSON.stringify(path)}) words_=`));
      expect(line, path).toBeDefined();
      for (const o of Object.values(spec.options ?? {}))
        for (const f of flagsOf(o)) expect(line, `${path} ${f}`).toContain(f);
    }
    const paths = Object.values({ ...GLOBAL_OPTIONS, ...COMMANDS["pack new"].options }).filter(
      (o: OptionSpec) => o.complete === "path",
    );
    expect(paths.length).toBeGreaterThan(0);
    for (const o of paths) expect(script).toMatch(new RegExp(`"${flagsOf(o)[0]}"[|)]`));
    expect(script).toMatch(/"adopt"\|"import"\) \[\[ "\$cur" != -\* \]\] && words_="\$words_ [a-z]/);
  });
});
