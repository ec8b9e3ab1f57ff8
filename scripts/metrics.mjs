#!/usr/bin/env node
// The house's figures (issue 28): the largest functions (lines), the lines over
// 120 and 200 characters, and the files over 400 lines, in src/ (or the
// directory given). `node scripts/metrics.mjs [dir] [--top N] [--json]`.
// test/arch/size.test.ts holds new code to the same measure (measure() below).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ts = require("typescript");

/** Every .ts file under `dir`. */
export function tsFiles(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** The name of a function-like node, as a reader would look it up. */
function nameOf(node, sf) {
  if (node.name) return node.name.getText(sf);
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p)) return p.name.getText(sf);
  if (p && ts.isPropertyAssignment(p)) return p.name.getText(sf);
  if (p && ts.isCallExpression(p)) return `(callback of ${p.expression.getText(sf).slice(0, 40)})`;
  return "(anonymous)";
}

/** Functions (with their lines), long lines and the line count of one file. */
export function measureFile(file, root) {
  const text = readFileSync(file, "utf8");
  // no JSDoc: the lines are counted from a node's own start, without its comments (~0.25 CPU-s less for src/)
  const sf = ts.createSourceFile(
    file,
    text,
    { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
    true,
  );
  const rel = relative(root, file).split("\\").join("/");
  const functions = [];
  const visit = (node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node)
    ) {
      if (node.body) {
        const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
        const end = sf.getLineAndCharacterOfPosition(node.end).line + 1;
        functions.push({ file: rel, name: nameOf(node, sf), line: start, lines: end - start + 1 });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return {
    file: rel,
    lines: lines.length,
    over120: lines.filter((l) => l.length > 120).length,
    over200: lines.filter((l) => l.length > 200).length,
    functions,
  };
}

/** The figures of every .ts file under `dir`. */
export function measure(dir) {
  return tsFiles(dir).map((f) => measureFile(f, dir));
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const args = process.argv.slice(2);
  const json = args.includes("--json");
  const topAt = args.indexOf("--top");
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 15;
  const dir = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--top") ?? "src";
  const files = measure(dir);
  const fns = files.flatMap((f) => f.functions).sort((a, b) => b.lines - a.lines);
  const sum = (k) => files.reduce((n, f) => n + f[k], 0);
  const report = {
    files: files.length,
    lines: sum("lines"),
    over120: sum("over120"),
    over200: sum("over200"),
    functionsOver80: fns.filter((f) => f.lines > 80).length,
    filesOver400: files
      .filter((f) => f.lines > 400)
      .sort((a, b) => b.lines - a.lines)
      .map((f) => ({ file: f.file, lines: f.lines })),
    largestFunctions: fns.slice(0, top),
  };
  if (json) process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  else {
    const out = [];
    out.push(
      `${dir}: ${report.files} files, ${report.lines} lines; ${report.over120} lines over 120 chars, ${report.over200} over 200`,
    );
    out.push(`functions over 80 lines: ${report.functionsOver80}`);
    out.push(`largest functions:`);
    for (const f of report.largestFunctions)
      out.push(`  ${String(f.lines).padStart(5)}  ${f.file}:${f.line} ${f.name}`);
    out.push(`files over 400 lines: ${report.filesOver400.length}`);
    for (const f of report.filesOver400) out.push(`  ${String(f.lines).padStart(5)}  ${f.file}`);
    process.stdout.write(out.join("\n") + "\n");
  }
}
