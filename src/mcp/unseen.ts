// What an agent is told about a pack or command it was not granted: what it would be told of one
// that does not exist (README: "the agent is never told it exists"), so a call cannot probe for
// them. The audit record keeps the real reason (front.ts records before this), and a person's
// call through the library is told it (unless it passes forModel, as the SDK adapters do: src/lib).
import { adapterOf } from "../pack/adapters/index";
import { isGranted } from "../pack/grants";
import type { Pack, Project } from "../pack/model";
import { failure, type Envelope } from "../runtime/envelope";
import { unknownVerb } from "../runtime/execute";
import { READ_SKILL_TOOL, boundedList } from "../projection/tools";

/** No such pack, naming only the packs this principal is served. */
export function unknownPackAnswer(served: readonly string[], id: string): Envelope {
  return failure("unknown_pack", `no activated pack '${id}'`, {
    hint: `packs: ${boundedList([...served], `${READ_SKILL_TOOL} {} lists them`) || "(none)"}`,
  });
}

/**
 * `env`, a call's answer, as the agent sees it: a pack none of whose commands is granted, or an
 * unknown one, is an unknown pack among the served ones (no "did you mean" another pack); a command
 * not granted is an unknown command of its pack.
 */
export function asAgentSees(
  env: Envelope,
  served: readonly string[],
  call: { pack: string; verb: string; project?: Project; loaded?: Pack | null },
): Envelope {
  if (env.ok) return env;
  const code = env.error.code;
  if (code === "unknown_pack") return unknownPackAnswer(served, call.pack);
  const { project, loaded: pack } = call;
  if ((code === "not_granted" || code === "unknown_verb") && project && pack) {
    // a pack none of whose commands is granted is not served to this principal: not there (a sense_only
    // pack has no commands, and says so)
    const callable = adapterOf(pack.surface.kind)?.capabilities.callable !== false;
    if (callable && !pack.commands.some((c) => isGranted(project.grants, pack.id, c.verb_key)))
      return unknownPackAnswer(served, call.pack);
    if (code === "not_granted") return unknownVerb(project, pack, call.verb);
  }
  return env;
}
