// Layers that point one way: a module imports only from its own directory or
// from a lower layer (util → pack → runtime/projection/… → plan → host/mcp →
// config → mcpimport → app → cli/lib), and no modules import each other in a
// ring. app/ holds the use cases (one module each); cli/ and lib/ call them. Every
// import counts: static, `export … from`, type-only, import(), require() and
// `typeof import()`. A new directory of src/ fails here until it has a layer.
// HCPX_ARCH_SRC=<dir> checks another tree (e.g. an old checkout's src/).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { REPO } from "../support/hcpx";
// @ts-expect-error -- a plain .mjs script (scripts/layers.mjs), no declarations
import { LAYER as LAYERS } from "../../scripts/layers.mjs";
import { tsFilesUnder as files } from "../support/tree";

const SRC = process.env.HCPX_ARCH_SRC ?? join(REPO, "src");

/** The layer of each directory of src/ (scripts/layers.mjs, shared with scripts/walk.mjs and the README's drawing). */
const LAYER: Record<string, number> = LAYERS;

const IMPORT_RE =
  /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']|\b(?:import|require)\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** Module → the modules it imports (paths relative to src/, with .ts). */
export function importGraph(src: string): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const f of files(src)) {
    const text = readFileSync(f, "utf8").replace(/^\s*\/\/.*$/gm, "");
    const out = new Set<string>();
    for (const m of text.matchAll(IMPORT_RE)) {
      let t = resolve(dirname(f), m[1] ?? m[2]!);
      if (!t.endsWith(".ts")) t += ".ts";
      out.add(relative(src, t));
    }
    g.set(relative(src, f), out);
  }
  return g;
}

const dirOf = (m: string) => (m.includes("/") ? m.slice(0, m.indexOf("/")) : ".");

export function wrongWay(g: Map<string, Set<string>>): string[] {
  const bad: string[] = [];
  for (const [from, tos] of g) {
    for (const to of tos) {
      const a = dirOf(from);
      const b = dirOf(to);
      if (a === b) continue;
      const la = LAYER[a];
      const lb = LAYER[b];
      if (la === undefined || lb === undefined || lb >= la)
        bad.push(`${from} → ${to} (${a}: ${la ?? "no layer"}, ${b}: ${lb ?? "no layer"})`);
    }
  }
  return bad.sort();
}

/** Rings of modules (strongly connected components of more than one module, or a module importing itself). */
export function cycles(g: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || g.get(v)?.has(v)) out.push(c.sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("layers", () => {
  const g = importGraph(SRC);

  it("reads the imports (the graph is not empty, and it sees import(), require() and type imports)", () => {
    expect(g.size).toBeGreaterThan(50);
    expect(g.get("cli/program.ts")?.has("cli/commands/generate.ts")).toBe(true); // import()
    expect(g.get("pack/schema.ts")?.has("pack/schema-defs.ts")).toBe(true); // require() and typeof import()
  });

  it("every directory of src/ has a layer, and every import points down (or stays in its directory)", () => {
    const dirs = [...new Set([...g.keys()].map(dirOf))].filter((d) => d !== ".");
    expect(dirs.filter((d) => LAYER[d] === undefined)).toEqual([]);
    expect(wrongWay(g)).toEqual([]);
  });

  it("the use cases sit between the engines and their callers: cli/ and lib/ reach adopt, generate and bundles through app/", () => {
    expect(LAYER.app).toBeGreaterThan(LAYER.mcpimport!);
    expect(LAYER.app).toBeLessThan(Math.min(LAYER.cli!, LAYER.lib!));
    for (const caller of ["cli/commands/adopt.ts", "cli/commands/generate.ts", "cli/commands/generate-bundle.ts"]) {
      const to = [...(g.get(caller) ?? [])];
      expect(to.filter((m) => m.startsWith("app/")).length, caller).toBeGreaterThan(0);
      // the engines are the use case's to drive: the command renders the report
      expect(
        to.filter((m) => /^(host\/(engine|apply|bundle)|projection\/plan|plan\/(files|drift|apply))\.ts$/.test(m)),
        caller,
      ).toEqual([]);
    }
    expect([...(g.get("lib/index.ts") ?? [])].filter((m) => m.startsWith("app/")).sort()).toEqual([
      "app/adopt.ts",
      "app/generate.ts",
    ]);
  });

  it("no modules import each other in a ring (the runtime's envelope is a module of its own)", () => {
    expect(cycles(g)).toEqual([]);
  });

  it('"a plain object" is tested in one place (util/is.ts isObj): no module writes its own', () => {
    const by = [...g.keys()]
      .filter((m) => m !== "util/is.ts")
      .filter((m) => /\b(?:const|function)\s+isObj\b[^\n]*\(v: unknown\)/.test(readFileSync(join(SRC, m), "utf8")));
    expect(by).toEqual([]);
  });

  it("PATH is searched in one place (util/which.ts): no other module splits it or asks a shell", () => {
    const by = [...g.keys()]
      .filter((m) => m !== "util/which.ts")
      .filter((m) => {
        const text = readFileSync(join(SRC, m), "utf8");
        return /\bdelimiter\b|PATH[^\n]*\.split\(|(?:spawn|exec)(?:Sync|File|FileSync)?\(\s*["'](?:which|where)["']|command -v/.test(
          text,
        );
      });
    expect(by).toEqual([]);
  });
});
