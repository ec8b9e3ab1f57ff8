#!/usr/bin/env node
// What the tests assert on (issue 28): prose substrings of a run's output
// against parsed envelopes. `node scripts/test-assertions.mjs [dir] [--top N] [--json] [--list prose|envelope]`
// (dir defaults to test/).
//
// An assertion is one `expect(subject, ...)` chain. It is counted as
// - envelope: the subject reads a parsed envelope: it calls JSON.parse() or
//   envelope() (test/support/cli.ts) or a function of the file's that does,
//   or starts at a name bound to one of those
//   (`const env = envelope(r)`, `const { data } = JSON.parse(r.stdout)`; a
//   JSON.parse of a file read back is a file's content, not an envelope), or
//   reads `.ok`, `.error.code`, `.error.<field>` or `.data` of anything;
// - message: toContain/toMatch on `.error.message` (or a problem's) of a
//   parsed envelope: its code says which error, the message which instance;
// - prose: toContain/toMatch on a `.message`, `.stdout`, `.stderr`, `.text` or
//   `.output` (inside an envelope too: `env.error.message` is prose); or, not
//   envelope, the matcher is toContain or toMatch (with or without
//   .not), and the subject is a run's text: it reads `.stdout`, `.stderr`,
//   `.text`, `.output` or `.message`, or is a bare name like stdout, stderr,
//   out, err, text, output, all, log, msg, message, lines, shown (optionally
//   followed by .trim() or the like).
// Everything else (file contents, exit codes, snapshots) is neither.
// A prose assertion kept on purpose (help text, a hint a person reads, the
// prompt block, docs) is still counted: the report lists those separately.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ts = require("typescript");

const TEXT_PROPS = new Set(["stdout", "stderr", "text", "output", "message"]);
const TEXT_NAMES = new Set([
  "stdout",
  "stderr",
  "out",
  "err",
  "text",
  "output",
  "all",
  "log",
  "msg",
  "message",
  "lines",
  "shown",
]);
const PROSE_MATCHERS = new Set(["toContain", "toMatch"]);

function testFiles(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? testFiles(p) : /\.(ts|mts|mjs|js)$/.test(p) ? [p] : [];
  });
}

/** The file's own functions that parse an envelope (`function failed(r) { … envelope(r) … }`): a call to one is a parse. */
let helpers = new Set();

