// hcpx deactivate <id>: remove the pack from hcp.config.json5 `packs` and the
// allow patterns that name only it (`<id>.…`), unless --keep-grants.
import { didYouMean } from "../../util/suggest";
import { basename } from "node:path";
import { fail } from "../../util/errors";
import { display } from "../../util/paths";
import { loadPack } from "../../pack/load";
import { arrayRemove } from "../../config/edit";
import { openConfig, writeConfig } from "../../config/file";
import { configPackEntries } from "../../config/active";
import { c, done, makeOut } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

export async function run(id: string, opts: OptionsOf<"deactivate"> & GlobalOpts): Promise<number> {
  const out = makeOut(opts);
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
  done(out, { pack: id, removed: hit.map((e) => e.entry), removedGrants, config: cfg.file }, (col) =>
    [
      `${c.green(col, "✓")} deactivated '${id}' (${hit.map((e) => e.entry).join(", ")})`,
      ...(removedGrants.length ? [`  removed grants: ${removedGrants.join(", ")}`] : []),
    ].join("\n"),
  );
  return 0;
}
