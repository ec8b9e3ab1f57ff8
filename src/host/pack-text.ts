// Pack text an adopt plan would land in a host's files, checked before
// anything is planned: a block marker, a control character or (in what lands in an instructions file) an
// import directive is refused.
import { display } from "../util/paths";
import type { Problem } from "../util/errors";
import type { ProjectedPack, Projection } from "../projection/types";
import { surfaceTextProblems, unsafeHostText } from "../pack/hosttext";

/**
 * The packs found clean, by the Skill copies they were checked with: a projection a host re-renders
 * for its own Skill path shares its packs and copies (src/projection/build.ts withSkillsPath), so the
 * host previews of generate check each pack's text once, not once per host (~5 MB of text at 5,000 packs).
 */
const CLEAN = new WeakMap<Projection["skills"], WeakSet<ProjectedPack>>();

/** Pack text that would break the files it lands in (a marker, a control character, an import directive): refused, naming the pack file. */
export function packTextProblems(projection: Projection, checked: Set<string>): Problem[] {
  const problems: Problem[] = [];
  // each pack's Skill copy by id, the first one as find() took it (a find() per pack was quadratic in the packs)
  const copies = new Map<string, string>();
  for (const k of projection.skills) if (!copies.has(k.packId)) copies.set(k.packId, k.content);
  let clean = CLEAN.get(projection.skills);
  if (clean === undefined) CLEAN.set(projection.skills, (clean = new WeakSet()));
  for (const p of projection.packs) {
    if (checked.has(p.pack.dir)) continue;
    checked.add(p.pack.dir);
    if (clean.has(p)) continue;
    // what lands is the Skill copy, the leads and the surface's texts: checked in memory; surface.json is read for positions only when something is found
    const copy = copies.get(p.pack.id) ?? "";
    // what lands in an instructions file (a lead, a description, a summary) holds no import directive either
    const texts: [string, string, boolean][] = [
      ["the Skill copy", copy, false],
      ["the Skill's description", p.description, true],
      ...p.leads.map((l, i): [string, string, boolean] => [`the prompt block's lead ${i + 1}`, l, true]),
    ];
    const surface = surfaceTextProblems(p.pack.surface, p.pack.surfaceFile);
    const found = texts.flatMap(([what, text, imports]) => {
      const u = unsafeHostText(text, { imports });
      return u ? [{ what, u }] : [];
    });
    if (!surface.length && !found.length) {
      clean.add(p);
      continue;
    }
    // the Skill's own text is refused where it is loaded (src/pack/skill.ts): what is found here is the surface's
    // (a lead may be its description: named once), or what the projection made of the Skill
    const bad: Problem[] = [
      ...surface,
      ...(surface.length ? [] : found).map(({ what, u }) => ({
        code: "host_text_unsafe" as const,
        severity: "error" as const,
        message: `${what} holds ${u.what}`,
        file: display(p.pack.skillFile),
        hint: u.hint ?? "run hcpx lint on the pack",
      })),
    ];
    problems.push(...bad.map((x) => ({ ...x, hint: `${x.hint}; hcpx adopts nothing while a pack holds it` })));
  }
  return problems;
}
