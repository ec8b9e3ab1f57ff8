// /bin/sh stand-ins for the Node test bins, for the tests where the bin is not
// the subject (the cache, a cancel, a fault handled by hcpx): a Node start is
// ~60-80 ms of CPU, a shell's ~1 ms, and some files start the bin dozens of
// times (issue 29). The stand-in answers what those tests call, as the Node bin
// does; anything else it refuses (exit 2, naming itself), so a test that calls
// more fails instead of passing on a wrong answer.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Write an executable /bin/sh script. */
export function writeSh(file: string, lines: string[]): void {
  writeFileSync(file, ["#!/bin/sh", ...lines].join("\n") + "\n");
  chmodSync(file, 0o755);
}

/** Replace `from` by `to` in a file, failing when it is not there (the fixture changed). */
export function replaceIn(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file}: no ${JSON.stringify(from)} to replace: the fixture changed`);
  writeFileSync(file, text.replace(from, to));
}

/**
 * In a scratch project (test/support/project.ts scratchProject: copies of packs/ and bins/), the
 * calc-wrap pack's bin as a shell script: `ping` answers `{"pong":true}` as bins/calc.mjs does
 * (calc-wrap passes --json), other verbs are refused. The pack's surface.json then names bins/calc.sh.
 */
export function calcWrapOnShell(dir: string): void {
  writeSh(join(dir, "bins", "calc.sh"), [
    "# bins/calc.mjs's ping (test/support/sh-bins.ts): the one verb the tests that use it call",
    `if [ "$1" = ping ]; then printf '%s\\n' '{"pong":true}'; exit 0; fi`,
    'echo "calc.sh: only ping here, not: $*" >&2',
    "exit 2",
  ]);
  replaceIn(join(dir, "packs", "calc-wrap", "surface.json"), '"../../bins/calc.mjs"', '"../../bins/calc.sh"');
}
