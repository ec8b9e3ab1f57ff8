// Codex's config.toml is edited as text (src/host/tomledit.ts): hcpx's own
// [mcp_servers.hcp] table changes, every other byte stays. These run adopt on
// files a person may well have, and check the bytes: in this process
// (test/support/inproc.ts: the same program, argv, cwd, environment, stdout,
// stderr and exit code), since what adopt decides and writes is under test.
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { envelope, HCPX, noStack, REPO } from "../support/cli";
import { checkRest } from "../../src/host/formats/toml";
import { scanToml } from "../../src/host/tomlscan";
import { inProcess } from "../support/inproc";
import { scratch as scratchChild, snapshot } from "./helpers";

const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

const CONFIG = ".codex/config.toml";

/** A scratch project adopted for Codex: its config.toml holds hcpx's table alone. */
async function adopted() {
  const s = scratch({ hcpxOnPath: true }); // the entry runs `hcpx mcp`
  const r = await s.adopt("codex", "--write");
  expect(r.code, r.stderr).toBe(0);
  return { s, hcp: s.read(CONFIG) };
}

/** adopt codex --write over a config.toml holding `text`: refused with `code` at line 2, saying what to do; nothing written. */
async function refusedAtLine2(text: string, code: string): Promise<{ message: string; hint: string }> {
  const s = scratch();
  s.write(CONFIG, text);
  const before = snapshot(s.dir);
  const r = await s.adopt("codex", "--write", "--json");
  expect(r.code).toBe(1);
  noStack(r);
  const e = envelope(r).error!;
  expect(e).toMatchObject({ code, file: CONFIG, line: 2 });
  expect(e.hint).toMatch(/then run the command again/);
  expect(snapshot(s.dir)).toEqual(before);
  return { message: e.message, hint: e.hint ?? "" };
}

describe("an edit that would change anything outside hcpx's table is refused", () => {
  it("checkRest: the rest of the document as it was passes; a table lost or a value changed is refused", () => {
    const before = parseToml('model = "o3"\n[profiles.deep]\nmodel = "o3"\n[mcp_servers.hcp]\ncommand = "a"\n');
    const key = ["mcp_servers", "hcp"];
    // hcpx's own entry changed or gone (and mcp_servers with it): fine
    expect(() =>
      checkRest(before, 'model = "o3"\n[profiles.deep]\nmodel = "o3"\n', key, "c.toml", "removing"),
    ).not.toThrow();
    expect(() =>
      checkRest(
        before,
        'model = "o3"\n[profiles.deep]\nmodel = "o3"\n[mcp_servers.hcp]\ncommand = "b"\n',
        key,
        "c.toml",
        "writing",
      ),
    ).not.toThrow();
    // anything else changed: refused, with what, the file and "nothing was written"
    expect(() => checkRest(before, 'model = "o3"\n', key, "c.toml", "removing")).toThrow(
      /removing \[mcp_servers\.hcp\] would change other tables or keys of this file too; nothing was written/,
    );
    expect(() => checkRest(before, 'model = "o4"\n[profiles.deep]\nmodel = "o3"\n', key, "c.toml", "removing")).toThrow(
      /nothing was written/,
    );
    expect(() => checkRest(before, "[a]\n[a]\n", key, "c.toml", "writing")).toThrow(/does not parse/);
  });
});

describe("a \"\"\" or ''' in a comment or a one-line string is text, not the start of a string", () => {
  const mine =
    '# tip: Codex takes """ strings for long prompts\n[profiles.deep]\nmodel = "o3"\ndeveloper_instructions = """\nThink hard.\n"""\n\n[profiles.fast]\nmodel = "o4-mini"\n';

  it("the scanner sees the headers TOML sees", () => {
    const text =
      '# odd """ and \'\'\' here\nnote = "say \\" \'\'\' [x]"\nlit = \'"""\'\n[a] # [b]\ns = """\n[not.a.header]\n""""\nt = \'\'\'\n[nor.this]\'\'\'\narr = [\n  "[x]", # ]\n  { k = "}" },\n]\n[[c."d.e"]]\n\'f g\'.h = 1\n';
    expect(() => parseToml(text)).not.toThrow();
    const items = scanToml(text, "c.toml");
    expect(items.filter((i) => i.kind === "header").map((i) => [i.path, i.line])).toEqual([
      [["a"], 4],
      [["c", "d.e"], 14],
    ]);
    expect(items.filter((i) => i.kind === "keyval").map((i) => i.path)).toEqual([
      ["note"],
      ["lit"],
      ["s"],
      ["t"],
      ["arr"],
      ["f g", "h"],
    ]);
    // the items cover the text whole, in order
    expect(items.map((i) => text.slice(i.start, i.end)).join("")).toBe(text);
  });

  it('--remove takes out hcpx\'s table only: [profiles.deep] after a comment with """ stays', async () => {
    const { s, hcp } = await adopted();
    s.write(CONFIG, hcp + mine);
    const r = await s.adopt("codex", "--remove", "--write");
    expect(r.code, r.stderr).toBe(0);
    expect(s.read(CONFIG)).toBe(mine);
  });

  it("a re-adopt that changes the entry replaces hcpx's table only", async () => {
    const { s, hcp } = await adopted();
    s.write(CONFIG, hcp + mine);
    const r = await s.adopt("codex", "--write", "--command", "npx -y hcpx mcp");
    expect(r.code, r.stderr).toBe(0);
    const after = parseToml(s.read(CONFIG)) as Record<string, Record<string, Record<string, unknown>>>;
    expect(after.profiles).toEqual((parseToml(mine) as Record<string, unknown>).profiles);
    expect(after.mcp_servers!.hcp!.command).toBe("npx");
  });

  it('an odd """ above [mcp_servers.hcp] does not hide it: --remove takes it out and leaves the rest', async () => {
    const { s, hcp } = await adopted();
    const head = '# odd """ here\nnote = "say \'\'\' twice"\n';
    const tail = '\n[profiles.deep]\ndeveloper_instructions = """\nThink.\n"""\n';
    s.write(CONFIG, head + hcp + tail);
    const r = await s.adopt("codex", "--remove", "--write");
    expect(r.code, r.stderr).toBe(0);
    expect(s.read(CONFIG)).toBe(head + tail);
  });
});

