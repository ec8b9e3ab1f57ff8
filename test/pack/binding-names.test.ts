// The Binding names of a surface (src/pack/binding-names.ts): what every exit
// hides the values of (src/util/redact.ts), for each pack loaded and for each
// other pack `hcpx exec` only looks at. Its openapi.schemes' env names are
// Binding names too: held for every pack loaded (as `hcpx mcp` and the library
// load them all), not only when a call of that pack runs.
import { afterEach, describe, expect, it } from "vitest";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, tmp } from "../support/hcpx";
import { loadPack } from "../../src/pack/load";
import { bindingNamesIn, bindingNamesOf } from "../../src/pack/binding-names";
import { redactOut } from "../../src/util/redact";

const set: string[] = [];
function setEnv(name: string, value: string): void {
  set.push(name);
  process.env[name] = value;
}
afterEach(() => {
  for (const n of set.splice(0)) delete process.env[n];
});

describe("Binding names", () => {
  it("a pack loaded holds its openapi.schemes' env names: their values are *** at every exit", () => {
    const dir = join(tmp("hcpx-bn-"), "todo");
    cpSync(join(REPO, "packs", "todo"), dir, { recursive: true });
    const f = join(dir, "surface.json");
    const text = readFileSync(f, "utf8").replace(
      "timeout_ms: 10000,",
      'timeout_ms: 10000, schemes: { basic: { type: "basic", username_env: "TODO_USER", password_env: "TODO_PASS" } },',
    );
    expect(text).toContain("TODO_PASS");
    writeFileSync(f, text);
    setEnv("TODO_PASS", "pa55-of-todo-scheme");
    setEnv("TODO_USER", "us3r-of-todo-scheme");
    loadPack(dir);
    expect(redactOut("got pa55-of-todo-scheme and us3r-of-todo-scheme")).toBe("got *** and ***");
  });

  it("of a surface only parsed: every place a Binding name is, what is not a string passed over", () => {
    const surface = {
      binding: { env: ["A", 1, "", "B"] },
      openapi: {
        auth: { env: "C" },
        schemes: { x: { type: "bearer", env: "D" }, y: { type: "basic", username_env: "E", password_env: "F" }, z: 3 },
      },
      mcp: { headers: { Authorization: { env: "G", scheme: "Bearer" }, Accept: "application/json" } },
    };
    expect(bindingNamesOf(surface).sort()).toEqual(["A", "B", "C", "D", "E", "F", "G"]);
    expect(bindingNamesOf(null)).toEqual([]);
    expect(bindingNamesOf({ binding: { env: "A" } })).toEqual([]);
  });

  it("from a surface.json's bytes: JSON5, a key spelled with an escape too; a text that does not parse names none", () => {
    const names = (text: string) => bindingNamesIn(Buffer.from(text), "surface.json");
    expect(names('// a comment\n{ id: "x", binding: { env: ["TOKEN_A"] }, }')).toEqual(["TOKEN_A"]);
    expect(names('{ id: "x", binding: { "\\u0065nv": ["TOKEN_B"] } }')).toEqual(["TOKEN_B"]);
    expect(names('{ id: "x", binding: { \\u0065nv: ["TOKEN_C"] } }')).toEqual(["TOKEN_C"]);
    expect(names('{ id: "x", description: "a \\"quoted\\" word" }')).toEqual([]);
    expect(names('{ id: "x", binding: { env: ["TOKEN_D"] ')).toEqual([]);
  });
});
