#!/usr/bin/env node
// A walk of a value through the call graph (issue 28: "a walk of the project
// root through adopt goes down without climbing back").
//
// `node scripts/walk.mjs [--json] [--trace] [--src DIR]` starts at `run` of
// src/cli/commands/adopt.ts, with its `opts` and `globals` marked (the config
// file and directory that decide the project root come in there), and follows
// the marked values statically, with the TypeScript checker:
//   - a local is marked when its initializer (or an assignment to it) mentions a
//     marked name, or calls a function whose walk returned a marked value;
//   - a call is followed when an argument mentions a marked name, or it is a
//     method called on a marked receiver (`project.x()`, `this.x()` in a class
//     built with a marked argument); the callee's parameters that receive a
//     marked argument are marked in it;
//   - a function written in the caller and handed to the callee (an inline
//     arrow or function) is walked as called from the callee's module when the
//     callee calls that parameter: a callback into a higher layer is a climb;
//   - nested functions (callbacks of map, filter…) are read as part of the
//     function that holds them.
// It stops at modules of util/ (layer 0: leaves every layer may call), at code
// outside src/, and at calls it cannot resolve to one body (a method of an
// interface or a table entry: a dispatch, counted and listed, not followed).
// Each function is walked once per set of marked parameters. A method called
// through an interface (the planner's RunView) is a dispatch too: those of
// src/host/adopt-types.ts are all AdoptRun's, in host/ like their callers.
//
// It counts the crossings: a followed call from one module into another.
//   modules  the modules the walk enters (util/ excluded)
//   returns  crossings into a module the walk had entered and left before
//   climbs   crossings into a module of a higher layer than the caller's
//            (scripts/layers.mjs): with imports that only point down
//            (test/arch/layers.test.ts) only a callback can climb
// test/arch/walk.test.ts holds the adopt walk to no climb.
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { LAYER, dirOf } from "./layers.mjs";

const require = createRequire(import.meta.url);
const ts = require("typescript");
/** node_modules' declaration files a walk parsed, by path: the next walk in this process takes them */
const parsedLibs = new Map();

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");

const isFn = (n) =>
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n) ||
  ts.isConstructorDeclaration(n);

/**
 * Walk `entry` (a function name) of `file` (relative to src/) with `seeds` (its
 * parameter names) marked. Returns the crossings and the counts.
 */
