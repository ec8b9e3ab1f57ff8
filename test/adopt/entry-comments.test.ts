// A re-adopt that changes hcpx's MCP entry edits it in place: the values hcpx owns change,
// and the person's comments, keys and tables in and around the entry stay where they wrote
// them, byte for byte (src/host/tomlentry.ts, src/host/jsonentry.ts, src/host/yamlentry.ts,
// src/host/listedit.ts). Here with the CLI: Codex's .codex/config.toml ([mcp_servers.hcp],
// its tools sub-tables, an [mcp_servers.hcp.env] of the person's further down) and Gemini's
// JSONC .gemini/settings.json (mcpServers.hcp), where the change is a pack activated, which
// adds tools and a Binding's env name to the entry; Goose's and Continue's YAML
// (~/.config/goose/config.yaml extensions.hcp, ~/.continue/config.yaml's mcpServers item
// named hcp), where it is another --command. adopt, activate and deactivate run in this
// process (test/support/inproc.ts: the same argv, cwd, environment, stdout, stderr and exit
// code) since what adopt decides and writes is under test, its refusals too (exit code, the
// message on stderr, nothing written).
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseYaml } from "yaml";
import { HCPX, REPO } from "../support/cli";
import { inProcess } from "../support/inproc";
import { scratch as scratchChild, userConfigFromProject, type Scratch } from "./helpers";

/** A scratch project whose runs are function calls in this process. */
const scratch = (opts: Parameters<typeof scratchChild>[0] = {}): Scratch => inProcess(scratchChild(opts));

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

const CODEX = ".codex/config.toml";
const GEMINI = ".gemini/settings.json";
type Entry = Record<string, unknown>;
const tomlEntry = (t: string) => (parseToml(t) as { mcp_servers: Record<string, Entry> }).mcp_servers.hcp!;
const jsonEntry = (t: string) => (parseJsonc(t) as { mcpServers: Record<string, Entry> }).mcpServers.hcp!;

async function adopted(host: string): Promise<Scratch> {
  const s = scratch({ hcpxOnPath: true });
  const r = await s.adopt(host, "--write");
  expect(r.code, r.stderr).toBe(0);
  return s;
}

/** The todo pack activated (its reads granted: 2 tools more, TODO_TOKEN more), and `host` adopted again. */
async function readopt(s: Scratch, host: string, ...more: string[]): Promise<void> {
  const a = await s.run(["activate", "packs/todo"]);
  expect(a.code, a.stderr).toBe(0);
  const r = await s.adopt(host, "--write", ...more);
  expect(r.code, r.stderr).toBe(0);
}

/**
 * `before`'s lines are in `after` in order (a JSON line may have gained the comma before a line put in
 * after it), but for those `changed` picks (each then changed in `after`).
 */
function keptInOrder(before: string, after: string, changed: (line: string) => boolean): void {
  const rest = after.split("\n");
  let at = 0;
  for (const line of before.split("\n")) {
    if (changed(line)) {
      expect(rest.includes(line), `still there: ${line}`).toBe(false);
      continue;
    }
    let i = rest.indexOf(line, at);
    if (i < 0) i = rest.indexOf(line + ",", at);
    expect(i, `kept, in order: ${line}`).toBeGreaterThanOrEqual(0);
    at = i + 1;
  }
}

/** A second re-adopt changes no byte, and --check agrees. */
async function idempotent(s: Scratch, host: string, file: string, ...more: string[]): Promise<void> {
  const once = s.read(file);
  const r = await s.adopt(host, "--write", ...more);
  expect(r.code, r.stderr).toBe(0);
  expect(s.read(file)).toBe(once);
  expect((await s.adopt(host, "--check", ...more)).code).toBe(0);
}

