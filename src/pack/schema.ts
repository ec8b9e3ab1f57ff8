// The file formats of DESIGN.md as zod/mini schemas (zod/mini: ~35 KB bundled,
// ~3 ms of start-up, against ~40 ms for classic zod — this is on the exec path).
//
// The schemas themselves are in schema-defs.ts, loaded on first use with a
// require() that esbuild bundles as a lazily run module (zod is still
// tree-shaken: schema-defs imports it statically); in exec's build, a bundle of
// its own (dist/commands/exec-schemas.cjs, scripts/build.mjs), which the
// command's loader compiles through its own code cache (src/cli/load-command.ts). Building them costs ~57 M
// instructions (~11% of a bare Node start), and `hcpx exec` usually needs none
// of it: a file whose exact text validated before is in the validation cache
// (validcache.ts). Under vitest, test/support/lazy-require.ts turns the
// require() into an import (Node cannot require a .ts file).
import type * as Z from "zod/mini";

export { ARG_NAME_RE, ENV_NAME_RE, PACK_ID_RE, VERB_KEY_RE } from "./names";

type Defs = typeof import("./schema-defs");
export type Schemas = ReturnType<Defs["build"]>;
let defs: Defs | undefined;
let built: Schemas | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily run bundled module (see above)
const load = (): Defs => (defs ??= require("./schema-defs") as Defs);

/** The schemas, built on first call (those only some surfaces use on their first read: schema-defs.ts). */
export function schemas(): Schemas {
  return (built ??= load().build());
}

/** The files that have a lean schema: its name in Schemas */
const LEAN = { SurfaceSchema: "LeanSurfaceSchema", ConfigSchema: "LeanConfigSchema" } as const;

/**
 * The schema a file's value of `kind` is validated with: for a surface or a
 * config, the lean one when it parses the value exactly as the full one would
 * (leanFits, schema-defs.ts), which is then not built; else the full one.
 */
export function schemaFor<K extends keyof Schemas>(kind: K, value: unknown): Schemas[K] {
  const s = schemas();
  const lean = Object.hasOwn(LEAN, kind) ? s[LEAN[kind as keyof typeof LEAN]] : undefined;
  return (lean && load().leanFits(lean, value) ? lean : s[kind]) as Schemas[K];
}

export type ArgSpec = Z.infer<Schemas["ArgSchema"]>;
export type CommandSpec = Z.infer<Schemas["CommandSchema"]>;
export type SchemeSpec = Z.infer<Schemas["SchemeSchema"]>;
export type HttpSpec = NonNullable<CommandSpec["http"]>;
export type WrapSpec = Z.infer<Schemas["WrapSchema"]>;
export type McpSpec = Z.infer<Schemas["McpSchema"]>;
/**
 * A surface.json as the schema parses it: every kind's section optional, any
 * of them may be set. What lint and review read. The loaded pack's surface is
 * the union on `kind` built from the adapter table (`Surface`, ./adapters).
 */
export type SurfaceFile = Z.infer<Schemas["SurfaceSchema"]>;
export type PolicyRow = Z.infer<Schemas["PolicyRowSchema"]>;
export type Policy = Z.infer<Schemas["PolicySchema"]>;
export type SkillFrontmatter = Z.infer<Schemas["SkillFrontmatterSchema"]>;
export type ConfigFile = Z.infer<Schemas["ConfigSchema"]>;
