// kind composite: the pack's own module, imported in-process.
import { noCommandsRule, type AdapterEntry } from "./types";

export const composite = {
  kind: "composite",
  section: "composite",
  sectionHint: 'add composite: { module: "./index.mjs" }',
  capabilities: {
    callable: true,
    jsonArgs: false,
    passThrough: false,
    readsStdout: false,
    cliArgv: false,
    serverTools: false,
  },
  lint: [noCommandsRule("a composite pack", "add commands; the module exports one async function per verb_key")],
  packFiles: (s) =>
    s.composite?.module ? [{ rel: s.composite.module, segs: ["composite", "module"], what: "composite.module" }] : [],
  review: (s) => (s.composite?.module ? { modules: [s.composite.module] } : {}),
} as const satisfies AdapterEntry<"composite">;
