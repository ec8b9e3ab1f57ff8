// The adopt ledger (.hcp/adopted.json, ~/.config/hcp/adopted.json) is read back
// in few places, each with adopt's trust rules (src/host/ledger.ts
// sanitizeLedger): a new module that parses a ledger on its own would skip
// them. parseLedger and sanitizeLedger are called only by the modules below;
// every other reader goes through readLedgerFile (doctor's adopted check, host
// detection) or is the planner itself. HCPX_ARCH_SRC=<dir> checks another tree.
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "../support/hcpx";

const SRC = process.env.HCPX_ARCH_SRC ?? join(REPO, "src");

/** Module → why it may parse a ledger's text. */
const READERS: Record<string, string> = {
  "host/ledger.ts":
    "the ledger's own module: readLedgerFile, the one reader of a ledger file for everyone but the planner",
  "host/ledger-state.ts":
    "the adopt planner's read: the same text through its read-only disk, an interrupted run's journal folded in, then the same sanitizeLedger",
  "host/gitignore.ts": "reads the ledger text its own plan rendered (plan.record.new), not a file",
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
}

const CALL = /\b(?:parseLedger|sanitizeLedger)\s*\(/;

describe("the ledger is read back in one place with its trust rules", () => {
  it("only the listed modules parse or sanitize a ledger's text", () => {
    const by = files(SRC)
      .map((f) => relative(SRC, f).split("\\").join("/"))
      .filter((m) => CALL.test(readFileSync(join(SRC, m), "utf8").replace(/^\s*\/\/.*$/gm, "")));
    expect(by.filter((m) => !READERS[m])).toEqual([]);
    // an entry that no longer reads a ledger comes off the list
    expect(Object.keys(READERS).filter((m) => !by.includes(m))).toEqual([]);
  });

  it("the check can fail: a module that parses a ledger itself is found", () => {
    expect(CALL.test('const l = parseLedger(text, ".hcp/adopted.json");')).toBe(true);
    expect(CALL.test("const { ledger } = readLedgerFile(file, scope, base);")).toBe(false);
  });
});
