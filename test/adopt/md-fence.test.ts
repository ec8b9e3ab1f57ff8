// hcp markers inside a fenced code block are the person's text (an example of
// hcpx's block, say), never hcpx's block: adopt appends its own block after
// them and --remove gives the file back byte for byte. A block outside a fence
// that the ledger does not know (hcpx did not write it here) is refused like
// any other entry hcpx did not write, unless --force. adopt runs in this
// process (test/support/inproc.ts: the same program, argv, cwd, environment,
// stdout, stderr and exit code), since what adopt decides and writes is under test.
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { HCPX, REPO } from "../support/hcpx";
import { inProcess } from "../support/inproc";
import { scratch as scratchChild, snapshot } from "./helpers";
import { BEGIN, END, findBlock } from "../../src/host/mdblock";

const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

const NOTES = ["# Notes", "How hcpx marks its block:", "```md", BEGIN, "example", END, "```", ""].join("\n");

describe("markdown block: markers inside a code fence are the person's text", () => {
  it("adopt appends its own block after the fence; --check sees it; --remove restores the file byte for byte", async () => {
    const s = scratch();
    s.write("CLAUDE.md", NOTES);
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const after = s.read("CLAUDE.md");
    // the person's text stays as it was, the example included; hcpx's block follows it
    expect(after.startsWith(NOTES)).toBe(true);
    expect(after.slice(NOTES.length)).toMatch(/^\n<!-- hcp:begin -->\n<!-- hcp:prompt [\s\S]*\n<!-- hcp:end -->\n$/);
    expect((await s.adopt("claude", "--check")).code).toBe(0);
    // a re-run finds its own block (after the fence) and changes nothing
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    expect(s.read("CLAUDE.md")).toBe(after);
    expect((await s.adopt("claude", "--remove", "--write")).code).toBe(0);
    expect(s.read("CLAUDE.md")).toBe(NOTES);
  });

  it("~~~ fences, indented fences and a longer closing fence count too; a shorter one does not close", () => {
    const cases = [
      `~~~\n${BEGIN}\nx\n${END}\n~~~\n`,
      `   \`\`\`\`\n${BEGIN}\nx\n${END}\n\`\`\`\`\`\`\n`,
      `\`\`\`\`\n\`\`\`\n${BEGIN}\nx\n${END}\n\`\`\`\`\n`,
      `~~~\r\n${BEGIN}\r\nx\r\n${END}\r\n~~~\r\n`,
      // never closed: the fence runs to the end of the file
      `\`\`\`\n${BEGIN}\nx\n${END}\n`,
    ];
    for (const c of cases) expect(findBlock(c, "CLAUDE.md"), c).toBeUndefined();
    // four spaces, or backticks in a backtick fence's info string: not a fence; the markers are a block
    for (const c of [`    \`\`\`\n${BEGIN}\nx\n${END}\n`, `\`\`\` a\`b\n${BEGIN}\nx\n${END}\n`])
      expect(findBlock(c, "CLAUDE.md")?.inner, c).toBe("x");
  });

  it("a file that ends inside an open fence: refused (hcpx's block would be code), nothing written", async () => {
    const s = scratch();
    s.write("CLAUDE.md", "# Notes\n```sh\nls\n");
    const before = snapshot(s.dir);
    const r = await s.adopt("claude", "--write");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/CLAUDE\.md.*code fence/);
    expect(snapshot(s.dir)).toEqual(before);
  });
});

describe("markdown block: a block outside fences that the ledger does not know", () => {
  it("is refused (not_ours) and left byte for byte; --force replaces it", async () => {
    const s = scratch();
    const mine = `# Notes\n${BEGIN}\nmy own text\n${END}\n`;
    s.write("CLAUDE.md", mine);
    const r = await s.adopt("claude", "--write", "--json");
    expect(r.code).not.toBe(0);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "not_ours", file: "CLAUDE.md", line: 2 });
    expect(s.read("CLAUDE.md")).toBe(mine);
    expect((await s.adopt("claude", "--check")).code).not.toBe(0);
    expect((await s.adopt("claude", "--write", "--force")).code).toBe(0);
    expect(s.read("CLAUDE.md")).not.toContain("my own text");
  });

  it("one that already holds what hcpx would write (its ledger lost) is taken as hcpx's", async () => {
    const s = scratch();
    s.write("CLAUDE.md", "# Notes\n");
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const written = s.read("CLAUDE.md");
    s.write(".hcp/adopted.json", JSON.stringify({ version: 1, hosts: {} }));
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    expect(s.read("CLAUDE.md")).toBe(written);
  });
});
