// kind composite: the pack's own module, imported in-process.
import type { AdapterEntry } from "./types";

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
  lint: [
    {
      code: "no_commands",
      check: (s, { specs, at }) =>
        specs.length === 0
          ? [
              at(
                s.commands ? ["commands"] : ["kind"],
                "no_commands",
                "error",
                "a composite pack declares no commands",
                "add commands; the module exports one async function per verb_key",
              ),
            ]
          : [],
    },
  ],
  packFiles: (s) =>
    s.composite?.module ? [{ rel: s.composite.module, segs: ["composite", "module"], what: "composite.module" }] : [],
  review: (s) => (s.composite?.module ? { modules: [s.composite.module] } : {}),
} as const satisfies AdapterEntry<"composite">;
