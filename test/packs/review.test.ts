// The Policy diff of two versions of a pack (src/packs/review.ts): every change
// of operation, land and confirm per verb, which of them widen, and the mcp
// tools a new version pinned anew.
import { describe, expect, it } from "vitest";
import { diffEmpty, diffLines, diffReach, widenedVerbs, type Reach } from "../../src/packs/review";

const reach = (commands: Reach["commands"], pins?: Reach["pins"]): Reach => ({
  kind: "mcp",
  bins: [],
  modules: [],
  http: [],
  env: [],
  setsEnv: [],
  commands,
  network: [],
  networkFor: [],
  paths: [],
  ...(pins ? { pins } : {}),
});
const cmd = (verb: string, operation: "read" | "write", land?: string, confirm = false) => ({
  verb,
  operation,
  confirm,
  ...(land ? { land } : {}),
  inferred: false,
});

describe("diffReach", () => {
  it("a program that newly connects to unix sockets (reach.unix_sockets) is a widening the review shows; the reach says it", async () => {
    const { reachLines } = await import("../../src/packs/review");
    const d = diffReach(reach([]), { ...reach([]), unixSockets: true });
    expect(diffEmpty(d)).toBe(false);
    expect(diffLines(d).join("\n")).toMatch(
      /\+ network: connects to unix sockets \(reach\.unix_sockets: under sandbox\.enforce "os" any it can see/,
    );
    expect(reachLines({ ...reach([]), unixSockets: true }).join("\n")).toMatch(/^ {2}connects to unix sockets/m);
    expect(diffEmpty(diffReach({ ...reach([]), unixSockets: true }, { ...reach([]), unixSockets: true }))).toBe(true);
  });

  it("names each widening: write → read, confirm dropped, land widened (an undeclared land is widest); a narrowing is shown but keeps the grant", () => {
    const before = reach([
      cmd("a", "write", "local", true),
      cmd("b", "write", "local", true),
      cmd("c", "write", "remote"),
      cmd("d", "write", "external", true),
      cmd("e", "write", "remote"),
    ]);
    const after = reach([
      cmd("a", "read"),
      cmd("b", "write", "local"),
      cmd("c", "write", "external"),
      cmd("d", "write", "local", true),
      cmd("e", "write"),
    ]);
    const d = diffReach(before, after);
    expect(d.changed.map((c) => [c.verb, c.widened])).toEqual([
      ["a", ["write → read", "confirm dropped"]],
      ["b", ["confirm dropped"]],
      ["c", ["land remote → external"]],
      ["d", []],
      ["e", ["land remote → not declared"]],
    ]);
    expect(widenedVerbs(d).sort()).toEqual(["a", "b", "c", "e"]);
    expect(diffEmpty(d)).toBe(false);
    expect(diffLines(d).join("\n")).toContain("~ d: write (external, confirm) → write (local, confirm)\n");
    // a read's land or confirm decides nothing: no change
    expect(diffEmpty(diffReach(reach([cmd("r", "read", "local", true)]), reach([cmd("r", "read")])))).toBe(true);
  });

  it("shows an mcp tool pinned anew, with the fields that changed", () => {
    const pin = { title: "sha256:1", description: "sha256:2", input_schema: "sha256:3", annotations: "sha256:4" };
    const d = diffReach(
      reach([cmd("x", "read")], { x: pin }),
      reach([cmd("x", "read")], { x: { ...pin, annotations: "sha256:5" } }),
    );
    expect(d.repinned).toEqual([{ tool: "x", fields: ["annotations"] }]);
    expect(diffLines(d).join("\n")).toMatch(/the server's tool "x" is pinned anew: annotations/);
    expect(diffEmpty(diffReach(reach([cmd("x", "read")], { x: pin }), reach([cmd("x", "read")], { x: pin })))).toBe(
      true,
    );
  });
});
