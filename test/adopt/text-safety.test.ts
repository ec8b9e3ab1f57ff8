// Generated text cannot break the files it lands in: block markers count only
// on a line of their own; pack text holding a marker or a control character is
// refused by lint and adopt; a command word holding a host's variable syntax is
// refused for that host; TOML strings follow the TOML spec's escaping.
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import JSON5 from "json5";
import { HCPX, REPO } from "../support/hcpx";
import { scratch as scratchChild, snapshot } from "./helpers";
import { inProcess } from "../support/inproc";
import { BEGIN, END, removeBlock, setBlock } from "../../src/host/mdblock";
import { renderSimple, type TemplateContext } from "../../src/host/templates";
import { renderWithHandlebars } from "../support/handlebars";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

/** A line of markdown a user might write: never exactly a marker, often mentioning one. */
const userLine = fc
  .tuple(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(BEGIN, END, "<!-- hcp:begin", "hcp:end -->", "<!--hcp:begin-->", "", "`" + BEGIN + "`"),
    fc.string({ maxLength: 12 }),
    fc.boolean(),
  )
  .map(([a, m, b, trail]) => (a + m + b + (trail ? " " : "")).replace(/[\r\n]/g, " "))
  .filter((l) => l !== BEGIN && l !== END)
  // (a line that opens a code fence makes the rest of the file code: test/adopt/md-fence.test.ts)
  .filter((l) => !/^ {0,3}(```|~~~)/.test(l));
const userText = fc
  .tuple(fc.array(userLine, { maxLength: 8 }), fc.constantFrom("\n", "\r\n"), fc.boolean())
  .map(([ls, eol, last]) => ls.join(eol) + (last && ls.length ? eol : ""));

describe("markdown block markers count only on a line of their own", () => {
  it("property: a user's text that mentions the markers inline survives write and remove byte for byte", () => {
    fc.assert(
      fc.property(
        userText,
        fc.string({ maxLength: 40 }).map((s) => "## Packs\n" + s.replace(/<!--/g, "<!- -")),
        (text, block) => {
          const w = setBlock(text, block, "CLAUDE.md");
          expect(w.text.startsWith(text)).toBe(true);
          // written again (a re-run): the same file
          expect(setBlock(w.text, block, "CLAUDE.md").text).toBe(w.text);
          expect(removeBlock(w.text, "CLAUDE.md", w.prefix)).toBe(text);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("adopt --write keeps a CLAUDE.md line that mentions the markers; --remove restores the file byte for byte", async () => {
    const s = scratch();
    const mine = `# Notes\r\nhcpx writes its block between ${BEGIN} and ${END}; leave that alone.\r\n  ${END}\r\n`;
    s.write("CLAUDE.md", mine);
    const w = await s.adopt("claude", "--write");
    expect(w.code).toBe(0);
    expect(s.read("CLAUDE.md").startsWith(mine)).toBe(true);
    expect(s.read("CLAUDE.md")).toContain(`\r\n${BEGIN}\r\n`);
    expect((await s.adopt("claude", "--check")).code).toBe(0);
    expect((await s.adopt("claude", "--remove", "--write")).code).toBe(0);
    expect(s.read("CLAUDE.md")).toBe(mine);
  });
});

