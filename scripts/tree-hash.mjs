// A SHA-256 over files and folders of the repository, for the build (scripts/build.mjs): its
// up-to-date stamp, and the key of what the validation cache may trust (src/pack/validcache.ts).
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * What can change a value the validation cache keeps: the schemas, the validator and zod, and
 * also the readers that make the value (src/pack/json5.ts and the json5 package it falls back to,
 * src/pack/frontmatter.ts and yaml for a Skill's frontmatter) and whatever they import. So: all of
 * the sources and the dependencies (the lock: npm ci installs exactly it). A build that changes any
 * of them never trusts what an earlier build validated (a reader that now refuses a duplicate key
 * must see the file again, not its remembered value).
 */
export const SCHEMA_INPUTS = ["src", "package-lock.json"];

/** The hex SHA-256 of `first`, then of each file at `rels` under `root` (a folder: every file below it, by name), with its path. */
export function treeHash(root, rels, first = "") {
  const h = createHash("sha256");
  h.update(first);
  const add = (rel) => {
    const abs = join(root, rel);
    if (statSync(abs).isDirectory()) {
      for (const f of readdirSync(abs).sort()) add(join(rel, f));
    } else h.update(rel).update("\0").update(readFileSync(abs)).update("\0");
  };
  for (const rel of rels) add(rel);
  return h.digest("hex");
}
