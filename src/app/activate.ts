// The `hcpx activate <pack-dir>` and `hcpx deactivate <id>` use cases. Activate: lint the pack (errors refuse it), add
// it to hcp.config.json5 (path relative to the config) and grant its read
// commands, one `pack.verb` each. Writes are never granted here: the caller
// says how (`hcpx grant <pack>.<verb>`). Also the last step of `hcpx pack add`
// (./vendor-add.ts) and of `hcpx import --activate`. Deactivate: remove the
// pack from `packs` and the allow patterns that name only it (`<id>.…`),
// unless keepGrants. Nothing here prints or asks.
import { basename, relative } from "node:path";
import { HcpxError, type Problem, fail } from "../util/errors";
import type { Command, Grants, Pack } from "../pack/model";
import { display, toPosix } from "../util/paths";
import { declaredId, loadPack, loadProject } from "../pack/load";
import { grantedByDefault, isGranted, matches } from "../pack/grants";
import { loadSkill } from "../pack/skill";
import { arrayAppend, arrayRemove } from "../config/edit";
import { openConfig, writeConfig } from "../config/file";
import { configPackEntries } from "../config/active";
import type { CommonOpts } from "../config/common";
import { lintErrors } from "../config/lint-bridge";
import { didYouMean } from "../util/suggest";

export interface Activated {
  pack: Pack;
  dir: string;
  entry: string | undefined;
  config: string;
  alreadyActive: boolean;
  granted: string[];
  /** passThrough: a pass-through verb (the agent's own argv), never granted by default */
  withheld: CommandWord[];
  /**
   * The writes and pass-through verbs that activate never grants but that an allow pattern already in the
   * grants (this config's or the user config's: `*`, `<id>.*`) covers: they run now, and the person is told.
   */
  grantedBy: (CommandWord & { by: string[] })[];
  warnings: Problem[];
}

/** A command as activate reports it: its verb and Policy. */
export interface CommandWord {
  verb: string;
  operation: string;
  land?: string;
  confirm: boolean;
  passThrough?: true;
}

const word = (cmd: Command): CommandWord => ({
  verb: cmd.verb_key,
  operation: cmd.policy.operation,
  ...(cmd.policy.land ? { land: cmd.policy.land } : {}),
  confirm: cmd.policy.confirm,
  ...(cmd.passThrough ? { passThrough: true as const } : {}),
});

/** What the merged grants (user config included) withhold of `pack`, and what they grant that activate never would. */
function grantState(grants: Grants, pack: Pack): Pick<Activated, "withheld" | "grantedBy"> {
  const granted = (cmd: Command) => isGranted(grants, pack.id, cmd.verb_key);
  return {
    withheld: pack.commands.filter((cmd) => !granted(cmd)).map(word),
    grantedBy: pack.commands
      .filter((cmd) => !grantedByDefault(cmd) && granted(cmd))
      .map((cmd) => ({ ...word(cmd), by: grants.allow.filter((p) => matches(p, `${pack.id}.${cmd.verb_key}`)) })),
  };
}

/**
 * Lint the pack (errors refuse it), add it to `packs` and grant its read
 * commands, one `pack.verb` each; never a write, nor a verb in `withhold`
 * (`pack add --force`: the commands its new version widened).
 */
export async function activateDir(dir: string, opts: CommonOpts & { withhold?: string[] }): Promise<Activated> {
  const cfg = openConfig(opts);
  const pack = loadPack(dir); // not_a_pack / schema errors stop here
  loadSkill(pack);
  const lint = await lintErrors(dir);
  if (lint.errors.length) {
    throw new HcpxError([
      {
        code: "lint_failed",
        message: `pack '${pack.id}' has ${lint.errors.length} lint error(s); not activated`,
        file: display(dir),
        hint: `fix them (see \`hcpx lint ${display(dir)}\`), then activate again`,
      },
      ...lint.errors,
    ]);
  }
  const entries = configPackEntries(cfg);
  const already = entries.find((e) => e.dir === dir);
  if (!already) {
    // by the declared id: a broken pack (or two already clashing) still holds its id
    const clash = entries.map((e) => ({ dir: e.dir, id: declaredId(e.dir) })).find((p) => p.id === pack.id);
    if (clash)
      fail("duplicate_pack", `a pack with id '${pack.id}' is already active (${display(clash.dir)})`, {
        hint: `run \`hcpx deactivate ${pack.id}\` first`,
      });
  }
  let text = cfg.text;
  let entry = already?.entry;
  if (!already) {
    const rel = toPosix(relative(cfg.dir, dir)) || ".";
    entry = rel.startsWith(".") ? rel : `./${rel}`;
    text = arrayAppend(text, ["packs"], entry);
  }
  const grants = { allow: [...(cfg.data.grants?.allow ?? [])], deny: [...(cfg.data.grants?.deny ?? [])] };
  const granted: string[] = [];
  for (const cmd of pack.commands) {
    // reads only, and no pass-through verb (src/pack/grants.ts grantedByDefault: the one rule)
    if (!grantedByDefault(cmd) || opts.withhold?.includes(cmd.verb_key)) continue;
    if (grants.allow.some((p) => isGranted({ allow: [p], deny: [] }, pack.id, cmd.verb_key))) continue;
    const pattern = `${pack.id}.${cmd.verb_key}`;
    text = arrayAppend(text, ["grants", "allow"], pattern);
    grants.allow.push(pattern);
    granted.push(pattern);
  }
  if (text !== cfg.text) writeConfig(cfg.file, text);
  // the merged view (user config included) decides what is effectively granted
  const state = grantState(loadProject({ config: cfg.file }).grants, pack);
  return { pack, dir, entry, config: cfg.file, alreadyActive: !!already, granted, ...state, warnings: lint.warnings };
}

export interface Deactivated {
  pack: string;
  /** the config entries removed from `packs` */
  removed: string[];
  removedGrants: string[];
  config: string;
}

/** Remove the active pack `id` from the config (a broken or missing pack by its folder's name), and its own grants unless `keepGrants`. */
export function deactivate(id: string, opts: CommonOpts & { keepGrants?: boolean }): Deactivated {
  const cfg = openConfig(opts);
  const entries = configPackEntries(cfg);
  const ids: string[] = [];
  const hit = entries.filter((e) => {
    let pid: string;
    try {
      pid = loadPack(e.dir).id;
    } catch {
      pid = basename(e.dir); // a broken or missing pack can still be deactivated by its dir name
    }
    ids.push(pid);
    return pid === id;
  });
  if (hit.length === 0) {
    fail("unknown_pack", `no active pack '${id}' in ${display(cfg.file)}`, {
      hint: ids.length
        ? `${didYouMean(id, ids)}active packs: ${[...new Set(ids)].sort().join(", ")}`
        : "no pack is active; `hcpx activate <pack-dir>` adds one",
      exit: 64,
    });
  }
  let text = cfg.text;
  for (const e of hit) text = arrayRemove(text, ["packs"], e.entry);
  const removedGrants = opts.keepGrants ? [] : (cfg.data.grants?.allow ?? []).filter((p) => p.startsWith(`${id}.`));
  for (const p of removedGrants) text = arrayRemove(text, ["grants", "allow"], p);
  writeConfig(cfg.file, text);
  return { pack: id, removed: hit.map((e) => e.entry), removedGrants, config: cfg.file };
}