describe("Codex: [mcp_servers.hcp] edited in place", () => {
  it("comments above and after its keys, and a key of the person's, stay where they are", async () => {
    const s = await adopted("codex");
    const hcp = s.read(CODEX);
    const mine =
      '# my codex config\nmodel = "o3"\n\n' +
      hcp
        .replace(/^command = /m, "# the command hcpx runs\ncommand = ")
        .replace(/^(args = .*)$/m, "$1 # how it starts")
        .replace(/^(env_vars = .*)$/m, "# mine, slow machine\nstartup_timeout_sec = 30 # seconds\n$1 # names only") +
      '\n[profiles.fast]\nmodel = "mini" # fast\n';
    s.write(CODEX, mine);
    await readopt(s, "codex");
    const after = s.read(CODEX);
    keptInOrder(mine, after, (l) => /^(tools|env_vars) = /.test(l));
    expect(after).toMatch(/^env_vars = \["LEDGER_TOKEN","TODO_TOKEN"\] # names only$/m);
    const v = tomlEntry(after);
    expect(v.startup_timeout_sec).toBe(30);
    expect(Object.keys(v.tools as Entry)).toContain("todo__list");
    expect(after.split("\n").length).toBe(mine.split("\n").length);
    await idempotent(s, "codex", CODEX);
  });

  it("tools written as sub-tables with comments: each stays, a new tool is a table after them, one that goes is taken out", async () => {
    const s = await adopted("codex");
    const hcp = s.read(CODEX);
    const tools = tomlEntry(hcp).tools as Record<string, Record<string, string>>;
    const tables = Object.entries(tools)
      .map(
        ([name, t]) =>
          `# ${name}\n[mcp_servers.hcp.tools.${name}]\napproval_mode = "${t.approval_mode}" # mine: ${name}\n`,
      )
      .join("\n");
    const mine = hcp.replace(/^tools = .*\n/m, "") + "\n" + tables;
    s.write(CODEX, mine);
    await readopt(s, "codex");
    const after = s.read(CODEX);
    keptInOrder(mine, after, (l) => /^env_vars = /.test(l));
    const v = tomlEntry(after);
    expect(v.tools).toMatchObject({ ...tools, todo__list: { approval_mode: "approve" } });
    expect(after).toMatch(/\[mcp_servers\.hcp\.tools\.todo__list\]\napproval_mode = "approve"\n/);
    expect(after).not.toMatch(/^tools = /m);
    await idempotent(s, "codex", CODEX);
    // a tool that goes: its table goes, every other line stays
    const d = await s.run(["deactivate", "transit"]);
    expect(d.code, d.stderr).toBe(0);
    const was = s.read(CODEX);
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    const left = s.read(CODEX);
    keptInOrder(was.replace(/\[mcp_servers\.hcp\.tools\.transit__\w+\]\napproval_mode = .*\n/g, ""), left, () => false);
    expect(Object.keys(tomlEntry(left).tools as Entry).some((k) => k.startsWith("transit__"))).toBe(false);
  });

  it("a person's [mcp_servers.hcp.env] further down the file stays there, and the file means what it meant", async () => {
    const s = await adopted("codex");
    const hcp = s.read(CODEX);
    const tail = '\n[profiles.fast]\nmodel = "mini"\n\n# my env for hcp\n[mcp_servers.hcp.env]\nFOO = "bar" # foo\n';
    const mine = hcp + tail;
    s.write(CODEX, mine);
    await readopt(s, "codex");
    const after = s.read(CODEX);
    expect(after.endsWith(tail)).toBe(true);
    const v = parseToml(after) as Record<string, unknown> & { mcp_servers: Record<string, Entry> };
    expect(v.mcp_servers.hcp!.env).toEqual({ FOO: "bar" });
    expect(v.profiles).toEqual({ fast: { model: "mini" } });
    await idempotent(s, "codex", CODEX);
  });

  it("--force writes hcpx's table whole: the person's keys in it go", async () => {
    const s = await adopted("codex");
    s.write(CODEX, s.read(CODEX).replace(/^command = /m, "mine = 1 # mine\ncommand = "));
    await readopt(s, "codex", "--force");
    const after = s.read(CODEX);
    expect(after).not.toContain("# mine");
    expect(tomlEntry(after).mine).toBeUndefined();
  });
});

describe("JSONC (Gemini): mcpServers.hcp edited in place", () => {
  const commented = (hcpText: string) =>
    hcpText
      .replace(/^(\s*)"command": (.*),$/m, '$1// the command hcpx runs\n$1"command": $2, // trailing on command')
      .replace(/^(\s*)"env": \{$/m, '$1"env": {\n$1  /* my token */')
      .replace(/^(\s*)"args": \[$/m, '$1/* my own key */\n$1"timeout": 30000, // ms\n$1"args": [');

  it("// and /* */ comments inside the entry, and a key of the person's, stay where they are", async () => {
    const s = await adopted("gemini");
    const mine = commented(s.read(GEMINI));
    expect(mine).toContain("/* my token */");
    s.write(GEMINI, mine);
    await readopt(s, "gemini");
    const after = s.read(GEMINI);
    // only lines added (and a comma after the line they follow)
    keptInOrder(mine, after, () => false);
    const v = jsonEntry(after);
    expect(v.env).toEqual({ LEDGER_TOKEN: "$LEDGER_TOKEN", TODO_TOKEN: "$TODO_TOKEN" });
    expect(v.timeout).toBe(30000);
    expect(after).not.toMatch(/,\s*[}\]]/); // Gemini: a trailing comma is fatal
    await idempotent(s, "gemini", GEMINI);
  });

  it("a comment inside the args list stays by its item when the command line changes", async () => {
    const s = await adopted("gemini");
    const mine = commented(s.read(GEMINI)).replace(/^(\s*)"mcp",$/m, '$1"mcp", // the server');
    s.write(GEMINI, mine);
    const r = await s.adopt("gemini", "--write", "--command", "npx -y hcpx mcp");
    expect(r.code, r.stderr).toBe(0);
    const after = s.read(GEMINI);
    expect(after).toMatch(/"mcp", \/\/ the server\n/);
    keptInOrder(mine, after, (l) => /"command": /.test(l));
    expect(jsonEntry(after)).toMatchObject({
      command: "npx",
      args: ["-y", "hcpx", "mcp", "--shape", "per-command", "--host", "gemini"],
    });
    await idempotent(s, "gemini", GEMINI, "--command", "npx -y hcpx mcp");
  });
});

describe("YAML (Goose, Continue): hcpx's entry edited in place", () => {
  const GOOSE = "~/.config/goose/config.yaml";
  const CONTINUE = "~/.continue/config.yaml";
  const user = (...more: string[]) => ["--scope", "user", ...more];
  const gooseEntry = (t: string) => (parseYaml(t) as { extensions: Record<string, Entry> }).extensions.hcp!;
  const continueEntry = (t: string) =>
    (parseYaml(t) as { mcpServers: Entry[] }).mcpServers.find((x) => x.name === "hcp")!;
  /** user scope adopted (`hcpx` on PATH: the entry runs `hcpx mcp --config …`); a re-adopt with NPX changes the command and puts two args first */
  async function adoptedUser(host: string): Promise<Scratch> {
    const s = scratch({ hcpxOnPath: true });
    userConfigFromProject(s);
    const r = await s.adopt(host, ...user("--write"));
    expect(r.code, r.stderr).toBe(0);
    return s;
  }
  const NPX = ["--command", "npx -y hcpx mcp"];

  it("Goose: comments above and after its keys, in its args, and keys of the person's stay where they are", async () => {
    const s = await adoptedUser("goose");
    const e = gooseEntry(s.read(GOOSE));
    const args = e.args as string[];
    const mine =
      "# my goose config\nGOOSE_PROVIDER: openai   # the provider\nextensions:\n" +
      "  developer: # builtin\n    enabled: true\n    type: builtin\n" +
      "  # hcpx's server\n  hcp:\n    name: hcp\n" +
      `    # the command hcpx runs\n    cmd: ${JSON.stringify(e.cmd)}   # trailing on cmd\n    type: stdio\n    args:\n` +
      args
        .map((a, i) => `${i === 2 ? "      # where the packs are\n" : ""}      - ${JSON.stringify(a)} # arg ${i}\n`)
        .join("") +
      "    envs:\n      LEDGER_TOKEN: x # mine\n    enabled: true\n    timeout: 300\n    description: HCP packs (hcpx mcp)\n" +
      "    # the end of hcp\n\n# the model\nGOOSE_MODEL: gpt-x\n";
    s.write(GOOSE, mine);
    const r = await s.adopt("goose", ...user("--write", ...NPX));
    expect(r.code, r.stderr).toBe(0);
    const after = s.read(GOOSE);
    keptInOrder(mine, after, (l) => /^ {4}cmd: /.test(l));
    expect(after).toMatch(/^ {4}cmd: npx {3}# trailing on cmd$/m);
    expect(after).toMatch(/^ {4}args:\n {6}- -y\n {6}- hcpx\n {6}- "mcp" # arg 0\n/m);
    expect(gooseEntry(after)).toEqual({ ...e, cmd: "npx", args: ["-y", "hcpx", ...args], envs: { LEDGER_TOKEN: "x" } });
    expect(after.split("\n").length).toBe(mine.split("\n").length + 2);
    await idempotent(s, "goose", GOOSE, ...user(...NPX));
  });

  it("Continue: its list item, with a flow list of args over several lines holding comments, and keys of the person's", async () => {
    const s = await adoptedUser("continue");
    const e = continueEntry(s.read(CONTINUE));
    const args = e.args as string[];
    const mine =
      "# my continue config\nname: Mine\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: other # mine\n    command: o\n" +
      "  # hcpx's server\n  - name: hcp # hcpx owns this one\n" +
      `    # the command hcpx runs\n    command: ${JSON.stringify(e.command)} # trailing on command\n` +
      "    env:\n      FOO: bar # my env\n    args: [ # by hand\n" +
      args.map((a, i) => `        ${JSON.stringify(a)}, # arg ${i}\n`).join("") +
      "      ]\n    timeout: 30 # mine\nmodels: [] # none yet\n";
    s.write(CONTINUE, mine);
    const r = await s.adopt("continue", ...user("--write", ...NPX));
    expect(r.code, r.stderr).toBe(0);
    const after = s.read(CONTINUE);
    keptInOrder(mine, after, (l) => /^ {4}command: "hcpx"/.test(l));
    expect(after).toMatch(/^ {4}command: npx # trailing on command$/m);
    expect(continueEntry(after)).toEqual({
      name: "hcp",
      command: "npx",
      args: ["-y", "hcpx", ...args],
      env: { FOO: "bar" },
      timeout: 30,
    });
    await idempotent(s, "continue", CONTINUE, ...user(...NPX));
  });

  it("an entry it cannot edit exactly (an anchor in it): refused when it holds comments, nothing written; --force writes it whole", async () => {
    const s = await adoptedUser("goose");
    const mine = s.read(GOOSE).replace(/^( {4})timeout: 300$/m, "$1timeout: &t 300 # mine");
    s.write(GOOSE, mine);
    const r = await s.adopt("goose", ...user("--write", ...NPX));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/config\.yaml:2:\d+: cannot set hcpx's fields of `extensions\.hcp` in place/);
    expect(r.stderr).toMatch(/--force/);
    expect(s.read(GOOSE)).toBe(mine);
    const f = await s.adopt("goose", ...user("--write", "--force", ...NPX));
    expect(f.code, f.stderr).toBe(0);
    const after = s.read(GOOSE);
    expect(after).not.toContain("# mine");
    expect(gooseEntry(after)).toMatchObject({ cmd: "npx", timeout: 300 });
    await idempotent(s, "goose", GOOSE, ...user(...NPX));
  });

  it("without a comment in it, such an entry is written whole; a file of several documents is never written", async () => {
    const s = await adoptedUser("goose");
    s.write(GOOSE, s.read(GOOSE).replace(/^( {4})timeout: 300$/m, "$1timeout: !!int 300"));
    const r = await s.adopt("goose", ...user("--write", ...NPX));
    expect(r.code, r.stderr).toBe(0);
    expect(s.read(GOOSE)).not.toContain("!!int");
    expect(gooseEntry(s.read(GOOSE))).toMatchObject({ cmd: "npx", timeout: 300 });
    const two = s.read(GOOSE) + "---\nGOOSE_MODEL: x # two\n";
    s.write(GOOSE, two);
    const b = await s.adopt("goose", ...user("--write"));
    expect(b.code).not.toBe(0);
    expect(b.stderr).toMatch(/config\.yaml:\d+:\d+: cannot parse YAML/);
    expect(s.read(GOOSE)).toBe(two);
  });
});
