// Every `hcpx …` that src/ tells a person to run (hints, messages, help, notes) names a command the
// program has, with options that command (or every command) takes: a hint that sends someone to a
// command that does not exist is a wrong hint. Template parts (`${…}`) stand for one word.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS, GLOBAL_OPTIONS, type CommandSpec } from "../../src/cli/spec";
import { tsFilesUnder } from "../support/tree";

const SRC = join(__dirname, "..", "..", "src");
const cmds = COMMANDS as Record<string, CommandSpec>;

const flagsIn = (flags: string) =>
  flags
    .split(/[ ,|]+/)
    .filter((x) => x.startsWith("-"))
    .flatMap((f) => (f.startsWith("--no-") ? [f, `--${f.slice(5)}`] : [f]));
const GLOBAL = new Set([
  "--help",
  "-h",
  "--json",
  "--version",
  "-V",
  ...Object.values(GLOBAL_OPTIONS).flatMap((o) => flagsIn(o.flags)),
]);
const flagsOf = (path: string) =>
  new Set([...GLOBAL, ...Object.values(cmds[path]?.options ?? {}).flatMap((o) => flagsIn(o.flags))]);

/** Backticked text that begins with "hcpx" and is a sentence, not a command. */
const PROSE = new Set([
  "hcpx would set it to ${JSON.stringify(v)}: remove your rule, or rerun with --force to replace it",
  "hcpx cannot follow this TOML (${what}); nothing was written",
]);

/** Each `hcpx …` in backticks in src/: the file, the text, and what is wrong with it (undefined: nothing). */
function mentions(): { file: string; text: string; wrong?: string }[] {
  const found: { file: string; text: string; wrong?: string }[] = [];
  for (const file of tsFilesUnder(SRC)) {
    for (const m of readFileSync(file, "utf8").matchAll(/`(hcpx [^`]*)`/g)) {
      const text = m[1]!;
      const words = text
        .replace(/\$\{[^}]*\}/g, " X ") // a template part: a word of its own
        .replace(/\$\{.*$/, " X ") // one that holds a template of its own (cut at its backtick)
        .replace(/"[^"]*"/g, "Q") // a quoted argument: one word, whatever it holds
        .split(/\s+/)
        .slice(1)
        .map((w) => w.replace(/\\+$/, "").replace(/[:,.;)]+$/, ""))
        .filter(Boolean);
      let path = "";
      for (const w of words) {
        const longer = path ? `${path} ${w}` : w;
        if (!cmds[longer]) break;
        path = longer;
      }
      const at = relative(SRC, file);
      // `hcpx --help`, `hcpx <command> --help`, `hcpx X …` (the command is a template part), `hcpx …`
      if (!path) {
        const none = /^(--|-V|<command>|X$|…)/.test(words[0] ?? "") || PROSE.has(text);
        found.push({ file: at, text, wrong: none ? undefined : "no such command" });
        continue;
      }
      const known = flagsOf(path);
      const bad = words
        .map(
          (w) =>
            w
              .replace(/^\[/, "")
              .replace(/[\]…]+$/, "")
              .split("=")[0]!,
        )
        .filter((f) => /^--?[a-z]/.test(f) && !known.has(f));
      found.push({ file: at, text, wrong: bad.length ? `\`${path}\` takes no ${bad.join(", ")}` : undefined });
    }
  }
  return found;
}

describe("the commands src/ names", () => {
  it("exist, with the options they are given", () => {
    const all = mentions();
    expect(all.length).toBeGreaterThan(150); // the scan finds them (168 when written)
    expect(all.filter((m) => m.wrong)).toEqual([]);
  });
});
