// Copies of the ledger pack, each with an id of its own, for projects of many active packs: the benches
// (bench/project.mjs fillerPacks) and the tests of what hcpx does past a number of packs
// (test/pack/validcache.test.ts). Plain JavaScript, so the benches run it as it is (types:
// ./ledger-copies.d.mts).
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** `n` copies of `dir`/packs/ledger as `dir`/packs/<prefix>-<i>, each declaring that id and naming its Skill so; their ids. */
export function ledgerCopies(dir, n, prefix) {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const id = `${prefix}-${i}`;
    cpSync(join(dir, "packs", "ledger"), join(dir, "packs", id), { recursive: true });
    const sf = join(dir, "packs", id, "surface.json");
    writeFileSync(sf, readFileSync(sf, "utf8").replace(/id: "ledger"|"id": "ledger"/, `id: "${id}"`));
    const kf = join(dir, "packs", id, "SKILL.md");
    writeFileSync(kf, readFileSync(kf, "utf8").replace(/^name: ledger$/m, `name: ${id}`));
    ids.push(id);
  }
  return ids;
}