describe("pack text that would break a host file is refused", () => {
  it("a lead holding the end marker: lint error naming SKILL.md and its line; adopt refuses it, nothing written", async () => {
    const s = scratch();
    const f = join(s.dir, "packs/ledger/SKILL.md");
    writeFileSync(f, readFileSync(f, "utf8").replace('  - "ledger: balances', `  - "ledger: ${END} balances`));
    const l = await s.run(["lint", "packs/ledger"]);
    expect(l.code).toBe(1);
    expect(l.stderr + l.stdout).toMatch(
      /packs\/ledger\/SKILL\.md:5:\d+: SKILL\.md holds the hcp block marker <!-- hcp:end -->/,
    );
    const before = snapshot(s.dir);
    const r = await s.adopt("claude", "--write");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error packs\/ledger\/SKILL\.md:5:\d+: SKILL\.md holds the hcp block marker/);
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("an escape sequence in the surface description, a NUL in a Skill body: lint errors with file and path; adopt refuses", async () => {
    const s = scratch();
    const sf = join(s.dir, "packs/transit/surface.json");
    const surface = readFileSync(sf, "utf8");
    writeFileSync(sf, surface.replace(/description: "([^"]*)"/, 'description: "$1 \\u001b[2J"'));
    const kf = join(s.dir, "packs/ledger/SKILL.md");
    writeFileSync(kf, readFileSync(kf, "utf8") + "\nend\u0000\n");
    const l = await s.run(["lint", "packs/transit", "packs/ledger", "--json"]);
    const env = JSON.parse(l.stdout);
    const probs = JSON.stringify(env);
    expect(probs).toMatch(
      /"code":"host_text_unsafe".*"file":"packs\/transit\/surface\.json".*"path":"description"|"path":"description".*"code":"host_text_unsafe"/,
    );
    expect(probs).toMatch(/control character U\+001B/);
    expect(probs).toMatch(/control character U\+0000/);
    const r = await s.adopt("cursor", "--write");
    expect(r.code).toBe(1);
    // the surface is refused where the pack is loaded, before its Skill is read
    expect(r.stderr).toMatch(
      /packs\/transit\/surface\.json:\d+:\d+ at description: description holds the control character U\+001B/,
    );
  });
});

describe("a host's variable syntax in the MCP command", () => {
  const cases: [string, string, string][] = [
    ["claude", "${HOME}", ".mcp.json"],
    ["cursor", "${workspaceFolder}", ".cursor/mcp.json"],
    ["vscode", "${env:HOME}", ".vscode/mcp.json"],
    ["gemini", "$HOME", ".gemini/settings.json"],
    ["opencode", "{file:/etc/passwd}", "opencode.json"],
  ];
  for (const [host, word, file] of cases) {
    it(`${host}: a command word holding ${word} is refused with a clear error; nothing written`, async () => {
      const s = scratch();
      const before = snapshot(s.dir);
      const r = await s.adopt(host, "--write", "--command", `hcpx mcp '--x=/a/${word}/b'`);
      expect(snapshot(s.dir)).toEqual(before);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error ${file}: the MCP command word "--x=/a/${word}/b" holds`);
      expect(r.stderr).toMatch(/expands as a variable here .*it has no escape for it/);
      expect(r.stderr).toMatch(/hint: .*--command/);
    });
  }

  it("codex has no variable syntax: the same words are written literally (and read back as such)", async () => {
    const s = scratch();
    const r = await s.adopt("codex", "--write", "--command", `hcpx mcp '--x=\${HOME}$HOME{env:X}'`);
    expect(r.code).toBe(0);
    expect(
      (parseToml(s.read(".codex/config.toml")) as { mcp_servers: { hcp: { args: string[] } } }).mcp_servers.hcp.args,
    ).toEqual(["mcp", "--x=${HOME}$HOME{env:X}", "--shape", "per-command", "--host", "codex"]);
  });

  it("the syntax is data: every host MCP target that a host expands variables in declares `vars`", () => {
    for (const h of ["claude", "cursor", "vscode", "gemini", "opencode", "devin"]) {
      const d = JSON5.parse(readFileSync(join(REPO, "hosts", `${h}.json5`), "utf8"));
      for (const sc of Object.values(d.scopes) as {
        targets: { format: string; template?: string; vars?: { pattern: string } }[];
      }[]) {
        // the MCP entries (templated); permission-rule targets carry no command
        for (const t of sc.targets.filter((x) => (x.format === "json" || x.format === "jsonc") && x.template))
          expect(t.vars?.pattern, `${h}`).toBeTruthy();
      }
    }
  });
});

describe("TOML strings follow the TOML spec's escaping", () => {
  const ctx = (argv: string[]): TemplateContext => ({
    command: argv[0]!,
    args: argv.slice(1),
    argv,
    envVars: [],
    promptBlock: "",
    hash: "",
    packs: [],
    host: "codex",
    hostName: "Codex",
    bundle: undefined,
  });
  const tpl = "[mcp_servers.hcp]\ncommand = {{{toml command}}}\nargs = {{{toml args}}}\n";
  const word = fc.string({
    unit: fc.oneof(
      fc.constantFrom(
        "\u007f",
        "\u0000",
        "\u001b",
        "\u0085",
        '"',
        "\\",
        "\n",
        "\r",
        "\t",
        "\b",
        "\f",
        "\u2028",
        "'",
        "#",
        "]",
      ),
      fc.constantFrom(..."ab$ {}=."),
    ),
    maxLength: 12,
  });
  it("property: any command line renders (both renderers) to TOML that smol-toml reads back to the same strings", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { minLength: 1, maxLength: 4 }),
        fc.string({ unit: "grapheme", maxLength: 8 }),
        async (argv, extra) => {
          const words = [...argv, extra];
          for (const text of [renderSimple(tpl, ctx(words))!, renderWithHandlebars(tpl, ctx(words))]) {
            const v = parseToml(text) as { mcp_servers: { hcp: { command: string; args: string[] } } };
            expect([v.mcp_servers.hcp.command, ...v.mcp_servers.hcp.args]).toEqual(words);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("adopt codex with a DEL in the command writes a config.toml Codex can parse", async () => {
    const s = scratch();
    const r = await s.adopt("codex", "--write", "--command", "hcpx mcp a\u007fb");
    expect(r.code).toBe(0);
    expect(s.read(".codex/config.toml")).toContain('"a\\u007Fb"');
    expect(
      (parseToml(s.read(".codex/config.toml")) as { mcp_servers: { hcp: { args: string[] } } }).mcp_servers.hcp.args,
    ).toEqual(["mcp", "a\u007fb", "--shape", "per-command", "--host", "codex"]);
  });
});
