// `hcpx generate` end to end: the built CLI as a real process on scratch projects.
import { describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHcpx as runChild, scratchProject, tmp } from "../support/hcpx";
import { needsProcess, runInProcess } from "../support/inproc";
import { GEN, readTree } from "./tree";

/** exec (and what else needs a process of its own) as a child; the other commands, whose output and files are under test here, as function calls in this process (test/support/inproc.ts) */
const runHcpx = (args: string[], opts?: Parameters<typeof runChild>[1]) =>
  needsProcess(args) ? runChild(args, opts) : runInProcess(args, opts);

const ALL = ["calc", "git", "inbox-watch", "ledger", "notes", "todo", "transit"];
const toolName = (pack: string, verb: string) => `${pack}__${verb.replace(/\./g, "_")}`;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const token = (s: string) => new RegExp(`(?<![\\w-]|\\w\\.)${esc(s)}(?![\\w-]|\\.\\w)`);

async function generate(dir: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const r = await runHcpx(["generate", ...args], { cwd: dir, env });
  return r;
}

describe("hcpx generate: determinism", () => {
  it("is byte-identical from two copies at different paths, with different TZ, LANG and HOME", async () => {
    const a = scratchProject({ packs: ALL, allow: ["*"], deny: ["ledger.entry.delete"] });
    const b = scratchProject({ packs: ALL, allow: ["*"], deny: ["ledger.entry.delete"] });
    expect(a.dir).not.toBe(b.dir);
    const ra = await generate(a.dir, [], { TZ: "UTC", LANG: "C", LC_ALL: "C", HOME: tmp("home-a-") });
    const rb = await generate(b.dir, [], {
      TZ: "Pacific/Chatham",
      LANG: "tr_TR.UTF-8",
      LC_ALL: "tr_TR.UTF-8",
      HOME: tmp("home-b-"),
    });
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    const ta = readTree(join(a.dir, GEN));
    const tb = readTree(join(b.dir, GEN));
    expect([...ta.keys()]).toEqual([...tb.keys()]);
    expect(ta.size).toBeGreaterThanOrEqual(12);
    for (const [path, content] of ta) {
      expect(tb.get(path), path).toBe(content);
      expect(content.includes(a.dir), `${path} holds an absolute path`).toBe(false);
      expect(content.includes("\r"), `${path} has CR`).toBe(false);
      expect(content.endsWith("\n"), `${path} ends with LF`).toBe(true);
    }
    // the hash in the header is the hash of the body
    const block = ta.get("system-prompt.md")!;
    const m = /^<!-- hcp:prompt sha256:([0-9a-f]{16}) -->\n/.exec(block)!;
    expect(m).not.toBeNull();
    const { createHash } = await import("node:crypto");
    expect(createHash("sha256").update(block.slice(m[0].length)).digest("hex").slice(0, 16)).toBe(m[1]);
  });

  it("a second run writes nothing and --check is clean", async () => {
    const p = scratchProject({ packs: ["ledger", "transit"] });
    expect((await generate(p.dir)).code).toBe(0);
    const again = await generate(p.dir, ["--json"]);
    expect(again.code).toBe(0);
    const env = JSON.parse(again.stdout);
    expect(env.ok).toBe(true);
    expect(env.data.written).toEqual([]);
    expect(env.data.files).toContain("system-prompt.md");
  });
});