describe("comment and blank lines after hcpx's table are the person's: they stay", () => {
  const other = '\n# --- Other server: ask Bob before changing ---\n[mcp_servers.other]\ncommand = "x"\n';

  it("--remove of a file hcpx created leaves what the person appended, byte for byte", async () => {
    const { s, hcp } = await adopted();
    s.write(CONFIG, hcp + other);
    const r = await s.adopt("codex", "--remove", "--write");
    expect(r.code, r.stderr).toBe(0);
    expect(s.read(CONFIG)).toBe(other);
  });

  it("--remove from a file of the person's gives it back as it was, with what they appended since", async () => {
    const s = scratch({ hcpxOnPath: true });
    const theirs = '# mine\nmodel = "o3"\n';
    s.write(CONFIG, theirs);
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    s.write(CONFIG, s.read(CONFIG) + other + "# the end\n");
    const r = await s.adopt("codex", "--remove", "--write");
    expect(r.code, r.stderr).toBe(0);
    expect(s.read(CONFIG)).toBe(theirs + other + "# the end\n");
  });

  it("a re-adopt that changes the entry keeps them too", async () => {
    const { s } = await adopted();
    s.write(CONFIG, s.read(CONFIG) + other);
    const r = await s.adopt("codex", "--write", "--command", "npx -y hcpx mcp");
    expect(r.code, r.stderr).toBe(0);
    const after = s.read(CONFIG);
    expect(after.startsWith('[mcp_servers.hcp]\ncommand = "npx"\n')).toBe(true);
    expect(after.endsWith(other)).toBe(true);
    expect((await s.adopt("codex", "--remove", "--write")).code).toBe(0);
    expect(s.read(CONFIG)).toBe(other);
  });
});

describe("mcp_servers written as a value (an inline table) or as [[mcp_servers]] is refused up front, at the person's line", () => {
  const cases: [string, string, RegExp, RegExp][] = [
    [
      'model = "o3"\nmcp_servers = { other = { command = "x" } }\n',
      "an inline table",
      /^`mcp_servers` is written as a value \(`mcp_servers = …`, an inline table\), which hcpx does not add \[mcp_servers\.hcp\] to; nothing was written$/,
      /\[mcp_servers\.other\] with its keys/,
    ],
    [
      'model = "o3"\n[[mcp_servers]]\nname = "x"\n',
      "an array of tables",
      /^`mcp_servers` is an array of tables \(\[\[mcp_servers\]\]\)/,
      /\[mcp_servers\.<name>\]/,
    ],
  ];
  for (const [text, what, says, hint] of cases) {
    it(`${what}: toml_unsupported at line 2 with what to do; nothing is written`, async () => {
      const e = await refusedAtLine2(text, "toml_unsupported");
      expect(e.message).toMatch(says);
      expect(e.hint).toMatch(hint);
    });
  }
});

describe("TOML 1.1's inline tables over several lines (Codex reads them; hcpx's reader, smol-toml, is TOML 1.0)", () => {
  const cases: [string, string][] = [
    ['model = "o3"\nlimits = {\n  a = 1,\n  b = 2,\n}\n', "over several lines"],
    ['model = "o3"\nlimits = { a = 1, b = 2, }\n', "with a comma after its last key"],
  ];
  for (const [text, what] of cases) {
    it(`an inline table ${what}: bad_toml at its line, saying what to do; nothing is written`, async () => {
      const e = await refusedAtLine2(text, "bad_toml");
      expect(e.message).toMatch(/TOML 1\.1/);
      expect(e.hint).toMatch(/on one line|\[table\]/);
    });
  }
});
