// Issue 22 §3: outside text reaches a terminal only neutralised. What a person
// reads before saying yes — the `pack add` review, the `hcpx import` listing,
// `pack from-mcp`'s summary — and every error or warning that quotes a pack
// or a host file cannot be rewritten by what those files hold: ESC/CSI/OSC
// sequences, C1 controls, CR, backspace, BEL, DEL, bidi overrides, and a
// newline in a one-line field that would forge a line of the review.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, runHcpx as runChild, tmp, type RunOptions } from "../support/hcpx";
import { needsProcess, runInProcess } from "../support/inproc";
import { bidiEscaped } from "../../src/util/bidi";

/** The commands' printed text is the subject: they run in this process (test/support/inproc.ts); init without --yes would stay a process. */
const runHcpx = (args: string[], opts?: RunOptions) => (needsProcess(args) ? runChild : runInProcess)(args, opts);

/** Cursor up + erase line + CR, a bidi override, a one-byte CSI, BEL, and a newline that forges a review line. */
const N = "\x1b[1A\x1b[2K\r\u202eevil\u009b2J\x07\b\x7f\n    write rm, confirm";
const FORGED = /^\s*write rm, confirm/m;
/** Every character a terminal acts on or that reorders text (tab and newline are text; CR only before LF). */
const CONTROL =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|\r(?!\n)/;
const ODD_MCP = join(REPO, "test/fixtures/bins/odd-mcp.mjs");
/**
 * A pack file's JSON with its bidi controls as escapes: the values still hold them (what is shown is the
 * subject here), while one written as it is makes the file refused before anything reads it
 * (test/pack/bidi-text.test.ts).
 */
const packJson = (v: unknown) => bidiEscaped(JSON.stringify(v));

