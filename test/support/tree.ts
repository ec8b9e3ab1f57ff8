// The .ts files below a folder, at any depth (the arch tests and the hint scan read src/ this way).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? tsFilesUnder(p) : p.endsWith(".ts") ? [p] : [];
  });
}