describe("hcpx generate: grants", () => {
  const withheld: [string, string][] = [
    ["ledger", "entry.delete"],
    ["ledger", "account.open"],
    ["todo", "delete"],
    ["todo", "create"],
    ["notes", "add"],
  ];
  it("an ungranted command's name and tool name appear in no generated file", async () => {
    const p = scratchProject({ packs: ALL, allow: ["*"], deny: withheld.map(([p, v]) => `${p}.${v}`) });
    const r = await generate(p.dir);
    expect(r.code, r.stderr).toBe(0);
    const tree = readTree(join(p.dir, GEN));
    for (const [pack, verb] of withheld) {
      for (const [path, content] of tree) {
        expect(content.includes(toolName(pack, verb)), `${path} names ${toolName(pack, verb)}`).toBe(false);
        expect(token(`${pack} ${verb}`).test(content), `${path} names '${pack} ${verb}'`).toBe(false);
        if (verb.includes(".")) expect(token(verb).test(content), `${path} names ${verb}`).toBe(false);
      }
      // the pack's own Skill copy: no row, no code mention
      const skill = tree.get(`skills/${pack}/SKILL.md`)!;
      for (const line of skill.split("\n")) {
        expect(line.startsWith(`| \`${verb}\``), `row for ${verb}`).toBe(false);
        expect(line.includes(`\`${verb}\``), `${pack} Skill mentions \`${verb}\`: ${line}`).toBe(false);
      }
      // the prompt block's verb list for the pack
      const block = tree.get("system-prompt.md")!;
      const verbsLine = block
        .split(`### ${pack}\n`)[1]!
        .split("\n")
        .find((l) => l.startsWith("Verbs:"))!;
      expect(token(verb).test(verbsLine), verbsLine).toBe(false);
      for (const f of ["tools/mcp.json", "tools/anthropic.json", "tools/shell.json"]) {
        const names = (JSON.parse(tree.get(f)!) as { name: string }[]).map((t) => t.name);
        expect(names).not.toContain(toolName(pack, verb));
      }
    }
    // leads naming a withheld command are dropped (ledger's second lead names entry.delete)
    expect(tree.get("system-prompt.md")).toContain("ledger: balances, entries and transfers");
  });

  it("a pack with no granted command is absent; sense_only packs project no tool", async () => {
    const p = scratchProject({ packs: ALL, allow: ["ledger.balance", "transit.*"] });
    const r = await generate(p.dir);
    expect(r.code, r.stderr).toBe(0);
    const tree = readTree(join(p.dir, GEN));
    expect([...tree.keys()].filter((k) => k.startsWith("skills/")).sort()).toEqual([
      "skills/inbox-watch/SKILL.md",
      "skills/ledger/SKILL.md",
      "skills/transit/SKILL.md",
    ]);
    for (const content of tree.values()) {
      expect(content).not.toMatch(/calc__|git__|todo__|notes__|inbox-watch__|ledger__accounts/);
    }
    for (const f of ["tools/mcp.json", "tools/anthropic.json"]) {
      const names = (JSON.parse(tree.get(f)!) as { name: string }[]).map((t) => t.name);
      expect(names).toEqual([
        "ledger__balance",
        "transit__plan",
        "transit__departures",
        "transit__stops",
        "transit__lines",
        "hcp__read_skill",
      ]);
    }
    const shell = JSON.parse(tree.get("tools/shell.json")!) as {
      name: string;
      inputSchema: { properties: { pack: { enum: string[] } } };
    }[];
    expect(shell.map((t) => t.name)).toEqual(["hcp", "hcp__read_skill"]);
    expect(shell[0]!.inputSchema.properties.pack.enum).toEqual(["ledger", "transit"]);
    expect(tree.get("system-prompt.md")).toMatch(/### inbox-watch\n[^#]*no commands/);
  });
});

describe("hcpx generate: confirm markers", () => {
  const gated: [string, string][] = [
    ["ledger", "entry.delete"],
    ["ledger", "transfer"],
    ["todo", "delete"],
  ];
  it("every gated write carries its confirm marker in every output", async () => {
    const p = scratchProject({ packs: ALL, allow: ["*"] });
    // An author who forgot the marker in the Skill row, and one who forgot the row:
    // the copy still carries it (policy.json is the truth).
    const ledgerSkill = join(p.dir, "packs/ledger/SKILL.md");
    writeFileSync(
      ledgerSkill,
      readFileSync(ledgerSkill, "utf8").replace(
        "| Move money from one account to another | write, confirm |",
        "| Move money from one account to another | write |",
      ),
    );
    const todoSkill = join(p.dir, "packs/todo/SKILL.md");
    writeFileSync(todoSkill, readFileSync(todoSkill, "utf8").replace(/^\| `delete` .*\n/m, ""));
    const r = await generate(p.dir);
    expect(r.code, r.stderr).toBe(0);
    const tree = readTree(join(p.dir, GEN));
    const block = tree.get("system-prompt.md")!;
    for (const [pack, verb] of gated) {
      const name = toolName(pack, verb);
      // prompt block
      const verbsLine = block
        .split(`### ${pack}\n`)[1]!
        .split("\n")
        .find((l) => l.startsWith("Verbs:"))!;
      expect(verbsLine).toContain(`${verb} (w, confirm required)`);
      // in-process tool lists, three dialects
      const mcp = (
        JSON.parse(tree.get("tools/mcp.json")!) as {
          name: string;
          description: string;
          inputSchema: { properties: Record<string, unknown> };
        }[]
      ).find((t) => t.name === name)!;
      expect(mcp.description).toContain("confirm required");
      expect(mcp.inputSchema.properties.confirm).toEqual(expect.objectContaining({ type: "boolean" }));
      const anth = (
        JSON.parse(tree.get("tools/anthropic.json")!) as {
          name: string;
          description: string;
          input_schema: { properties: Record<string, unknown> };
        }[]
      ).find((t) => t.name === name)!;
      expect(anth.description).toContain("confirm required");
      expect(anth.input_schema.properties.confirm).toBeDefined();
      const oai = (
        JSON.parse(tree.get("tools/openai.json")!) as {
          type: string;
          function: { name: string; description: string; parameters: { properties: Record<string, unknown> } };
        }[]
      ).find((t) => t.function.name === name)!;
      expect(oai.type).toBe("function");
      expect(oai.function.description).toContain("confirm required");
      expect(oai.function.parameters.properties.confirm).toBeDefined();
      // shell shape
      const shell = JSON.parse(tree.get("tools/shell.json")!) as { name: string; description: string }[];
      const gatedList = /confirm required: ([^—]*) —/.exec(shell[0]!.description)![1]!.split(", ");
      expect(gatedList).toContain(`${pack}.${verb}`);
      // Skill copy: the hot-path row
      const row = tree
        .get(`skills/${pack}/SKILL.md`)!
        .split("\n")
        .find((l) => l.startsWith(`| \`${verb}\``));
      expect(row, `${pack} ${verb} row`).toBeDefined();
      expect(row).toMatch(/\| write, confirm \|$/);
      // host previews, when the host engine renders them: wherever the command is named, the marker is there
      for (const [path, content] of tree) {
        if (!path.startsWith("hosts/")) continue;
        if (!(content.includes(name) || content.includes(`${pack}.${verb}`) || token(`${pack} ${verb}`).test(content)))
          continue;
        // a host's own permission rules name the command to send it to the host's approval prompt: that is its marker
        const approval = hostApproval(path, content, name);
        if (approval !== undefined) expect(approval, `${path}: ${name} must need the host's approval`).toBe(true);
        else expect(content, path).toMatch(/confirm/);
      }
    }
    // reads carry no marker and are read-only for MCP clients
    const balance = (
      JSON.parse(tree.get("tools/mcp.json")!) as {
        name: string;
        description: string;
        annotations: Record<string, boolean>;
      }[]
    ).find((t) => t.name === "ledger__balance")!;
    expect(balance.description).not.toContain("confirm");
    expect(balance.annotations).toEqual({ readOnlyHint: true });
  });
});

/**
 * For a host's permission-rule file: whether it sends the tool `name` to the
 * host's approval prompt (and never allows it); undefined for any other file.
 */
function hostApproval(path: string, content: string, name: string): boolean | undefined {
  if (path.endsWith(".claude/settings.json")) {
    const p = (JSON.parse(content) as { permissions: { allow?: string[]; ask?: string[] } }).permissions;
    return (p.ask ?? []).includes(`mcp__hcp__${name}`) && !(p.allow ?? []).some((r) => r.includes(name));
  }
  if (path.endsWith(".gemini/settings.json")) {
    const t = (JSON.parse(content) as { tools?: { allowed?: string[]; confirmationRequired?: string[] } }).tools ?? {};
    return (t.confirmationRequired ?? []).includes(`mcp_hcp_${name}`) && !(t.allowed ?? []).includes(`mcp_hcp_${name}`);
  }
  if (path.endsWith("opencode.json"))
    return (JSON.parse(content) as { permission?: Record<string, string> }).permission?.[`hcp_${name}`] === "ask";
  if (path.endsWith(".codex/config.toml"))
    return new RegExp(`\\b${name} = \\{ approval_mode = "prompt" \\}`).test(content);
  return undefined;
}

describe("hcpx generate: tool names", () => {
  function customPack(dir: string, verbs: string[]) {
    const pd = join(dir, "packs", "zz");
    mkdirSync(pd, { recursive: true });
    const cmds = verbs
      .map((v) => `    { verb_key: ${JSON.stringify(v)}, summary: "Do ${v}", cli: ["zz", "x"], args: {} },`)
      .join("\n");
    writeFileSync(
      join(pd, "surface.json"),
      `{\n  hcp: "1.1",\n  id: "zz",\n  version: "0.1.0",\n  description: "test pack",\n  kind: "wrap",\n  wrap: { bin: "../../bins/ledger.mjs" },\n  commands: [\n${cmds}\n  ],\n}\n`,
    );
    writeFileSync(
      join(pd, "policy.json"),
      JSON.stringify({ rows: Object.fromEntries(verbs.map((v) => [v, { operation: "read" }])) }),
    );
    writeFileSync(
      join(pd, "SKILL.md"),
      `---\nname: zz\ndescription: test pack\nleads: ["zz: test"]\n---\n\n| verb | what it does | read/write |\n|---|---|---|\n${verbs.map((v) => `| \`${v}\` | Do ${v} | read |`).join("\n")}\n`,
    );
  }

  it("a name over 64 characters is a clear error naming file, path and line", async () => {
    const p = scratchProject({ packs: ["zz"], allow: ["zz.*"] });
    const long = `a${"b".repeat(40)}.c${"d".repeat(20)}`; // zz__ + 63 = 67
    customPack(p.dir, ["ok", long]);
    const r = await generate(p.dir, ["--json"]);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.stdout) as {
      error: { code: string; file: string; line: number; path: string; message: string; hint?: string };
    };
    expect(error).toMatchObject({ code: "tool_name", line: 10, path: "commands[1].verb_key" });
    expect(error.file).toMatch(/packs\/zz\/surface\.json$/);
    expect(error.message).toMatch(/67 characters; tool names are at most 64/);
    expect(error.hint).toBeTruthy();
    expect(r.stderr).not.toMatch(/\n\s+at .*\.m?js:\d+/); // no stack trace
    expect(existsSync(join(p.dir, GEN))).toBe(false);
  });

  it("two commands mapping to one tool name is a clear error naming both", async () => {
    const p = scratchProject({ packs: ["zz"], allow: ["zz.*"] });
    customPack(p.dir, ["entry.add", "entry_add"]);
    const r = await generate(p.dir, ["--json"]);
    expect(r.code).toBe(1);
    const env = JSON.parse(r.stdout);
    expect(env.ok).toBe(false);
    expect(env.error.code).toBe("tool_name_collision");
    expect(env.error.message).toContain("zz.entry_add and zz.entry.add both map to the tool name 'zz__entry_add'");
    expect(env.error.path).toBe("commands[1].verb_key");
    expect(env.error.file).toMatch(/packs\/zz\/surface\.json$/);
  });

  it("an ungranted colliding command does not block generation", async () => {
    const p = scratchProject({ packs: ["zz"], allow: ["zz.*"], deny: ["zz.entry_add"] });
    customPack(p.dir, ["entry.add", "entry_add"]);
    const r = await generate(p.dir);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe("hcpx generate --check", () => {
  it("clean, differs, missing, stale; a user's file is never deleted", async () => {
    const p = scratchProject({ packs: ["ledger", "transit", "git"] });
    const out = join(p.dir, GEN);
    let r = await generate(p.dir, ["--check", "--json"]);
    expect(r.code).toBe(1); // nothing generated yet: every file missing
    expect(JSON.parse(r.stdout).error.files).toContainEqual({ path: "system-prompt.md", state: "missing" });
    expect((await generate(p.dir)).code).toBe(0);
    r = await generate(p.dir, ["--check", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data).toMatchObject({ current: true });

    writeFileSync(join(out, "tools/mcp.json"), "[]\n");
    rmSync(join(out, "skills/transit/SKILL.md"));
    writeFileSync(join(out, "NOTES.md"), "my own notes\n"); // a user's file
    r = await generate(p.dir, ["--check", "--json"]);
    expect(r.code).toBe(1);
    const env = JSON.parse(r.stdout);
    expect(env.error.code).toBe("out_of_date");
    expect(env.error.files).toEqual([
      { path: "skills/transit/SKILL.md", state: "missing" },
      { path: "tools/mcp.json", state: "differs" },
    ]);
    // --check wrote nothing
    expect(readFileSync(join(out, "tools/mcp.json"), "utf8")).toBe("[]\n");

    // git deactivated: its Skill copy becomes stale
    const cfg = JSON.parse(readFileSync(p.config, "utf8"));
    cfg.packs = cfg.packs.filter((d: string) => d !== "./packs/git");
    cfg.grants.allow = cfg.grants.allow.filter((g: string) => g !== "git.*");
    writeFileSync(p.config, JSON.stringify(cfg));
    expect((await generate(p.dir)).code).toBe(0);
    expect(existsSync(join(out, "skills/git/SKILL.md"))).toBe(false);
    expect(existsSync(join(out, "skills/git"))).toBe(false);
    expect(readFileSync(join(out, "NOTES.md"), "utf8")).toBe("my own notes\n");
    r = await generate(p.dir, ["--check"]);
    expect(r.code, r.stderr).toBe(0);

    // stale: listed in the manifest, still on disk, no longer planned
    cpSync(join(out, "skills/ledger"), join(out, "skills/old"), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(out, ".manifest.json"), "utf8"));
    manifest.files["skills/old/SKILL.md"] = manifest.files["skills/ledger/SKILL.md"];
    writeFileSync(join(out, ".manifest.json"), JSON.stringify(manifest));
    r = await generate(p.dir, ["--check", "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.files).toEqual([{ path: "skills/old/SKILL.md", state: "stale" }]);

    // a stale file the user changed is left in place, with a warning
    writeFileSync(join(out, "skills/old/SKILL.md"), "edited\n");
    r = await generate(p.dir, ["--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data.conflicts).toEqual([
      expect.objectContaining({
        code: "changed_by_user",
        file: ".hcp/generated/skills/old/SKILL.md",
        severity: "warning",
      }),
    ]);
    expect(readFileSync(join(out, "skills/old/SKILL.md"), "utf8")).toBe("edited\n");
  });

  it("a manifest entry that is ignored (a path outside the out dir) is drift for --check, as an ignored ledger entry is for adopt --check", async () => {
    const p = scratchProject({ packs: ["ledger"] });
    const out = join(p.dir, GEN);
    expect((await generate(p.dir)).code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, ".manifest.json"), "utf8"));
    manifest.files["../../hcp.config.json5"] = "0".repeat(64);
    writeFileSync(join(out, ".manifest.json"), JSON.stringify(manifest));
    const r = await generate(p.dir, ["--check", "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.drift).toEqual([
      expect.objectContaining({ kind: "ignored", at: 'files["../../hcp.config.json5"]' }),
    ]);
    expect((await generate(p.dir)).code).toBe(0); // the rewritten manifest no longer names it
    expect((await generate(p.dir, ["--check"])).code).toBe(0);
    expect(existsSync(p.config)).toBe(true);
  });

  it("--out writes elsewhere and the prompt block points at that Skill path", async () => {
    const p = scratchProject({ packs: ["ledger"] });
    const r = await generate(p.dir, ["--out", "gen", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data).toMatchObject({ out: "gen" });
    expect(readFileSync(join(p.dir, "gen/system-prompt.md"), "utf8")).toContain("`gen/skills/<pack>/SKILL.md`");
    expect((await generate(p.dir, ["--out", "gen", "--check"])).code).toBe(0);
  });

  it("--out into a folder of the user's: a file there that hcpx did not write is left in place, named; --out '' is refused", async () => {
    const p = scratchProject({ packs: ["ledger"] });
    mkdirSync(join(p.dir, "docs", "tools"), { recursive: true });
    writeFileSync(join(p.dir, "docs", "system-prompt.md"), "MY NOTES\n");
    writeFileSync(join(p.dir, "docs", "tools", "openai.json"), '{"mine":1}\n');
    const r = await generate(p.dir, ["--out", "docs", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const data = JSON.parse(r.stdout).data as { written: string[]; conflicts: { file: string }[] };
    expect(readFileSync(join(p.dir, "docs", "system-prompt.md"), "utf8")).toBe("MY NOTES\n");
    expect(readFileSync(join(p.dir, "docs", "tools", "openai.json"), "utf8")).toBe('{"mine":1}\n');
    expect(data.written).not.toContain("system-prompt.md");
    expect(data.conflicts.map((c) => c.file).sort()).toEqual(["docs/system-prompt.md", "docs/tools/openai.json"]);
    // the manifest does not claim them, and the check says they need a person
    expect(readFileSync(join(p.dir, "docs", ".manifest.json"), "utf8")).not.toContain('"system-prompt.md"');
    const c = await generate(p.dir, ["--out", "docs", "--check", "--json"]);
    expect(c.code).toBe(1);
    expect(JSON.parse(c.stdout).error.hint).toMatch(/2 file\(s\) it leaves in place \(above\) need moving away first/);
    // moved away: generate writes them, and they are its own from then on
    rmSync(join(p.dir, "docs", "system-prompt.md"));
    rmSync(join(p.dir, "docs", "tools", "openai.json"));
    expect((await generate(p.dir, ["--out", "docs"])).code).toBe(0);
    expect((await generate(p.dir, ["--out", "docs", "--check"])).code).toBe(0);
    const empty = await generate(p.dir, ["--out", "", "--json"]);
    expect(empty.code).toBe(64);
    expect(JSON.parse(empty.stdout).error.message).toBe("--out needs a directory");
  });

  it("--host: previews from the host engine", async () => {
    const p = scratchProject({ packs: ["ledger"] });
    const r = await generate(p.dir, ["--host", "claude"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readTree(join(p.dir, GEN)).size).toBeGreaterThan(0);
    expect([...readTree(join(p.dir, GEN)).keys()].some((k) => k.startsWith("hosts/claude/"))).toBe(true);
    const none = await generate(p.dir, ["--host", "none", "--json"]);
    expect(none.code).toBe(0);
    expect((JSON.parse(none.stdout).data.files as string[]).some((f) => f.startsWith("hosts/"))).toBe(false);
  });
});
