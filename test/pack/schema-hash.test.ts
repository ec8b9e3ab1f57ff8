// The validation cache (src/pack/validcache.ts) keys on the build's SCHEMA_HASH: a build that could
// make another value of a file, or refuse it, must not trust what an earlier build remembered. The
// value comes from the readers (src/pack/json5.ts, src/pack/frontmatter.ts and the packages they fall
// back to) as much as from the schemas, so the hash is over all of the sources and the lock
// (scripts/tree-hash.mjs SCHEMA_INPUTS), not over the schema files alone.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain .mjs script (scripts/tree-hash.mjs), no declarations
import { SCHEMA_INPUTS, treeHash } from "../../scripts/tree-hash.mjs";
import { REPO, tmp } from "../support/hcpx";

describe("the validation cache's key (SCHEMA_HASH)", () => {
  it("changes with a reader of the values it keeps, not only with a schema", () => {
    const root = tmp("hcpx-schema-hash-");
    mkdirSync(join(root, "src", "pack"), { recursive: true });
    const files = {
      "src/pack/schema-defs.ts": "export const a = 1;\n",
      "src/pack/json5.ts": "export const parse = 1;\n",
      "src/pack/frontmatter.ts": "export const simple = 1;\n",
      "src/util/paths.ts": "export const p = 1;\n",
      "package-lock.json": '{"packages":{"node_modules/yaml":{"version":"2.8.1"}}}\n',
    };
    mkdirSync(join(root, "src", "util"));
    for (const [f, t] of Object.entries(files)) writeFileSync(join(root, f), t);
    const before = treeHash(root, SCHEMA_INPUTS);
    expect(treeHash(root, SCHEMA_INPUTS)).toBe(before);
    for (const [f, t] of Object.entries(files)) {
      writeFileSync(join(root, f), t.replace("1", "2"));
      expect(treeHash(root, SCHEMA_INPUTS), f).not.toBe(before);
      writeFileSync(join(root, f), t);
    }
    expect(treeHash(root, SCHEMA_INPUTS)).toBe(before);
  });

  it("is what the build keys the cache on", () => {
    const hash = treeHash(REPO, SCHEMA_INPUTS).slice(0, 16);
    expect(readFileSync(join(REPO, "dist", "commands", "exec.cjs"), "utf8")).toContain(JSON.stringify(hash));
  });
});
