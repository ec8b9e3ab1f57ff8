// `hcpx exec <pack> <verb>` hides the Binding values of every active pack, not
// only the called one's (src/util/redact.ts; the other packs' Binding names come
// from findPack, src/pack/load.ts, or from what exec remembers of them,
// src/pack/undeclared.ts): a value of another pack's Binding that the caller
// gives as an argument, or that the bin echoes, is `***` in the envelope, the
// readable error and the audit record. Through the built CLI, where the
// validation cache and surface-ids are on.
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHcpx, scratchProject, tmp, type ScratchProject } from "../support/hcpx";
import { RACY_MS } from "../../src/util/stamp";
import { frame, unframe } from "../support/cache-frame";

const SECRET = "s3cr3t-Of-Ledger";
const OTHER = "an0ther-Binding-v4lue";

/** calc-wrap called with `args`; LEDGER_TOKEN (ledger's Binding) set to SECRET, `env` too. */
async function call(p: ScratchProject, home: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const audit = join(home, "audit.jsonl");
  const r = await runHcpx(["exec", "calc-wrap", ...args], {
    cwd: p.dir,
    env: { HOME: home, LEDGER_TOKEN: SECRET, HCPX_AUDIT_LOG: audit, ...env },
  });
  const records = readFileSync(audit, "utf8").trim().split("\n");
  return { out: r.stdout, err: r.stderr, record: records.at(-1)! };
}

/** Both ways a value reaches exec's output: refused by the args check (bad_args quotes it), echoed by the bin's stderr. */
async function expectHidden(p: ScratchProject, home: string, value: string, env: NodeJS.ProcessEnv = {}) {
  for (const args of [
    ["convert", "value=1", `from=${value}`, "to=m", "--json"],
    ["stats", `values=x-${value}-y`, "--json"],
    ["stats", `values=x-${value}-y`],
  ]) {
    const r = await call(p, home, args, env);
    expect(r.out + r.err).toContain("***");
    expect(r.out + r.err).not.toContain(value);
    expect(r.record).toContain("***");
    expect(r.record).not.toContain(value);
  }
}

const settle = (made: number) => new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 100 - Date.now())));
const idsOf = (home: string) => join(home, ".cache", "hcpx", "surface-ids");

describe("hcpx exec hides every active pack's Binding values", () => {
  it("another pack's Binding value given as an argument or echoed by the bin: *** (two packs, nothing remembered)", async () => {
    const p = scratchProject({ packs: ["calc-wrap", "ledger"] });
    await expectHidden(p, tmp("hcpx-redact-home-"), SECRET);
  });

  it(
    "with the other packs remembered (surface-ids), after one of them changed its Binding, and from a stale entry",
    async () => {
      const p = scratchProject({ packs: ["calc-wrap", "ledger", "todo"] });
      await settle(Date.now());
      const home = tmp("hcpx-redact-home-");
      await expectHidden(p, home, SECRET); // the first call remembers ledger and todo
      const [name] = readdirSync(idsOf(home));
      const file = join(idsOf(home), name!);
      const entry = JSON.parse(unframe(readFileSync(file))) as { key: string; skip: unknown[] };
      expect(entry.skip.filter((s) => s !== null)).toHaveLength(2);
      await expectHidden(p, home, SECRET); // from the entry: no surface read
      await expectHidden(p, home, "t0do-T0ken", { TODO_TOKEN: "t0do-T0ken" });
      // an entry of this key without the names (an older build's form) is a miss: every surface is read
      writeFileSync(file, frame(JSON.stringify({ key: entry.key, skip: entry.skip })));
      await expectHidden(p, home, "t0do-T0ken", { TODO_TOKEN: "t0do-T0ken" });
      // ledger's Binding names another variable now: its surface is read again
      const f = join(p.dir, "packs", "ledger", "surface.json");
      writeFileSync(
        f,
        readFileSync(f, "utf8").replace('env: ["LEDGER_TOKEN"]', 'env: ["LEDGER_TOKEN", "LEDGER_OTHER"]'),
      );
      await expectHidden(p, home, OTHER, { LEDGER_OTHER: OTHER });
    },
    RACY_MS + 30_000,
  );
});
