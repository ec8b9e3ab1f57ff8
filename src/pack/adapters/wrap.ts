// kind wrap: a program run per call, argv rendered from cli[] / argv_template.
import type { AdapterEntry } from "./types";
import type { Problem } from "../../util/errors";

export const wrap = {
  kind: "wrap",
  section: "wrap",
  sectionHint: 'add wrap: { bin: "…" }',
  capabilities: {
    callable: true,
    jsonArgs: false,
    passThrough: true,
    readsStdout: true,
    cliArgv: true,
    serverTools: false,
    binIn: "wrap",
  },
  lint: [
    {
      code: "wrap_no_commands",
      check: (s, { specs, passThrough, at }) =>
        specs.length === 0 && !passThrough
          ? [
              at(
                specs.length === 0 && s.commands ? ["commands"] : ["kind"],
                "wrap_no_commands",
                "error",
                "a wrap declares neither named commands nor pass_through",
                "name the commands (5–12 is typical) with policy rows, or start with wrap.pass_through: { allowedSubcommands, maxArgv }",
              ),
            ]
          : [],
    },
    {
      code: "mega_command",
      check: (_s, { specs, passThrough, ptPath, at }) => {
        const named = specs.map((c) => c.verb_key);
        const out: Problem[] = [];
        if (named.length === 1 && named[0] === "run") {
          out.push(
            at(
              ["commands", 0, "verb_key"],
              "mega_command",
              "error",
              "a lone mega-command `run` does not conform (adapter.md)",
              "name each operation as its own command, or use pass_through while bootstrapping",
            ),
          );
        }
        if (
          passThrough &&
          passThrough.allowedSubcommands.length === 1 &&
          passThrough.allowedSubcommands[0] === "run" &&
          named.length === 0
        ) {
          out.push(
            at(
              [...ptPath, "allowedSubcommands", 0],
              "mega_command",
              "error",
              "a lone pass-through subcommand `run` is a mega-command",
              "allow the bin's real subcommands by name",
            ),
          );
        }
        return out;
      },
    },
  ],
  review: (s) =>
    s.wrap ? { bins: [{ bin: s.wrap.bin, field: "wrap.bin" }], setsEnv: Object.keys(s.wrap.agent_env ?? {}) } : {},
} as const satisfies AdapterEntry<"wrap">;
