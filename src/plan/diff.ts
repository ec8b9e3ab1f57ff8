// The unified diff of a plan, as a person reviews it. Colour only when
// asked (a TTY without NO_COLOR: the caller decides).
import { createTwoFilesPatch } from "diff";
import type { FileChange, FilePlan } from "./types";
import { paint as mark } from "../util/neutral";

// colour marks, made SGR sequences by the CLI's exit (src/util/neutral.ts paint)
const paint = (on: boolean, n: number, s: string) => mark(on, n, 0, s);

export function changeDiff(c: FileChange, color: boolean): string {
  const a = c.kind === "create" ? "/dev/null" : `a/${c.path}`;
  const b = c.kind === "delete" ? "/dev/null" : `b/${c.path}`;
  const patch = createTwoFilesPatch(a, b, c.old ?? "", c.new ?? "", undefined, undefined, { context: 3 });
  const lines = patch.split("\n").filter((l) => !/^={10,}$/.test(l) && !l.startsWith("Index: "));
  return lines
    .map((l) => {
      if (l.startsWith("---") || l.startsWith("+++")) return paint(color, 1, l);
      if (l.startsWith("@@")) return paint(color, 36, l);
      if (l.startsWith("+")) return paint(color, 32, l);
      if (l.startsWith("-")) return paint(color, 31, l);
      return l;
    })
    .join("\n")
    .replace(/\n+$/, "\n");
}

export function planDiff(plan: FilePlan, color: boolean): string {
  let s = "";
  for (const c of plan.changes) {
    s += changeDiff(c, color);
    for (const n of c.notes) s += paint(color, 33, `# note (${c.path}): ${n}`) + "\n";
  }
  return s;
}
