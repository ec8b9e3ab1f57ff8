// What exec remembers of the other packs (src/pack/undeclared.ts): that a
// surface.json, as it is by one stat, does not declare the called id. It may
// only ever save reads: a surface changed, replaced or linked after it was
// remembered is read again, and a second pack with the id is still refused
// (duplicate_pack); a file changed within RACY_MS of its read is never
// remembered. Through the built CLI, where the validation cache is on.
import { beforeAll, describe, expect, it } from "vitest";
import {
  cpSync,
  existsSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runHcpx, scratchProject, tmp, type ScratchProject } from "../support/hcpx";
import { RACY_MS } from "../../src/util/stamp";
import { frame, unframe } from "../support/cache-frame";

const idsOf = (home: string) => join(home, ".cache", "hcpx", "surface-ids");
type Entry = { key: string; skip: (number[] | null)[]; names: string[][] };
/** The one entry (file, content) of a HOME's surface-ids cache. */
function entryOf(home: string): { file: string; entry: Entry } {
  const names = readdirSync(idsOf(home));
  expect(names).toHaveLength(1);
  const file = join(idsOf(home), names[0]!);
  return { file, entry: JSON.parse(unframe(readFileSync(file))) as Entry };
}
const settle = (made: number) => new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 100 - Date.now())));

const FILLERS = 30;
/** calc-wrap in packs/zz-calc (not named like its id) after 30 packs copied from ledger, and calc-wrap's twin, not activated. */
function manyPacks(): ScratchProject {
  const p = scratchProject({ packs: [], allow: ["calc-wrap.*"] });
  const packs: string[] = [];
  for (let i = 0; i < FILLERS; i++) {
    const id = `filler-${i}`;
    cpSync(join(p.dir, "packs", "ledger"), join(p.dir, "packs", id), { recursive: true });
    const f = join(p.dir, "packs", id, "surface.json");
    writeFileSync(f, readFileSync(f, "utf8").replace(/"id":\s*"ledger"|id:\s*"ledger"/, `id: "${id}"`));
    packs.push(`./packs/${id}`);
  }
  cpSync(join(p.dir, "packs", "calc-wrap"), join(p.dir, "packs", "zz-calc"), { recursive: true });
  cpSync(join(p.dir, "packs", "calc-wrap"), join(p.dir, "twin"), { recursive: true });
  rmSync(join(p.dir, "packs", "calc-wrap"), { recursive: true });
  const config = JSON.parse(readFileSync(p.config, "utf8")) as Record<string, unknown>;
  writeFileSync(p.config, JSON.stringify({ ...config, packs: [...packs, "./packs/zz-calc"] }));
  return p;
}
const call = async (p: ScratchProject, home: string) =>
  JSON.parse((await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home } })).stdout) as {
    ok: boolean;
    error?: { code: string };
  };
/** The twin's surface.json text, spelled `how`, padded with spaces to `size` bytes (a same-size edit). */
function twinText(p: ScratchProject, how: "plain" | "escaped", size?: number): string {
  let text = readFileSync(join(p.dir, "twin", "surface.json"), "utf8");
  if (how === "escaped") {
    text = text.replace(/id:\s*"calc-wrap"|"id":\s*"calc-wrap"/, 'id: "calc-wr\\u0061p"');
    expect(text).toContain('id: "calc-wr\\u0061p"');
  }
  if (size !== undefined) {
    expect(Buffer.byteLength(text)).toBeLessThan(size);
    text += " ".repeat(size - Buffer.byteLength(text));
  }
  return text;
}

