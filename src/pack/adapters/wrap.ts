// kind wrap: a program run per call, argv rendered from cli[] / argv_template.
import type { AdapterEntry } from "./types";

export const wrap = {
  kind: "wrap",
  section: "wrap",
  sectionHint: 'add wrap: { bin: "…" }',
  capabilities: { callable: true, jsonArgs: false, passThrough: true, readsStdout: true, cliArgv: true, serverTools: false, binIn: "wrap" },
  lint({ surface: s, specs, passThrough, ptPath, at }) {
    if (specs.length === 0 && !passThrough) {
      at(specs.length === 0 && s.commands ? ["commands"] : ["kind"], "wrap_no_commands", "error", "a wrap declares neither named commands nor pass_through", "name the commands (5–12 is typical) with policy rows, or start with wrap.pass_through: { allowedSubcommands, maxArgv }");
    }
    const named = specs.map((c) => c.verb_key);
    if (named.length === 1 && named[0] === "run") {
      at(["commands", 0, "verb_key"], "mega_command", "error", "a lone mega-command `run` does not conform (adapter.md)", "name each operation as its own command, or use pass_through while bootstrapping");
    }
    if (passThrough && passThrough.allowedSubcommands.length === 1 && passThrough.allowedSubcommands[0] === "run" && named.length === 0) {
      at([...ptPath, "allowedSubcommands", 0], "mega_command", "error", "a lone pass-through subcommand `run` is a mega-command", "allow the bin's real subcommands by name");
    }
  },
  review: (s) => (s.wrap ? { bins: [{ bin: s.wrap.bin, field: "wrap.bin" }], setsEnv: Object.keys(s.wrap.agent_env ?? {}) } : {}),
} as const satisfies AdapterEntry<"wrap">;