export function walk({
  src = join(REPO, "src"),
  file = "cli/commands/adopt.ts",
  entry = "run",
  seeds = ["opts", "globals"],
} = {}) {
  // the entry's module alone: the checker follows its imports (only what adopt can reach is read)
  const options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    // the project's lib (tsconfig.json), not the target's default with the DOM's ~1.5 MB of
    // declarations to parse: the same walk (its JSON unchanged), walk.test.ts ~1.5 CPU-s less
    lib: ["lib.es2023.d.ts"],
  };
  const host = ts.createCompilerHost(options);
  // JSDoc parsed only where it gives types (JavaScript files, TypeScript's ParseForTypeInfo): the
  // checker answers the same, the walk's JSON unchanged, ~0.3 CPU-s less a walk
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeInfo;
  const read = host.getSourceFile.bind(host);
  // a declaration file of a package (TypeScript's libs, zod's) is parsed once per process, not once a walk
  host.getSourceFile = (name, ...rest) => {
    if (!name.includes("/node_modules/")) return read(name, ...rest);
    if (!parsedLibs.has(name)) parsedLibs.set(name, read(name, ...rest));
    return parsedLibs.get(name);
  };
  const program = ts.createProgram([join(src, file)], options, host);
  const checker = program.getTypeChecker();
  const moduleOf = (node) => relative(src, node.getSourceFile().fileName).split("\\").join("/");
  const inSrc = (node) => !relative(src, node.getSourceFile().fileName).startsWith("..");
  const nameOf = (fn) => {
    if (fn.name) return fn.name.getText();
    if (ts.isConstructorDeclaration(fn)) return `new ${fn.parent.name?.getText() ?? "(class)"}`;
    const p = fn.parent;
    if (p && ts.isVariableDeclaration(p)) return p.name.getText();
    if (p && ts.isPropertyAssignment(p)) return p.name.getText();
    const line = fn.getSourceFile().getLineAndCharacterOfPosition(fn.getStart()).line + 1;
    return `(function at line ${line})`;
  };

  const crossings = [];
  const dispatches = new Set();
  const entered = new Set();
  const walked = new Map(); // fn + marked params → returns a marked value
  const markedClasses = new Set();
  let current = null; // module of the function being walked

  /** Does `expr` mention a marked name (an identifier, `this` when marked; a property name is not a mention)? */
  const mentions = (expr, marked) => {
    let hit = false;
    const visit = (n) => {
      if (hit) return;
      if (ts.isIdentifier(n)) {
        const p = n.parent;
        const isName =
          (ts.isPropertyAccessExpression(p) && p.name === n) ||
          (ts.isPropertyAssignment(p) && p.name === n) ||
          (ts.isBindingElement(p) && p.propertyName === n);
        if (!isName && marked.has(n.text)) hit = true;
        return;
      }
      if (n.kind === ts.SyntaxKind.ThisKeyword && marked.has("this")) hit = true;
      ts.forEachChild(n, visit);
    };
    visit(expr);
    return hit;
  };

  const bindNames = (name, out) => {
    if (ts.isIdentifier(name)) out.push(name.text);
    else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindNames(el.name, out);
    return out;
  };

  /** The one body a call reaches, or undefined (outside src/, no body, several). */
  const calleeOf = (call) => {
    const at = ts.isNewExpression(call) ? call.expression : call.expression;
    let sym = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(at) ? at.name : at);
    if (!sym) return { none: true };
    if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    let decls = sym.declarations ?? [];
    if (ts.isNewExpression(call))
      decls = decls.flatMap((d) => (ts.isClassDeclaration(d) ? d.members.filter(ts.isConstructorDeclaration) : []));
    decls = decls.map((d) => (ts.isVariableDeclaration(d) && d.initializer && isFn(d.initializer) ? d.initializer : d));
    const bodies = decls.filter((d) => isFn(d) && d.body);
    if (bodies.length === 1 && inSrc(bodies[0])) return { fn: bodies[0] };
    if (decls.length && decls.every((d) => !inSrc(d))) return { none: true };
    return { dispatch: decls.length && inSrc(decls[0]) ? `${moduleOf(decls[0])}: ${at.getText()}` : undefined };
  };

  const cross = (from, to, fn, via) => {
    if (from === to) return;
    const la = LAYER[dirOf(from)];
    const lb = LAYER[dirOf(to)];
    crossings.push({ from, to, fn: nameOf(fn), via, returns: entered.has(to), climbs: lb > la });
    entered.add(to);
  };

  /**
   * Walk `fn` with `marked` names; `callbacks`: its parameters that hold a function a caller wrote
   * (name → that function and the names marked where it was written). True when it returns a marked value.
   */
  const walkFn = (fn, marked, callbacks = new Map()) => {
    const key = `${moduleOf(fn)}:${fn.pos}:${[...marked].sort().join(",")}:${[...callbacks.keys()].sort().join(",")}`;
    if (walked.has(key)) return walked.get(key);
    walked.set(key, false);
    const saved = current;
    current = moduleOf(fn);
    let returns = false;
    const visit = (n) => {
      if (ts.isVariableDeclaration(n) && n.initializer) {
        visit(n.initializer);
        if (mentions(n.initializer, marked) || returnsMarked.has(n.initializer))
          for (const x of bindNames(n.name, [])) marked.add(x);
        return;
      }
      if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        visit(n.right);
        if (ts.isIdentifier(n.left) && (mentions(n.right, marked) || returnsMarked.has(n.right)))
          marked.add(n.left.text);
        return;
      }
      if (ts.isReturnStatement(n) && n.expression) {
        visit(n.expression);
        if (mentions(n.expression, marked) || returnsMarked.has(n.expression)) returns = true;
        return;
      }
      ts.forEachChild(n, visit);
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) call(n, marked);
    };
    const returnsMarked = new Set();
    const call = (n, marked) => {
      const args = [...(n.arguments ?? [])];
      // a callback a caller handed down, called here: it runs in the module that wrote it
      const cb = ts.isIdentifier(n.expression) ? callbacks.get(n.expression.text) : undefined;
      if (cb) {
        const from = current;
        cross(from, moduleOf(cb.fn), cb.fn, `${n.expression.text} (a callback)`);
        walkFn(cb.fn, new Set(cb.marked));
        current = from;
        return;
      }
      const recv = ts.isPropertyAccessExpression(n.expression) && mentions(n.expression.expression, marked);
      const handsDown = args.some((a) => ts.isIdentifier(a) && callbacks.has(a.text));
      if (!recv && !handsDown && !args.some((a) => mentions(a, marked))) return;
      const c = calleeOf(n);
      if (c.dispatch) dispatches.add(c.dispatch);
      if (!c.fn || dirOf(moduleOf(c.fn)) === "util") return;
      const inner = new Set();
      c.fn.parameters.forEach((p, i) => {
        if (args[i] && mentions(args[i], marked)) for (const x of bindNames(p.name, [])) inner.add(x);
      });
      if (ts.isConstructorDeclaration(c.fn)) markedClasses.add(c.fn.parent);
      if (!ts.isArrowFunction(c.fn) && c.fn.parent && markedClasses.has(c.fn.parent)) inner.add("this");
      // a function handed to the callee (written here, or handed down to this function) goes with it
      const passed = new Map();
      c.fn.parameters.forEach((p, i) => {
        const a = args[i];
        if (!a || !ts.isIdentifier(p.name)) return;
        if (ts.isArrowFunction(a) || ts.isFunctionExpression(a))
          passed.set(p.name.text, { fn: a, marked: [...marked] });
        else if (ts.isIdentifier(a) && callbacks.has(a.text)) passed.set(p.name.text, callbacks.get(a.text));
      });
      if (!recv && !args.some((a) => mentions(a, marked)) && !passed.size) return;
      const from = current;
      cross(from, moduleOf(c.fn), c.fn, n.expression.getText().slice(0, 60));
      if (walkFn(c.fn, inner, passed)) returnsMarked.add(n);
      current = from;
    };
    if (fn.body) visit(fn.body);
    current = saved;
    walked.set(key, returns);
    return returns;
  };

  const sf = program.getSourceFile(join(src, file));
  if (!sf) throw new Error(`walk: no ${file} in ${src}`);
  let start;
  const find = (n) => {
    if (!start && isFn(n) && n.body && nameOf(n) === entry) start = n;
    else ts.forEachChild(n, find);
  };
  find(sf);
  if (!start) throw new Error(`walk: no function ${entry} in ${file}`);
  entered.add(file);
  current = file;
  walkFn(start, new Set(seeds));
  return {
    entry: `${file} ${entry}`,
    modules: [...entered],
    crossings,
    returns: crossings.filter((c) => c.returns).length,
    climbs: crossings.filter((c) => c.climbs).length,
    dispatches: [...dispatches].sort(),
  };
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--src");
  const r = walk(at >= 0 ? { src: args[at + 1] } : {});
  if (args.includes("--json")) process.stdout.write(JSON.stringify(r, null, 2) + "\n");
  else {
    const out = [
      `walk from ${r.entry} (opts, globals): ${r.modules.length} modules, ${r.crossings.length} crossings, ${r.returns} returns to a module already left, ${r.climbs} climbs to a higher layer`,
    ];
    for (const c of r.crossings.filter((x) => x.climbs))
      out.push(`  climb   ${c.from} → ${c.to} ${c.fn} (via ${c.via})`);
    if (args.includes("--trace")) {
      for (const c of r.crossings)
        out.push(`  ${c.climbs ? "climb " : c.returns ? "return" : "down  "}  ${c.from} → ${c.to} ${c.fn}`);
      out.push(`modules: ${r.modules.join(", ")}`);
    }
    out.push(
      `dispatches not followed: ${r.dispatches.length}${r.dispatches.length ? ` (${r.dispatches.join("; ")})` : ""}`,
    );
    process.stdout.write(out.join("\n") + "\n");
  }
}