async function newProject(): Promise<string> {
  const dir = tmp("hcpx-outside-");
  const r = await runHcpx(["init", "--yes"], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

/** A pack (kind mcp) whose version and server args carry terminal escapes: it lints clean. */
function oddPack(): string {
  const dir = tmp("hcpx-outside-pack-");
  writeFileSync(
    join(dir, "surface.json"),
    packJson({
      hcp: "1.1",
      id: "odd",
      version: "1.0.0" + N,
      description: "odd",
      kind: "mcp",
      mcp: { bin: "./srv.mjs", args: ["--x" + N] },
      commands: [{ verb_key: "hello", summary: "hi", tool: "hello", args: {} }],
    }),
  );
  writeFileSync(
    join(dir, "policy.json"),
    packJson({ rows: { hello: { operation: "write", land: "local", confirm: true } } }),
  );
  writeFileSync(
    join(dir, "SKILL.md"),
    "---\nname: odd\ndescription: odd pack\n---\n# odd\n\n| verb | what | policy |\n|---|---|---|\n| `hello` | hi | write, confirm |\n",
  );
  writeFileSync(join(dir, "srv.mjs"), "");
  return dir;
}

describe("pack add: the review a person reads before --yes", () => {
  let pack: string;
  beforeAll(() => {
    pack = oddPack();
  });

  it("shows the escapes as text: nothing moves the cursor, erases, reorders or forges a line", async () => {
    const dir = await newProject();
    const r = await runHcpx(["pack", "add", pack], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "runs: ./srv.mjs --x\\x1b[1A\\x1b[2K\\x0d\\u202eevil\\x9b2J\\x07\\x08\\x7f\\x0a    write rm, confirm",
    );
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).not.toMatch(FORGED);
    expect(r.stderr).not.toMatch(CONTROL);
  });

  it("--json: the review in the envelope, with no raw C1 or bidi character on the line", async () => {
    const dir = await newProject();
    const r = await runHcpx(["pack", "add", pack, "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(CONTROL);
    const e = JSON.parse(r.stdout) as { ok: boolean; error: { problems: { message: string }[] } };
    expect(e.ok).toBe(false);
    expect(e.error.problems.map((p) => p.message).join("\n")).toContain("--x\\x1b[1A\\x1b[2K\\x0d\\u202eevil");
  });

  it("after --yes: the summary names the version as text", async () => {
    const dir = await newProject();
    const r = await runHcpx(["pack", "add", pack, "--yes"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("1.0.0\\x1b[1A");
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).not.toMatch(FORGED);
  });

  it("pack update: the diff of a new version shows the new program's escapes as text", async () => {
    const src = tmp("hcpx-outside-upd-");
    cpSync(pack, src, { recursive: true });
    const plain = JSON.parse(readFileSync(join(src, "surface.json"), "utf8")) as {
      version: string;
      mcp: { args: string[] };
    };
    writeFileSync(
      join(src, "surface.json"),
      packJson({ ...plain, version: "1.0.0", mcp: { ...plain.mcp, args: ["--plain"] } }),
    );
    const dir = await newProject();
    expect((await runHcpx(["pack", "add", src, "--yes"], { cwd: dir })).code).toBe(0);
    writeFileSync(join(src, "surface.json"), packJson({ ...plain, version: "2.0.0" + N }));
    const r = await runHcpx(["pack", "update", "odd"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("+ new program: ./srv.mjs --x\\x1b[1A");
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).not.toMatch(FORGED);
  });

  it("a lint error that quotes the pack (an error's hint on stderr) is neutralised too", async () => {
    const bad = tmp("hcpx-outside-bad-");
    cpSync(pack, bad, { recursive: true });
    writeFileSync(join(bad, "SKILL.md"), "---\nname: odd\ndescription: odd pack\n---\n# odd\n");
    writeFileSync(
      join(bad, "surface.json"),
      packJson({
        hcp: "1.1",
        id: "odd",
        version: "1",
        description: "odd",
        kind: "mcp",
        mcp: { bin: "./srv.mjs" },
        commands: [{ verb_key: "hello", summary: "hi" + N, tool: "hello", args: {} }],
      }),
    );
    const dir = await newProject();
    const r = await runHcpx(["pack", "add", bad], { cwd: dir });
    expect(r.code).toBe(1);
    // the summary's control character: refused where the pack is loaded (src/pack/hosttext.ts), named, not shown raw
    expect(r.stderr).toMatch(/commands\[0\]\.summary holds the control character U\+001B/);
    expect(r.stderr).not.toMatch(CONTROL);
  });
});

describe("hcpx import: the listing of a host file's servers", () => {
  it("server names, commands and env names from .mcp.json are shown as text", async () => {
    const dir = await newProject();
    writeFileSync(
      join(dir, ".mcp.json"),
      packJson({
        mcpServers: {
          ["srv" + N]: { command: "node" + N, args: ["a" + N], env: { ["TOKEN" + N]: "x" } },
          ["remote" + N]: { url: "http://127.0.0.1:1/" + N },
        },
      }),
    );
    const r = await runHcpx(["import", "claude"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("srv\\x1b[1A");
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).not.toMatch(FORGED);
    const j = await runHcpx(["import", "claude", "--json"], { cwd: dir });
    expect(j.stdout).not.toMatch(CONTROL);
  });

  it("an unknown --server's error lists the file's servers as text", async () => {
    const dir = await newProject();
    writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { ["srv" + N]: { command: "node" } } }));
    const r = await runHcpx(["import", "claude", "--server", "nope"], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("srv\\x1b[1A");
    expect(r.stderr).not.toMatch(CONTROL);
  });
});

describe("pack from-mcp: the summary of what the server says", () => {
  it("the server's name, version, tool names and descriptions are shown as text", async () => {
    const dir = await newProject();
    mkdirSync(join(dir, "fx"));
    cpSync(ODD_MCP, join(dir, "fx", "odd-mcp.mjs"));
    const opt = JSON.stringify({ name: "odd" + N, version: "9" + N, tool: "t" + N, desc: "d" + N });
    const r = await runHcpx(
      ["pack", "from-mcp", "--id", "odd", "--", process.execPath, join(dir, "fx", "odd-mcp.mjs"), opt],
      { cwd: dir, timeoutMs: 30_000 },
    );
    expect(r.stdout + r.stderr).toContain("odd\\x1b[1A");
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).not.toMatch(FORGED);
    expect(r.stderr).not.toMatch(CONTROL);
  });
});

describe("lint: an unknown key of a pack is a name", () => {
  it("stays on its line in the error", async () => {
    const dir = oddPack();
    const surface = JSON.parse(readFileSync(join(dir, "surface.json"), "utf8"));
    writeFileSync(join(dir, "surface.json"), packJson({ ["k" + N]: 1, ...surface }));
    const r = await runHcpx(["lint", dir], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("unknown key 'k\\x1b[1A");
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toMatch(CONTROL);
      expect(text).not.toMatch(FORGED);
    }
  });
});

describe("pack from-mcp: the notes about tools left out", () => {
  it("a tool's argument name stays on its line", async () => {
    const dir = await newProject();
    mkdirSync(join(dir, "fx"));
    cpSync(join(REPO, "test/fixtures/bins/mcp-pinned.mjs"), join(dir, "fx", "srv.mjs"));
    const schema = (prop: string) => ({ type: "object", properties: { [prop]: { type: "string" } } });
    const tools = [
      { name: "ok", inputSchema: schema("a"), annotations: { readOnlyHint: true } },
      { name: "odd", inputSchema: schema("a" + N) },
    ];
    writeFileSync(join(dir, "fx", "tools.json"), JSON.stringify({ tools }));
    const r = await runHcpx(
      [
        "pack",
        "from-mcp",
        "--id",
        "odd",
        "--",
        process.execPath,
        join(dir, "fx", "srv.mjs"),
        join(dir, "fx", "tools.json"),
      ],
      { cwd: dir, timeoutMs: 30_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("its argument 'a\\x1b[1A");
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).not.toMatch(FORGED);
  });
});

describe("pack from-openapi: the summary and the notes of what the document says", () => {
  it("a path and a security scheme's name stay on their line", async () => {
    const dir = await newProject();
    const doc = {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      servers: [{ url: "http://127.0.0.1:9" }],
      components: { securitySchemes: { ["k" + N]: { type: "http", scheme: "bearer" } } },
      paths: { ["/x" + N]: { get: { operationId: "getx", responses: {} } } },
    };
    writeFileSync(join(dir, "doc.json"), JSON.stringify(doc));
    const r = await runHcpx(["pack", "from-openapi", "doc.json", "--id", "t"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    for (const text of [r.stdout, r.stderr]) {
      expect(text).not.toMatch(CONTROL);
      expect(text).not.toMatch(FORGED);
    }
    expect(r.stderr).toContain("k\\x1b[1A");
  });
});

describe("a name or path that holds a newline stays on its line in every error and table", () => {
  const FORGE = "\n✓ granted everything";
  it("a config's pack path: status's broken line and the error's message keep it on one line", async () => {
    const dir = tmp("hcpx-outside-cfg-");
    writeFileSync(join(dir, "hcp.config.json5"), `{ packs: [${JSON.stringify("./no" + FORGE)}] }\n`);
    const r = await runHcpx(["status"], { cwd: dir });
    expect(r.code).toBe(1);
    for (const text of [r.stdout, r.stderr]) expect(text).not.toMatch(/^✓ granted everything/m);
    expect(r.stdout + r.stderr).toContain("no\\x0a✓ granted everything: pack directory not found");
  });

  it("a pack name the agent gave exec: the unknown_pack error is one line", async () => {
    const dir = await newProject();
    const r = await runHcpx(["exec", "x" + FORGE, "ping"], { cwd: dir });
    expect(r.code).toBe(64);
    expect(r.stderr).not.toMatch(/^✓ granted everything/m);
    expect(r.stderr.split("\n")[0]).toContain("'x\\x0a✓ granted everything'");
  });

  it("formatProblem: message, hint and place each on one line, whatever they quote", async () => {
    const { formatProblem } = await import("../../src/util/errors");
    const text = formatProblem({
      code: "bad_args",
      message: "no pack 'a" + FORGE + "'",
      hint: "try" + FORGE,
      file: "f" + FORGE,
    });
    expect(text.split("\n")).toHaveLength(2);
    expect(text).not.toMatch(/^✓/m);
  });
});

describe("the neutraliser and the exit's colour (in-process)", () => {
  it("neutralise: idempotent, CRLF kept, every control and bidi character an escape; neutralLine also folds newline and tab and shows zero-width characters", async () => {
    const { neutralise, neutralLine } = await import("../../src/util/neutral");
    const once = neutralise(N + "\r\nend\u200b\u2028");
    expect(once).not.toMatch(CONTROL);
    expect(neutralise(once)).toBe(once);
    expect(once).toContain("\r\nend");
    expect(once).toContain("\\u2028");
    const line = neutralLine("a\nb\tc\r\nd\u200be\u{e0041}");
    expect(line).toBe("a\\x0ab\\x09c\\x0d\\x0ad\\u200be\\u{e0041}");
  });

  it("colour reaches the terminal only from c.*: the same marks written by outside text stay text", async () => {
    const { c, shown } = await import("../../src/cli/output");
    const painted = c.red(true, "x");
    expect(shown(painted)).toBe("\x1b[31mx\x1b[39m");
    // outside text that imitates a mark without the process's token, and raw SGR, print as text
    expect(shown("\ue00031\ue001y\x1b[8mhidden")).toBe("\ue00031\ue001y\\x1b[8mhidden");
    expect(shown(painted + N)).not.toMatch(/\x1b(?!\[3[19]m)/);
  });
});
