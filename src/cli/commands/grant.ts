// hcpx grant <pattern…>: add allow patterns to hcp.config.json5. Each pattern is
// checked (checkPattern). A pattern naming an active pack but none of its
// commands is a typo: refused (exit 64, nothing written, "did you mean").
// One naming a pack that is not active is kept with a warning (it takes
// effect when such a pack is activated).
import { display } from "../../util/paths";
import { checkPatterns, matches } from "../../pack/grants";
import { loadProject } from "../../pack/load";
import { arrayAppend } from "../../config/edit";
import { openConfig, writeConfig } from "../../config/file";
import { loadActive, matchedCommands } from "../../config/active";
import { warning, type CommonOpts } from "../../config/common";
import { HcpxError, type Problem } from "../../util/errors";
import { didYouMean } from "../../util/suggest";
import { c, done, makeOut, printWarnings } from "../output";

export async function run(patterns: string[], opts: CommonOpts): Promise<number> {
  const out = makeOut(opts);
  checkPatterns(patterns);
  const cfg = openConfig(opts);
  const project = loadProject({ config: cfg.file });
  const { packs } = loadActive(project);
  const allow = [...(cfg.data.grants?.allow ?? [])];
  const deny = project.grants.deny;
  let text = cfg.text;
  const added: string[] = [];
  const unchanged: string[] = [];
  const warnings: Problem[] = [];
  const result: { pattern: string; matches: string[] }[] = [];
  const typos: Problem[] = [];
  for (const p of patterns) {
    const pack = packs.find((x) => x.id === p.split(".")[0]);
    if (pack && matchedCommands(packs, p).length === 0) {
      const verbs = pack.commands.map((x) => x.verb_key);
      typos.push({
        code: "matches_nothing",
        message: `'${p}' matches no command of the active pack '${pack.id}'; nothing granted`,
        hint: `${didYouMean(p.slice(pack.id.length + 1), verbs).replace(/'([^']+)'/g, `'${pack.id}.$1'`)}its verbs: ${verbs.join(", ") || "none"}`,
      });
    }
  }
  if (typos.length) throw new HcpxError(typos, 64);
  for (const p of patterns) {
    const hits = matchedCommands(packs, p);
    result.push({ pattern: p, matches: hits });
    if (allow.includes(p)) unchanged.push(p);
    else {
      text = arrayAppend(text, ["grants", "allow"], p);
      allow.push(p);
      added.push(p);
    }
    if (hits.length === 0) {
      const packId = p.split(".")[0]!;
      const pack = packs.find((x) => x.id === packId);
      warnings.push(
        warning(
          "matches_nothing",
          pack
            ? `'${p}' matches no command of the active pack '${packId}'`
            : p === "*"
              ? "'*' matches nothing yet: no pack is active"
              : `'${p}' matches no active command: no active pack '${packId}'`,
          pack
            ? `its verbs: ${pack.commands.map((x) => x.verb_key).join(", ")}`
            : `${didYouMean(
                packId,
                packs.map((x) => x.id),
              )}it takes effect once such a pack is activated; \`hcpx status\` lists the active ones`,
        ),
      );
    } else {
      const denied = hits.filter((h) => deny.some((d) => matches(d, h)));
      if (denied.length)
        warnings.push(
          warning(
            "still_denied",
            `${denied.join(", ")} stay(s) withheld: a deny pattern wins over allow`,
            "remove the pattern from grants.deny in the config to grant it",
          ),
        );
    }
  }
  if (added.length) writeConfig(cfg.file, text);
  printWarnings(warnings, out);
  done(out, { added, unchanged, patterns: result, config: cfg.file, warnings }, (col) =>
    [
      ...added.map((p) => `${c.green(col, "✓")} granted ${p}${matchSuffix(result, p)}`),
      ...unchanged.map((p) => `  ${p} was already granted`),
      ...(added.length ? [`  in ${display(cfg.file)}`] : []),
    ].join("\n"),
  );
  return 0;
}

function matchSuffix(result: { pattern: string; matches: string[] }[], p: string): string {
  const m = result.find((r) => r.pattern === p)?.matches ?? [];
  if (m.length === 0 || (m.length === 1 && m[0] === p)) return "";
  return ` (${m.length} command${m.length === 1 ? "" : "s"}: ${m.slice(0, 6).join(", ")}${m.length > 6 ? ", …" : ""})`;
}