describe("the other packs' surfaces exec remembers (surface-ids)", () => {
  let made: number;
  const projects: Record<string, ScratchProject> = {};
  beforeAll(() => {
    for (const k of ["changed", "replaced", "linked", "forged", "relisted"]) projects[k] = manyPacks();
    made = Date.now(); // after the last file is written
  });
  /** a project's first call after its files settled: ok, and the entry remembers every filler */
  async function warm(k: string): Promise<{ p: ScratchProject; home: string }> {
    await settle(made);
    const p = projects[k]!;
    const home = tmp("hcpx-ids-home-");
    expect(await call(p, home)).toEqual({ ok: true, data: { pong: true } });
    const { entry } = entryOf(home);
    expect(entry.skip.filter((s) => s !== null)).toHaveLength(FILLERS);
    expect(entry.skip.at(-1)).toBeNull(); // zz-calc declares the id: never remembered
    // with each filler's Binding names (a copy of ledger's), hidden as the called pack's are
    expect(entry.names.slice(0, FILLERS)).toEqual(Array.from({ length: FILLERS }, () => ["LEDGER_TOKEN"]));
    return { p, home };
  }

  it(
    "a file changed within RACY_MS of its read is not remembered; once settled, every other pack is, and the next call reads none of them",
    async () => {
      const p = manyPacks();
      const made = Date.now(); // after its files are written
      const home = tmp("hcpx-ids-home-");
      expect(await call(p, home)).toEqual({ ok: true, data: { pong: true } });
      expect(existsSync(idsOf(home)) ? readdirSync(idsOf(home)) : []).toEqual([]);
      await settle(made);
      expect(await call(p, home)).toEqual({ ok: true, data: { pong: true } });
      const { file, entry } = entryOf(home);
      expect(entry.skip.filter((s) => s !== null)).toHaveLength(FILLERS);
      expect(entry.key).toContain(join(p.dir, "packs", "filler-0"));
      const written = statSync(file).mtimeMs;
      expect(await call(p, home)).toEqual({ ok: true, data: { pong: true } });
      expect(statSync(file).mtimeMs).toBe(written); // a hit rewrites nothing
    },
    RACY_MS + 30_000,
  );

  it("a remembered surface edited in place (same size, its mtime set back) to declare the id is read again: duplicate_pack", async () => {
    const { p, home } = await warm("changed");
    const f = join(p.dir, "packs", "filler-7", "surface.json");
    const was = statSync(f);
    writeFileSync(f, twinText(p, "plain", was.size));
    // the stamp set back to the microsecond (a Date would round it to the millisecond, at times up into the next second)
    utimesSync(f, was.atimeMs / 1000, was.mtimeMs / 1000);
    const now = statSync(f);
    expect([now.size, now.ino, Math.trunc(now.mtimeMs / 1000)]).toEqual([
      was.size,
      was.ino,
      Math.trunc(was.mtimeMs / 1000),
    ]);
    expect((await call(p, home)).error?.code).toBe("duplicate_pack");
  });

  it("a remembered surface replaced (renamed over) by one that declares the id, escaped, is read again: duplicate_pack", async () => {
    const { p, home } = await warm("replaced");
    const f = join(p.dir, "packs", "filler-12", "surface.json");
    writeFileSync(`${f}.new`, twinText(p, "escaped"));
    renameSync(`${f}.new`, f);
    expect((await call(p, home)).error?.code).toBe("duplicate_pack");
  });

  it("a remembered surface replaced by a link to one that declares the id is read again: duplicate_pack", async () => {
    const { p, home } = await warm("linked");
    const f = join(p.dir, "packs", "filler-29", "surface.json");
    rmSync(f);
    symlinkSync(join(p.dir, "twin", "surface.json"), f);
    expect((await call(p, home)).error?.code).toBe("duplicate_pack");
  });

  it("an answer is taken for exactly the file's stat and the entry's key: another ctime or another key is a miss", async () => {
    const { p, home } = await warm("forged");
    // filler-3 now declares the id; once it has settled, an entry that says it does not hides it (the
    // entry is what exec goes by: it read no surface it remembered), under exactly its stat and key only
    const f = join(p.dir, "packs", "filler-3", "surface.json");
    const changed = Date.now();
    writeFileSync(f, twinText(p, "plain"));
    await settle(changed);
    expect((await call(p, home)).error?.code).toBe("duplicate_pack");
    const { file, entry } = entryOf(home);
    expect(entry.skip[3]).toBeNull();
    const st = statSync(f);
    const stamp = [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];
    const forge = (key: string, s: number[]) =>
      writeFileSync(
        file,
        frame(JSON.stringify({ key, skip: entry.skip.map((x, i) => (i === 3 ? s : x)), names: entry.names })),
      );
    forge(entry.key, stamp);
    expect(await call(p, home)).toEqual({ ok: true, data: { pong: true } });
    forge(entry.key, [...stamp.slice(0, 4), st.ctimeMs + 1]);
    expect((await call(p, home)).error?.code).toBe("duplicate_pack");
    forge(entry.key.replace("filler-0", "filler-00"), stamp);
    expect((await call(p, home)).error?.code).toBe("duplicate_pack");
    // another build's answer (the command bundle's hash, the key's second part) is not this one's
    const parts = entry.key.split("\0");
    expect(parts[1]).toMatch(/^[0-9a-f]{8,}$/);
    forge([parts[0], "0".repeat(parts[1]!.length), ...parts.slice(2)].join("\0"), stamp);
    expect((await call(p, home)).error?.code).toBe("duplicate_pack");
  });

  it("a list that differs only between its first and last pack shares the entry's file, never its answers", async () => {
    // the entry's file is named by the id, the number of packs and the first and last one (slotText);
    // the key in it names every pack: the other list is a miss, read and checked whole
    const { p, home } = await warm("relisted");
    const { file } = entryOf(home);
    const config = JSON.parse(readFileSync(p.config, "utf8")) as { packs: string[] };
    const relisted = config.packs.map((d, i) => (i === 3 ? "./twin" : d));
    writeFileSync(p.config, JSON.stringify({ ...config, packs: relisted }));
    expect((await call(p, home)).error?.code).toBe("duplicate_pack");
    expect(entryOf(home).file).toBe(file);
    expect(entryOf(home).entry.key).toContain(`${p.dir}/twin`);
    writeFileSync(p.config, JSON.stringify(config));
    expect(await call(p, home)).toEqual({ ok: true, data: { pong: true } });
    expect(entryOf(home).entry.key).not.toContain(`${p.dir}/twin`);
  });
});
