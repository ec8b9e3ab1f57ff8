import { describe, expect, it } from "vitest";
import { checkPattern, isGranted, matches } from "../../src/pack/grants";
import { HcpxError } from "../../src/util/errors";

describe("grants", () => {
  it("denies by default and lets deny win over allow", () => {
    const g = { allow: ["ledger.*", "transit.plan"], deny: ["ledger.entry.delete"] };
    expect(isGranted(g, "ledger", "balance")).toBe(true);
    expect(isGranted(g, "ledger", "entry.add")).toBe(true);
    expect(isGranted(g, "ledger", "entry.delete")).toBe(false);
    expect(isGranted(g, "transit", "plan")).toBe(true);
    expect(isGranted(g, "transit", "stops")).toBe(false);
    expect(isGranted(g, "git", "status")).toBe(false);
    expect(isGranted({ allow: [], deny: [] }, "ledger", "balance")).toBe(false);
  });
  it("grants within a ceiling: both must grant, either's deny wins (a team principal within the project)", () => {
    const project = { allow: ["ledger.*"], deny: ["ledger.entry.delete"] };
    const alice = { allow: ["*"], deny: ["ledger.transfer"], within: project };
    expect(isGranted(alice, "ledger", "balance")).toBe(true);
    expect(isGranted(alice, "ledger", "transfer")).toBe(false);
    expect(isGranted(alice, "ledger", "entry.delete")).toBe(false);
    expect(isGranted(alice, "git", "status")).toBe(false);
  });
  it("matches prefixes on segment boundaries only", () => {
    expect(matches("ledger.entry.*", "ledger.entry.add")).toBe(true);
    expect(matches("ledger.entry.*", "ledger.entryx")).toBe(false);
    expect(matches("led.*", "ledger.balance")).toBe(false);
    expect(matches("*", "x.y")).toBe(true);
  });
  it("rejects malformed patterns with a hint", () => {
    for (const bad of ["ledger", "Ledger.*", "../x.y", "ledger.*.add", "ledger..x", "", " ledger.*"]) {
      expect(() => checkPattern(bad), bad).toThrow(HcpxError);
    }
    for (const good of ["ledger.*", "ledger.entry.*", "mail.send", "*"]) expect(() => checkPattern(good)).not.toThrow();
  });
});
