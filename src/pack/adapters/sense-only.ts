// kind sense_only: no commands, only stimuli it emits.
import type { AdapterEntry } from "./types";

export const senseOnly = {
  kind: "sense_only",
  capabilities: { callable: false, jsonArgs: false, passThrough: false, readsStdout: false, cliArgv: false, serverTools: false },
  lint({ surface: s, specs, passThrough, ptPath, at }) {
    if (specs.length > 0 || passThrough) at(specs.length > 0 ? ["commands"] : ptPath, "sense_has_commands", "error", "a sense_only pack declares no commands", "remove the commands, or make the pack a wrap/composite");
    const stimuli = s.stimuli ?? [];
    if (stimuli.length === 0) at(s.stimuli ? ["stimuli"] : ["kind"], "sense_no_stimulus", "error", "a sense_only pack declares at least one stimulus", 'add stimuli: [{ id: "…", trigger: "webhook:/…" }]');
    else if (!stimuli.some((st) => typeof st.trigger === "string" && st.trigger.trim() !== "")) {
      at(["stimuli"], "sense_no_trigger", "error", "no stimulus has a trigger ref", 'give each stimulus a trigger, like trigger: "webhook:/hooks/<pack>/<event>"');
    } else {
      stimuli.forEach((st, i) => {
        if (!(typeof st.trigger === "string" && st.trigger.trim() !== "")) at(["stimuli", i], "sense_no_trigger", "warning", `stimulus '${st.id}' has no trigger ref`, "add trigger");
      });
    }
  },
} as const satisfies AdapterEntry<"sense_only">;
