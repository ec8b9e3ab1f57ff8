// The adopt ledger (.hcp/adopted.json, ~/.config/hcp/adopted.json) has one
// reader, src/host/ledger-state.ts readLedger: adopt's planner (through its
// read-only disk, an interrupted run's journal folded in), doctor's adopted
// check and host detection (through the real disk) all call it, so each gets
// adopt's trust rules (the ledger's cap, the `.hcp` symlink check,
// sanitizeLedger). A module that parses or sanitizes a ledger's text itself is
// a second reader: parseLedger and sanitizeLedger are called only by the
// modules below (host/ledger.ts defines them). HCPX_ARCH_SRC=<dir> checks another tree.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "../support/hcpx";
import { tsFilesUnder as files } from "../support/tree";

const SRC = process.env.HCPX_ARCH_SRC ?? join(REPO, "src");

/** Module → why it may parse a ledger's text. */
const READERS: Record<string, string> = {
  "host/ledger-state.ts": "readLedger, the one reader of a ledger file (and of the journal's ledgers)",
  "host/gitignore.ts": "reads the ledger text its own plan rendered (plan.record.new), not a file",
};

/** A call of parseLedger or sanitizeLedger (their declarations are not calls). */
const CALL = /(?<!\bfunction\s+)\b(?:parseLedger|sanitizeLedger)\s*\(/;

describe("the ledger is read back in one place with its trust rules", () => {
  it("only the listed modules parse or sanitize a ledger's text", () => {
    const by = files(SRC)
      .map((f) => relative(SRC, f).split("\\").join("/"))
      .filter((m) => CALL.test(readFileSync(join(SRC, m), "utf8").replace(/^\s*\/\/.*$/gm, "")));
    expect(by.filter((m) => !READERS[m])).toEqual([]);
    // an entry that no longer reads a ledger comes off the list
    expect(Object.keys(READERS).filter((m) => !by.includes(m))).toEqual([]);
  });

  it("doctor's adopted check, host detection and the planner's state are calls of readLedger, with no read of their own", () => {
    const src = (m: string) => readFileSync(join(SRC, m), "utf8").replace(/^\s*\/\/.*$/gm, "");
    for (const m of ["config/adopted.ts", "host/detect.ts"]) {
      expect(src(m), m).toMatch(/\breadLedger\(\s*diskFs,\s*ledgerAt\(/);
      expect(src(m), m).not.toMatch(/\b(?:JSON\.parse|readTextFile|readFileSync)\s*\(/);
    }
    const state = src("host/ledger-state.ts");
    const body = state.slice(state.indexOf("export function readLedgerState("));
    expect(body.slice(0, body.indexOf("\n}\n"))).toMatch(/\breadLedger\(fs, at, \{ file: journalFile \}\)/);
  });

  it("the check can fail: a module that parses a ledger itself is found", () => {
    expect(CALL.test('const l = parseLedger(text, ".hcp/adopted.json");')).toBe(true);
    expect(CALL.test("return sanitizeLedger(l, scope, trust, show);")).toBe(true);
    expect(CALL.test("export function parseLedger(text: string, file: string): Ledger {")).toBe(false);
    expect(CALL.test("const { ledger } = readLedger(diskFs, ledgerAt(file, scope, base));")).toBe(false);
  });
});
