// Walks of a folder for tests: its .ts files (the arch tests and the hint scan read src/ this way), and its files' bytes.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? tsFilesUnder(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Every file under `dir`, its path (relative to dir) → its bytes as base64: two folders compared byte for byte. */
export function fileBytes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p).toString("base64");
    }
  };
  walk(dir);
  return out;
}
