// The frame of every cache entry (src/util/cache.ts): a magic, the payload's length, the payload and a
// second copy of it. An entry is read back only when the two copies are equal and the length holds
// them exactly: a damaged file (a flipped byte in either copy, a torn or truncated write, bytes
// added) and an entry of the earlier format (a CRC-32 frame, "hcpxC01") read as a miss, never as bytes.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cacheRoot, readCache, writeCache } from "../../src/util/cache";

describe("cache entries: two copies, compared", () => {
  let dir: string;
  beforeAll(() => {
    // the cache root of the file's scratch HOME (test/support/env.ts: no XDG_CACHE_HOME), as a new process has
    dir = join(cacheRoot(), "unit");
    expect(dir.startsWith(`${process.env.HOME}/`)).toBe(true);
    mkdirSync(dir, { recursive: true });
  });

  const payload = Buffer.from(JSON.stringify({ key: "k", value: { text: "x".repeat(300) } }));

  it("a written entry reads back as its payload; the file holds the magic, the length and the payload twice", () => {
    const file = join(dir, "a.bin");
    writeCache(file, payload);
    expect(readCache(file)?.equals(payload)).toBe(true);
    const raw = readFileSync(file);
    expect(raw.subarray(0, 8).toString("latin1")).toBe("hcpxC02\n");
    expect(raw.readUInt32LE(8)).toBe(payload.length);
    expect(raw.length).toBe(12 + 2 * payload.length);
    expect(raw.subarray(12, 12 + payload.length).equals(payload)).toBe(true);
    expect(raw.subarray(12 + payload.length).equals(payload)).toBe(true);
  });

  it("a byte changed anywhere, a file cut or grown by a byte, a wrong length: a miss", () => {
    const file = join(dir, "b.bin");
    writeCache(file, payload);
    const good = readFileSync(file);
    const damaged: [string, Buffer][] = [];
    for (const at of [8, 12, 12 + 7, 12 + payload.length - 1, 12 + payload.length, good.length - 1]) {
      const bad = Buffer.from(good);
      bad[at]! ^= 0x01;
      damaged.push([`byte ${at} flipped`, bad]);
    }
    damaged.push(["cut by a byte", good.subarray(0, good.length - 1)]);
    damaged.push(["cut to one copy", good.subarray(0, 12 + payload.length)]);
    damaged.push(["grown by a byte", Buffer.concat([good, Buffer.from([0])])]);
    damaged.push(["empty", Buffer.alloc(0)]);
    for (const [what, bad] of damaged) {
      writeFileSync(file, bad, { mode: 0o600 });
      expect(readCache(file), what).toBeUndefined();
    }
    writeFileSync(file, good, { mode: 0o600 });
    expect(readCache(file)?.equals(payload)).toBe(true);
  });

  it("an entry of the earlier frame (magic, length, CRC-32, one copy) is a miss", () => {
    const file = join(dir, "c.bin");
    const head = Buffer.alloc(16);
    Buffer.from("hcpxC01\n", "latin1").copy(head);
    head.writeUInt32LE(payload.length, 8);
    writeFileSync(file, Buffer.concat([head, payload]), { mode: 0o600 });
    expect(readCache(file)).toBeUndefined();
  });

  it("an empty payload round-trips", () => {
    const file = join(dir, "d.bin");
    writeCache(file, Buffer.alloc(0));
    expect(readCache(file)?.length).toBe(0);
  });
});