/** JSON.parse() of a run's output (not of a file read back: that is a file's content), envelope() or a helper of the file's. */
const isParseCall = (n) =>
  ts.isCallExpression(n) &&
  ((ts.isIdentifier(n.expression) && helpers.has(n.expression.text)) ||
    (ts.isPropertyAccessExpression(n.expression) &&
      n.expression.name.text === "parse" &&
      n.expression.expression.getText() === "JSON" &&
      !/\bread\w*\(/.test(n.arguments[0]?.getText() ?? "")) ||
    (ts.isIdentifier(n.expression) && n.expression.text === "envelope"));

/** Does `node` contain a JSON.parse()/envelope() call? */
function hasParse(node) {
  let found = false;
  const visit = (n) => {
    if (found) return;
    if (isParseCall(n)) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** The functions of a file (declared, or arrow functions bound to a const) that parse an envelope (or call one that does). */
function parseHelpers(sf) {
  const fns = [];
  const visit = (n) => {
    if (ts.isFunctionDeclaration(n) && n.name && n.body) fns.push({ name: n.name.text, body: n.body });
    else if (
      ts.isVariableDeclaration(n) &&
      ts.isIdentifier(n.name) &&
      n.initializer &&
      (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer))
    )
      fns.push({ name: n.name.text, body: n.initializer.body });
    ts.forEachChild(n, visit);
  };
  visit(sf);
  helpers = new Set();
  for (let grew = true; grew;) {
    grew = false;
    for (const f of fns)
      if (!helpers.has(f.name) && hasParse(f.body)) {
        helpers.add(f.name);
        grew = true;
      }
  }
}

/** Names bound (anywhere in the file) to a parsed envelope or to a part of one. */
function parsedNames(sf) {
  const names = new Set();
  const bind = (name) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bind(el.name);
  };
  const visit = (n) => {
    if (ts.isVariableDeclaration(n) && n.initializer) {
      const init = n.initializer;
      const fromName = () => {
        let root = init;
        while (
          ts.isPropertyAccessExpression(root) ||
          ts.isElementAccessExpression(root) ||
          ts.isNonNullExpression(root) ||
          ts.isAsExpression(root) ||
          ts.isParenthesizedExpression(root)
        )
          root = root.expression;
        return ts.isIdentifier(root) && names.has(root.text);
      };
      if (hasParse(init) || fromName()) bind(n.name);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return names;
}

/** The subject's root identifier and the property names read on the way. */
function path(node) {
  const props = [];
  let n = node;
  for (;;) {
    if (ts.isPropertyAccessExpression(n)) {
      props.unshift(n.name.text);
      n = n.expression;
    } else if (
      ts.isCallExpression(n) ||
      ts.isNonNullExpression(n) ||
      ts.isParenthesizedExpression(n) ||
      ts.isAsExpression(n) ||
      ts.isElementAccessExpression(n)
    )
      n = n.expression;
    else break;
  }
  return { root: ts.isIdentifier(n) ? n.text : undefined, props };
}

function classify(subject, matcher, names) {
  const { root, props } = path(subject);
  const text = subject.getText();
  const parsed = hasParse(subject) || (root !== undefined && names.has(root));
  // a substring of a message: of a parsed envelope's error (its code says which error; the message which instance), else prose
  if (PROSE_MATCHERS.has(matcher) && props.at(-1) === "message" && parsed && props.includes("error")) return "message";
  if (PROSE_MATCHERS.has(matcher) && TEXT_PROPS.has(props.at(-1))) return "prose";
  if (parsed) return "envelope";
  if (props.includes("ok") || props.includes("data") || /\.error\??\.\w/.test(text)) return "envelope";
  if (!PROSE_MATCHERS.has(matcher)) return undefined;
  if (props.some((p) => TEXT_PROPS.has(p))) return "prose";
  if (
    root &&
    TEXT_NAMES.has(root) &&
    props.every((p) => !/^[a-z]/.test(p) || ["trim", "join", "toString", "slice"].includes(p))
  )
    return "prose";
  return undefined;
}

/** Every counted assertion of one file: { file, line, kind, text }. */
export function assertionsOf(file, root) {
  const src = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true);
  parseHelpers(sf);
  const names = parsedNames(sf);
  const rel = relative(root, file).split("\\").join("/");
  const found = [];
  const visit = (n) => {
    // the outermost call of a chain `expect(x)[.not|.resolves…].matcher(...)`
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      let inner = n.expression.expression;
      while (ts.isPropertyAccessExpression(inner)) inner = inner.expression;
      if (
        ts.isCallExpression(inner) &&
        ts.isIdentifier(inner.expression) &&
        inner.expression.text === "expect" &&
        inner.arguments[0]
      ) {
        const kind = classify(inner.arguments[0], n.expression.name.text, names);
        if (kind) {
          const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
          found.push({ file: rel, line, kind, text: n.getText(sf).replace(/\s+/g, " ").slice(0, 160) });
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

export function assertions(dir) {
  return testFiles(dir).flatMap((f) => assertionsOf(f, dir));
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const args = process.argv.slice(2);
  const valueOf = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const top = Number(valueOf("--top") ?? 20);
  const list = valueOf("--list");
  const dir = args.find((a, i) => !a.startsWith("--") && !["--top", "--list"].includes(args[i - 1])) ?? "test";
  const all = assertions(dir);
  const byFile = new Map();
  for (const a of all) {
    const f = byFile.get(a.file) ?? { file: a.file, prose: 0, envelope: 0, message: 0 };
    f[a.kind] += 1;
    byFile.set(a.file, f);
  }
  const files = [...byFile.values()].sort((a, b) => b.prose - a.prose || a.file.localeCompare(b.file));
  const report = {
    prose: all.filter((a) => a.kind === "prose").length,
    envelope: all.filter((a) => a.kind === "envelope").length,
    message: all.filter((a) => a.kind === "message").length,
    files,
  };
  if (args.includes("--json")) process.stdout.write(JSON.stringify({ ...report, assertions: all }, null, 2) + "\n");
  else if (list)
    for (const a of all.filter((x) => x.kind === list)) process.stdout.write(`${a.file}:${a.line}: ${a.text}\n`);
  else {
    const out = [
      `${dir}: ${report.prose} prose-substring assertions on a run's text, ${report.envelope} on parsed envelopes (${report.message} more on an envelope's error message)`,
    ];
    out.push(`files with the most prose assertions (prose / envelope / message):`);
    for (const f of files.slice(0, top))
      out.push(
        `  ${String(f.prose).padStart(4)} / ${String(f.envelope).padStart(4)} / ${String(f.message).padEnd(4)} ${f.file}`,
      );
    process.stdout.write(out.join("\n") + "\n");
  }
}
