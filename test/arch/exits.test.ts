// One exit for every byte a person or a program reads (issue 22 §3, §4).
// Readable text and envelopes leave hcpx only through the exits named below,
// and every exit passes the one redaction (src/util/redact.ts redactOut),
// which knows the Binding values in play; readable text also passes the one
// neutraliser (src/util/neutral.ts). A module that writes to stdout/stderr
// itself, spawns with inherited stdio, or hands an envelope, a question or a
// log line out another way fails here. HCPX_ARCH_SRC=<dir> checks another
// tree (e.g. an old checkout's src/).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "../support/hcpx";
import { tsFilesUnder as files } from "../support/tree";

const SRC = process.env.HCPX_ARCH_SRC ?? join(REPO, "src");

const modules = files(SRC).map((f) => relative(SRC, f));
/** The code of a module without its comments (so a comment that names process.stdout is not a write). */
const code = (m: string) =>
  readFileSync(join(SRC, m), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");

/** The text of the top-level function `name` in a module's code: from its declaration to the next closing brace at the start of a line. */
function body(text: string, name: string): string {
  const at = text.search(new RegExp(`^export (?:async )?function ${name}\\b|^(?:async )?function ${name}\\b`, "m"));
  if (at < 0) return "";
  const end = text.indexOf("\n}", at);
  return text.slice(at, end < 0 ? undefined : end + 2);
}

/** Writes to the process's own stdout/stderr, console output, and children given the terminal. */
const WRITE =
  /\bprocess\.(?:stdout|stderr)\.write\b|\bconsole\.(?:log|error|warn|info|debug|trace)\b|\.pipe\(\s*process\.(?:stdout|stderr)|stdio:\s*(?:"inherit"|\[[^\]]*"inherit")/;

/** The modules that may write, and why. Each is checked below to pass the redaction (and the neutraliser). */
const EXITS: Record<string, string> = {
  "cli/output.ts": "the CLI's exit: emit() for readable text, writeJson() for envelopes",
  "cli/main.ts": "prints hcpx's own version string (a constant), without loading the output module on the fast path",
  "mcp/server.ts": "hcpx mcp's log on stderr (stdout is the protocol): log() redacts and neutralises",
};

describe("one exit", () => {
  it("only the exits write to stdout or stderr, log to the console, or give a child the terminal", () => {
    const writers = modules.filter((m) => WRITE.test(code(m))).sort();
    expect(writers).toEqual(Object.keys(EXITS).sort());
  });

  it("a prompt is written through the exit: readline is never handed one to print itself", () => {
    const asking = modules.filter(
      (m) => /\.question\(\s*(?!""\s*\))/.test(code(m)) || /\.setPrompt\(|\.prompt\(/.test(code(m)),
    );
    expect(asking).toEqual([]);
  });

  it("the CLI's exit: what it writes comes from emit() and writeJson(), and both redact (and emit neutralises)", () => {
    const text = code("cli/output.ts");
    // the writes: stderr in emit(); stdout in out() — to fd 1 through writeFd() on exec's start path (its
    // fallback to the stream is the third) — and nowhere else
    expect(text.match(/\.write\(/g)?.length).toBe(3);
    expect(text.match(/\bwriteSync\(/g)).toEqual(["writeSync("]);
    const emit = body(text, "emit");
    const sink = body(text, "out");
    const fd = body(text, "writeFd");
    expect(emit).toMatch(/process\.stderr\.write\(shown\(/);
    expect(sink).toMatch(/process\.stdout\.write\(text\)/);
    expect(fd).toMatch(/writeSync\(1, buf, off\)/);
    expect(fd).toMatch(/process\.stdout\.write\(rest\)/);
    // out() and writeFd() are called from emit()/writeJson() and out() alone
    expect(text.match(/(?<!function )\bout\(/g)?.length).toBe(2);
    expect(text.match(/(?<!function )\bwriteFd\(/g)?.length).toBe(1);
    expect(sink).toMatch(/writeFd\(text\)/);
    expect(emit).toMatch(/\bout\(shown\(/);
    const shown = body(text, "shown");
    const json = body(text, "writeJson");
    expect(shown).toMatch(/colours\(neutralise\(redactOut\(/);
    expect(json).toMatch(/\bout\(neutralJson\(JSON\.stringify\(redactOut\(/);
    // every other way out of the module goes through emit or writeJson
    for (const fn of ["say", "sayErr", "sayRaw", "sayErrRaw", "done", "finish", "reportError", "printWarnings"]) {
      expect(body(text, fn), fn).toMatch(/\b(?:emit|say|sayErr|writeJson|done)\(/);
    }
  });

  it("main.ts writes only the version constant", () => {
    const writes = code("cli/main.ts").match(/process\.(?:stdout|stderr)\.write\([^\n]*/g) ?? [];
    expect(writes).toEqual(["process.stdout.write(`${VERSION}\\n`);"]);
    expect(code("cli/main.ts")).toMatch(/^import \{ VERSION \} from "\.\.\/util\/build-info";$/m);
  });

  it("hcpx mcp: its log redacts and neutralises, every tool result is made by toResult, which redacts, and the person's question is redacted", () => {
    const server = code("mcp/server.ts");
    expect(server.match(/process\.(?:stdout|stderr)\.write\([^\n]*/g)).toEqual([
      "process.stderr.write(`hcpx mcp: ${neutralise(redactOut(msg))}\\n`);",
    ]);
    // the one tool-call front (stdio, HTTP, library): every result through toResult (contract.ts), which redacts
    expect(body(code("mcp/contract.ts"), "toResult")).toMatch(/=\s*redactOut\(env0\)/);
    // every module of the front and its transports (prompts.ts builds prompt messages, not tool results)
    const mcp = modules
      .filter((m) => m.startsWith("mcp/") && m !== "mcp/prompts.ts")
      .map(code)
      .join("\n");
    expect(mcp.match(/structuredContent:/g)?.length).toBe(1);
    // the person's question: legacy elicitation/create (sdk-server) and the 2026-07-28 InputRequiredResult (ask.ts);
    // a command input's form and sampling prompt are built by inputs.ts (redacted there) and sent as built (sdk-server)
    // as one line or as a formatter breaks it: a line break may follow any opener, and a form's `mode` is skipped
    const asks = [
      ...mcp.matchAll(
        /(?:elicitInput\(|requestSampling\(|method: "elicitation\/create",\s*params:\s*|content:\s*\{\s*type: "text",\s*text:\s*)\s*(?:\{\s*)?(?:mode: "form",\s*)?[^\n]*/g,
      ),
    ].map((m) => m[0]);
    expect(asks.length).toBe(6);
    for (const a of asks)
      expect(a).toMatch(/(?:message|text):\s*redactOut\(|(?:elicitInput|requestSampling)\(\s*r\.params as never/);
  });

  it("the library: call() answers through redactOut, and the confirm request it shows is built inside redactOut", () => {
    const text = code("lib/index.ts");
    const call = text.slice(text.indexOf("async call("), text.indexOf("async call(") + 400);
    expect(call.match(/return [^;]*;/g)?.every((r) => r.startsWith("return redactOut("))).toBe(true);
    expect(text).toMatch(/const request: ConfirmRequest = redactOut\(\{/);
    expect(text.match(/opts\.confirm\(/g)).toEqual(["opts.confirm("]);
    expect(text).toMatch(/opts\.confirm\(request\)/);
  });

  it("one neutraliser and one redaction: no other module defines them or paints with raw escape sequences", () => {
    const others = modules.filter(
      (m) => m !== "util/neutral.ts" && m !== "util/redact.ts" && m !== "runtime/redact.ts",
    );
    expect(
      others.filter((m) => /function\s+(?:neutralise|neutralLine|redactString|redactDeep|redactOut)\b/.test(code(m))),
    ).toEqual([]);
    // a raw ESC in code is a terminal control written around the exit (colour goes through util/neutral.ts paint)
    expect(others.filter((m) => m !== "cli/output.ts" && /\\u001b|\\x1b|\\033/.test(code(m)))).toEqual([]);
  });

  it("every text cut in the runtime is marked (a value split by the cut is then redacted)", () => {
    // stderr tails and excerpts: a slice from the end, or to a length, carries the CUT mark "…"
    for (const m of modules.filter((x) => x.startsWith("runtime/"))) {
      const lines = code(m).split("\n");
      lines.forEach((line, i) => {
        // the mark on the line, or on the lines around it (a tail kept across chunks, marked where it is read)
        if (/\.slice\(-[A-Z_0-9]+\)/.test(line) || /\.slice\(0, \d{2,}\)/.test(line))
          expect(lines.slice(Math.max(0, i - 2), i + 3).join("\n"), `${m}: ${line.trim()}`).toMatch(/…|CUT|Cut = true/);
      });
    }
  });
});
