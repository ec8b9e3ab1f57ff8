// The grant use cases: `hcpx grant <pattern…>` adds allow patterns to
// hcp.config.json5, each checked (checkPatterns); a pattern naming an active
// pack but none of its commands is a typo: refused (exit 64, nothing written,
// "did you mean"); one naming a pack that is not active is kept with a warning
// (it takes effect when such a pack is activated). `hcpx revoke <pattern…>`
// removes exact allow patterns: a command granted only through a wildcard is
// not revoked silently (the error says which pattern grants it and how to deny
// it instead: `deny`, which adds the pattern to grants.deny), and neither is
// one granted by the user config merged under this one (exec counts it: a
// project's deny wins over it); what a revoke leaves granted is said. Each edit is
// checked and written atomically under the config's lock (src/config/file.ts).
// Nothing here prints.
import { checkPatterns, matches } from "../pack/grants";
import { loadProject } from "../pack/load";
import { arrayAppend, arrayRemove } from "../config/edit";
import { checkConfigText, openConfig, writeConfig } from "../config/file";
import { loadActive, matchedCommands } from "../config/active";
import { warning, type CommonOpts } from "../config/common";
import { HcpxError, type Problem } from "../util/errors";
import { didYouMean } from "../util/suggest";
import { display } from "../util/paths";
import { CAPS, readTextFile } from "../util/readfile";
import { resolve } from "node:path";

export interface GrantReport {
  added: string[];
  /** already allowed, left as they were */
  unchanged: string[];
  /** each pattern with the active commands it matches */
  patterns: { pattern: string; matches: string[] }[];
  config: string;
  warnings: Problem[];
}

export interface RevokeReport {
  removed: string[];
  denied: string[];
  config: string;
  warnings: Problem[];
}

/** Allow `patterns` in the config's grants. */
export function grant(patterns: string[], opts: CommonOpts): GrantReport {
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
  return { added, unchanged, patterns: result, config: cfg.file, warnings };
}

/** An allow pattern and, when it is another file's (the user config merged under this one), that file. */
interface Source {
  pattern: string;
  file?: string;
}

/**
 * The grants exec and status count besides this file's: the user config's, when it is merged under this one
 * (src/pack/load.ts loadProject). Read through the one reader and checked as any config is.
 */
function userLayer(cfgFile: string): { file: string; allow: string[]; deny: string[] } | undefined {
  const user = loadProject({ config: cfgFile }).userConfigFile;
  if (!user || resolve(user) === resolve(cfgFile)) return undefined;
  const g = checkConfigText(readTextFile(user, display(user), CAPS.config), display(user)).grants;
  return { file: user, allow: g?.allow ?? [], deny: g?.deny ?? [] };
}

const named = (s: Source) => `'${s.pattern}'${s.file ? ` (in ${display(s.file)})` : ""}`;

/**
 * What `p` named that stays granted once this file's allow is `allow` and its deny `deny`, and by which allow
 * patterns: the active commands `p` matched (or, with none active, a name it matches), against both files' grants.
 */
function stillGranted(
  p: string,
  hits: string[],
  mine: { allow: string[]; deny: string[] },
  user: ReturnType<typeof userLayer>,
): { still: string[]; by: Source[] } {
  const names = hits.length ? hits : [p.endsWith(".*") ? p.slice(0, -1) + "x" : p];
  const allow: Source[] = [
    ...mine.allow.map((pattern) => ({ pattern })),
    ...(user?.allow ?? []).map((pattern) => ({ pattern, file: user!.file })),
  ];
  const deny = [...mine.deny, ...(user?.deny ?? [])];
  const still = names.filter((n) => allow.some((a) => matches(a.pattern, n)) && !deny.some((d) => matches(d, n)));
  return {
    still: hits.length ? still : still.map(() => p),
    by: allow.filter((a) => still.some((n) => matches(a.pattern, n))),
  };
}

/** How to take out the wider patterns too: with this one here, or in the other file that holds them. */
function alsoRevoke(p: string, by: Source[]): string {
  const elsewhere = by.find((b) => b.file);
  if (elsewhere) return `take ${named(elsewhere)} out of that file`;
  return `revoke them together: hcpx revoke ${[p, ...by.map((b) => b.pattern)].join(" ")}`;
}

/** Take `patterns` out of the config's allow list (with `deny`: add them to its deny list as well). */
export function revoke(patterns: string[], opts: CommonOpts & { deny?: boolean }): RevokeReport {
  checkPatterns(patterns);
  const cfg = openConfig(opts);
  const user = userLayer(cfg.file);
  const { packs } = loadActive(loadProject({ config: cfg.file }));
  let allow = [...(cfg.data.grants?.allow ?? [])];
  const deny = [...(cfg.data.grants?.deny ?? [])];
  let text = cfg.text;
  const removed: string[] = [];
  const denied: string[] = [];
  for (const p of patterns) {
    if (opts.deny && !deny.includes(p)) {
      text = arrayAppend(text, ["grants", "deny"], p);
      deny.push(p);
      denied.push(p);
    }
    if (allow.includes(p)) {
      text = arrayRemove(text, ["grants", "allow"], p);
      allow = allow.filter((a) => a !== p);
      removed.push(p);
    }
  }
  const warnings: Problem[] = [];
  const errors: Problem[] = [];
  for (const p of opts.deny ? [] : patterns) {
    const { still, by } = stillGranted(p, matchedCommands(packs, p), { allow, deny }, user);
    if (removed.includes(p)) {
      // taking the pattern out would not withhold what it named: refused, nothing written (fail closed: the
      // person asked for it not to run, and it would)
      if (by.length)
        errors.push({
          code: "still_granted",
          message: `${still.join(", ")} would still be granted by ${by.map(named).join(", ")}: '${p}' was not revoked`,
          hint: `${alsoRevoke(p, by)}, or withhold it: hcpx revoke --deny ${still.length === 1 ? still[0] : p}`,
        });
    } else if (by.length) {
      errors.push({
        code: "granted_by_wildcard",
        message: `'${p}' is not an allow pattern itself; it is granted by ${by.map(named).join(", ")}`,
        hint: `to withhold it, deny it: hcpx revoke --deny ${p}`,
      });
    } else
      warnings.push(
        warning(
          "not_granted",
          `'${p}' was not granted; nothing to revoke`,
          "`hcpx status` lists what is granted; nothing was changed",
        ),
      );
  }
  if (errors.length) throw new HcpxError(errors);
  if (text !== cfg.text) writeConfig(cfg.file, text);
  return { removed, denied, config: cfg.file, warnings };
}
