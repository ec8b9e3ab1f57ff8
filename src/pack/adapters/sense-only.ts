// kind sense_only: no commands, only stimuli it emits.
import type { AdapterEntry } from "./types";

export const senseOnly = {
  kind: "sense_only",
  capabilities: {
    callable: false,
    jsonArgs: false,
    passThrough: false,
    readsStdout: false,
    cliArgv: false,
    serverTools: false,
  },
  lint: [
    {
      code: "sense_has_commands",
      check: (_s, { specs, passThrough, ptPath, at }) =>
        specs.length > 0 || passThrough
          ? [
              at(
                specs.length > 0 ? ["commands"] : ptPath,
                "sense_has_commands",
                "error",
                "a sense_only pack declares no commands",
                "remove the commands, or make the pack a wrap/composite",
              ),
            ]
          : [],
    },
    {
      code: ["sense_no_stimulus", "sense_no_trigger"],
      check: (s, { at }) => {
        const stimuli = s.stimuli ?? [];
        const hasTrigger = (st: (typeof stimuli)[number]) => typeof st.trigger === "string" && st.trigger.trim() !== "";
        if (stimuli.length === 0)
          return [
            at(
              s.stimuli ? ["stimuli"] : ["kind"],
              "sense_no_stimulus",
              "error",
              "a sense_only pack declares at least one stimulus",
              'add stimuli: [{ id: "…", trigger: "webhook:/…" }]',
            ),
          ];
        if (!stimuli.some(hasTrigger))
          return [
            at(
              ["stimuli"],
              "sense_no_trigger",
              "error",
              "no stimulus has a trigger ref",
              'give each stimulus a trigger, like trigger: "webhook:/hooks/<pack>/<event>"',
            ),
          ];
        return stimuli.flatMap((st, i) =>
          hasTrigger(st)
            ? []
            : [
                at(
                  ["stimuli", i],
                  "sense_no_trigger",
                  "warning",
                  `stimulus '${st.id}' has no trigger ref`,
                  "add trigger",
                ),
              ],
        );
      },
    },
  ],
} as const satisfies AdapterEntry<"sense_only">;
