// hcp__read_skill: a pack's Skill as this principal may read it (withheld
// commands taken out), or without a pack a page of the pack index; a pack
// that is broken, not granted or not activated is a failure that says which.
// Read from the view (view-cache.ts), refreshed first when a file changed.
import { basename } from "node:path";
import { failure } from "../runtime/envelope";
import { READ_SKILL_TOOL } from "../projection/tools";
import { unknownPackAnswer } from "./unseen";
import { packIndex } from "./tools";
import { problemEnvelope, toResult, type ToolResult } from "./contract";
import type { ViewCache } from "./view-cache";

/** `person`: a person's call through the library, told what an agent is not (a pack it was not granted). */
export function readSkill(
  cache: ViewCache,
  input: Record<string, unknown>,
  onChanged?: () => void,
  person = false,
): ToolResult {
  if (cache.refresh()) onChanged?.();
  // a principal served nothing now (removed from the server config, or it does not load): refused, saying why
  if (cache.refused) return toResult(problemEnvelope(cache.refused));
  const id = input.pack;
  if (id === undefined) {
    // no pack: a page of the pack index (the `hcp` description lists only the packs that fit)
    const page = input.page ?? 1;
    if (typeof page !== "number" || !Number.isInteger(page) || page < 1)
      return toResult(failure("bad_args", "'page' must be a whole number from 1"));
    return { content: [{ type: "text", text: packIndex(cache.view.packs, page) }] };
  }
  if (typeof id !== "string" || !id)
    return toResult(
      failure("bad_args", "'pack' must be a pack id (string)", {
        hint: `leave it out for the pack index (${READ_SKILL_TOOL} {})`,
      }),
    );
  const view = cache.view;
  const p = view.packs.find((x) => x.pack.id === id);
  if (!p) {
    const b = view.broken.find((x) => x.id === id);
    if (b) {
      const why = b.problems.find((x) => x.severity !== "warning") ?? b.problems[0];
      return toResult(
        failure("bad_pack", `pack ${id} is broken: ${why?.message ?? "it does not load"}`, {
          ...(why?.file ? { file: why.file } : {}),
          ...(why?.line ? { line: why.line } : {}),
          hint: "run `hcpx lint` on the pack",
        }),
      );
    }
    // to an agent, a pack none of whose commands is granted is one that does not exist (unseen.ts)
    const activated = person && view.project.packDirs.some((d) => basename(d) === id);
    return toResult(
      activated
        ? failure("not_granted", `no command of pack '${id}' is granted`, { hint: "grant it with `hcpx grant`" })
        : unknownPackAnswer(
            view.packs.map((x) => x.pack.id),
            id,
          ),
    );
  }
  return { content: [{ type: "text", text: view.skills.get(p.pack.id) ?? "" }] };
}
