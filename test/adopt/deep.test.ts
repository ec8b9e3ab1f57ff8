// A host's config file nested thousands of levels deep (no host writes one): adopt, import and
// doctor refuse it as too_deep, naming the file and line, before a parser recurses into it. Before,
// ~8,000 levels overflowed the stack: exit 70, "internal error", no file named. adopt and import run
// in this process (test/support/inproc.ts): what they decide is under test, and an overflow there is
// the same RangeError, reported by the entry's failure report as exit 70 "internal error".
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope, noStack } from "../support/cli";
import { inProcess } from "../support/inproc";
import { scratch as scratchChild } from "./helpers";

const scratch = () => inProcess(scratchChild());

const deepJson = `{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;

describe("a host config nested too deep", () => {
  it("JSON (adopt, import) and YAML (import at user scope): too_deep with file and line, the file untouched", async () => {
    const s = scratch();
    s.write(".mcp.json", deepJson);
    for (const args of [
      ["adopt", "claude", "--write", "--json"],
      ["import", "claude", "--json"],
    ]) {
      const r = await s.run(args);
      noStack(r);
      expect(r.code, args.join(" ")).toBe(1);
      expect(envelope(r).error).toMatchObject({ code: "too_deep", file: ".mcp.json", line: 1, column: 261 });
    }
    expect(readFileSync(join(s.dir, ".mcp.json"), "utf8")).toBe(deepJson);
    mkdirSync(join(s.home, ".config", "goose"), { recursive: true });
    writeFileSync(join(s.home, ".config", "goose", "config.yaml"), `x: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`);
    const y = await s.run(["import", "goose", "--scope", "user", "--json"]);
    noStack(y);
    expect(envelope(y).error).toMatchObject({ code: "too_deep", file: expect.stringMatching(/config\.yaml$/) });
  });

  it("a quote in a comment does not hide the brackets after it; a YAML `- - -` chain is counted (both were exit 70)", async () => {
    const s = scratch();
    const hidden = `// "\n{"a": "x", "b": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    s.write(".mcp.json", hidden);
    const r = await s.run(["adopt", "claude", "--write", "--json"]);
    noStack(r);
    expect(envelope(r).error).toMatchObject({ code: "too_deep", file: ".mcp.json", line: 2 });
    expect(readFileSync(join(s.dir, ".mcp.json"), "utf8")).toBe(hidden);
    mkdirSync(join(s.home, ".config", "goose"), { recursive: true });
    writeFileSync(join(s.home, ".config", "goose", "config.yaml"), `x: ${"- ".repeat(20_000)}a\n`);
    const y = await s.run(["import", "goose", "--scope", "user", "--json"]);
    noStack(y);
    expect(envelope(y).error).toMatchObject({
      code: "too_deep",
      file: expect.stringMatching(/config\.yaml$/),
      line: 1,
    });
  });
});
