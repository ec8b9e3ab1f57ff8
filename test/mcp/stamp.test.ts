// The per-call stamp of the one tool-call front (src/mcp/stamp.ts): a value
// loaded from files is reused while their stamp (device, inode, size, mtime,
// ctime) is unchanged, and only then. The case a bare stamp gets wrong: two
// same-size writes within one tick of the file system's clock leave every
// field equal; a file changed within RACY_MS of now is therefore never
// vouched for by its stamp, and is loaded again on every call until it has
// aged.
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Marks, RACY_MS, Stamped, stampOf, type StatFn } from "../../src/mcp/stamp";
import { tmp } from "../support/hcpx";

/** A file system whose clock ticks coarsely: every write within one tick gets the same times. */
function coarseFs(tick: number) {
  const files = new Map<string, { text: string; ino: number; ctimeMs: number; mtimeMs: number }>();
  let now = 1_000_000;
  let ino = 1;
  return {
    clock: () => now,
    advance: (ms: number) => (now += ms),
    write(f: string, text: string) {
      const t = Math.floor(now / tick) * tick;
      const had = files.get(f);
      files.set(f, { text, ino: had?.ino ?? ino++, ctimeMs: t, mtimeMs: t });
    },
    read: (f: string) => files.get(f)!.text,
    stat: ((f: string) => {
      const x = files.get(f);
      return x
        ? { dev: 1, ino: x.ino, size: Buffer.byteLength(x.text), mtimeMs: x.mtimeMs, ctimeMs: x.ctimeMs }
        : undefined;
    }) as StatFn,
  };
}

describe("the per-call stamp", () => {
  it("a same-size edit within the clock's tick, right after a load, is loaded on the next call (never a stale value)", () => {
    const fs = coarseFs(2000);
    fs.write("/p/policy.json", '{"op":"read"}');
    const s = new Stamped<string>(fs.stat, fs.clock);
    let loads = 0;
    const get = () => s.get(["/p/policy.json"], () => (loads++, fs.read("/p/policy.json")));
    expect(get()).toBe('{"op":"read"}');
    fs.advance(5);
    // same size, same tick: device, inode, size, mtime and ctime all equal
    fs.write("/p/policy.json", '{"op":"reed"}');
    expect(get()).toBe('{"op":"reed"}');
    expect(loads).toBe(2);
  });

  it("once the files are older than RACY_MS the value is kept, and any later change (a later tick) is loaded", () => {
    const fs = coarseFs(2000);
    fs.write("/c.json5", "grants: a");
    const s = new Stamped<string>(fs.stat, fs.clock);
    let loads = 0;
    const get = () => s.get(["/c.json5", "/absent.json5"], () => (loads++, fs.read("/c.json5")));
    fs.advance(RACY_MS + 1);
    expect(get()).toBe("grants: a");
    expect(get()).toBe("grants: a");
    expect(get()).toBe("grants: a");
    expect(loads).toBe(1);
    fs.advance(10);
    fs.write("/c.json5", "grants: b");
    expect(get()).toBe("grants: b");
    expect(loads).toBe(2);
    // a file that appears where there was none changes the stamp too
    fs.advance(RACY_MS + 1);
    expect(get()).toBe("grants: b");
    fs.write("/absent.json5", "x");
    get();
    expect(loads).toBe(4);
  });

  it("a file stamped too recently, or with a time ahead of the clock, is not vouched for", () => {
    const fs = coarseFs(1);
    fs.write("/f", "x");
    expect(stampOf(["/f"], fs.clock(), fs.stat)).toBeUndefined();
    expect(stampOf(["/f"], fs.clock() + RACY_MS - 1, fs.stat)).toBeUndefined();
    expect(stampOf(["/f"], fs.clock() + RACY_MS, fs.stat)).toBeDefined();
    expect(stampOf(["/f"], fs.clock() - 60_000, fs.stat)).toBeUndefined();
    expect(stampOf(["/nothing"], fs.clock(), fs.stat)).toBe("/nothing=-|");
  });

  it("a load that throws is not kept", () => {
    const fs = coarseFs(1);
    fs.write("/f", "x");
    fs.advance(RACY_MS + 1);
    const s = new Stamped<string>(fs.stat, fs.clock);
    expect(() =>
      s.get(["/f"], () => {
        throw new Error("broken");
      }),
    ).toThrow("broken");
    expect(s.get(["/f"], () => "ok")).toBe("ok");
  });

  it("on the real file system: a same-size rewrite and a file renamed in are each loaded on the next call", () => {
    const dir = tmp("hcpx-stamp-");
    const f = join(dir, "policy.json");
    writeFileSync(f, "read");
    const s = new Stamped<string>();
    let loads = 0;
    const get = () => s.get([f], () => (loads++, readFileSync(f, "utf8")));
    expect(get()).toBe("read");
    writeFileSync(f, "reed");
    expect(get()).toBe("reed");
    writeFileSync(join(dir, "new"), "rode");
    renameSync(join(dir, "new"), f);
    expect(get()).toBe("rode");
    expect(loads).toBe(3);
    expect(statSync(f).size).toBe(4);
  });
});

describe("the per-call stamp kept as numbers (Marks: a call's pack files, src/mcp/pack-memo.ts)", () => {
  it("holds while every file is as taken; a same-size edit, a file that appears, one that goes: not", () => {
    const fs = coarseFs(2000);
    fs.write("/a", "one");
    fs.write("/b", "two");
    fs.advance(RACY_MS + 1);
    const m = Marks.take(["/a", "/b", "/absent"], fs.clock(), fs.stat)!;
    expect(m.holds(fs.stat)).toBe(true);
    fs.advance(10);
    fs.write("/b", "owt"); // same size, a later tick
    expect(m.holds(fs.stat)).toBe(false);
    fs.advance(RACY_MS + 1);
    const n = Marks.take(["/a", "/b", "/absent"], fs.clock(), fs.stat)!;
    fs.write("/absent", "x");
    expect(n.holds(fs.stat)).toBe(false);
    const gone = Marks.take(["/a"], fs.clock() + RACY_MS + 1, fs.stat)!;
    const none: StatFn = () => undefined;
    expect(gone.holds(none)).toBe(false);
  });

  it("is never taken of a file changed within RACY_MS (or dated ahead of the clock), as stampOf", () => {
    const fs = coarseFs(1);
    fs.write("/f", "x");
    expect(Marks.take(["/f"], fs.clock(), fs.stat)).toBeUndefined();
    expect(Marks.take(["/f"], fs.clock() + RACY_MS - 1, fs.stat)).toBeUndefined();
    expect(Marks.take(["/f"], fs.clock() - 60_000, fs.stat)).toBeUndefined();
    expect(Marks.take(["/f", "/nothing"], fs.clock() + RACY_MS, fs.stat)).toBeDefined();
  });

  it("only(): the marks of some of the files, as they were taken; a change to a file left out is not seen", () => {
    const fs = coarseFs(2000);
    for (const f of ["/s1", "/s2", "/p1", "/p2"]) fs.write(f, f);
    fs.advance(RACY_MS + 1);
    const all = Marks.take(["/s1", "/s2", "/p1", "/p2"], fs.clock(), fs.stat)!;
    const some = all.only((f) => f !== "/p2");
    expect(some.files).toEqual(["/s1", "/s2", "/p1"]);
    fs.advance(10);
    fs.write("/p2", "changed");
    expect(some.holds(fs.stat)).toBe(true);
    expect(all.holds(fs.stat)).toBe(false);
    fs.write("/p1", "changed");
    expect(some.holds(fs.stat)).toBe(false);
  });
});
