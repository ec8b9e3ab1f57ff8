// The layer of each directory of src/ (issue 28): an import must go to a lower
// number, or stay in its directory. test/arch/layers.test.ts keeps every import
// so; scripts/walk.mjs counts the calls that climb; test/doc/architecture.test.ts
// checks that the README's drawing agrees. One table, read by all three.
export const LAYER = {
  util: 0,
  pack: 1,
  runtime: 2,
  projection: 2,
  openapi: 2,
  scaffold: 2,
  packs: 2,
  plan: 2.5,
  host: 3,
  mcp: 3,
  config: 4,
  mcpimport: 5,
  app: 5.5,
  cli: 6,
  lib: 6,
};

/** The directory of a module (`host/engine.ts` → `host`); `.` for a file directly in src/. */
export const dirOf = (m) => (m.includes("/") ? m.slice(0, m.indexOf("/")) : ".");
