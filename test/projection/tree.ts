// Helpers for generate tests: read an output tree, find gated / withheld commands.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file under `dir` (posix relative path -> content), sorted. */
export function readTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d).sort()) {
      const abs = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(abs).isDirectory()) walk(abs, r);
      else out.set(r, readFileSync(abs, "utf8"));
    }
  };
  walk(dir, "");
  return out;
}

export const GEN = ".hcp/generated";
