// Issue 29: with watching on (the default), tools/list trusts the watches of
// the pack directories instead of stat-ing 3 files a pack on every call; a
// change is seen as soon as its watch event is read (the event marks the packs
// dirty; on a loaded machine a request sent right after the change may be read
// first, so the test waits for the event, bounded) — including a pack
// directory replaced whole (renamed over), whose files are then watched anew.
// A call is never decided on the listing: execute() reads the pack's files
// as they are (test/mcp/confirm*.test.ts).
import { cpSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerProject, startMcp, type Ledgered, type McpSession } from "./support";

describe("hcpx mcp: watched packs", () => {
  let p: Ledgered;
  let s: McpSession;
  beforeAll(async () => {
    p = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
    s = await startMcp(p);
    await s.client.listTools();
    await new Promise((r) => setTimeout(r, 300)); // the watches are set
  });
  afterAll(async () => {
    await s?.close();
  });
  const read = async () =>
    ((await s.client.readResource({ uri: "skill://transit/SKILL.md" })).contents[0] as { text: string }).text;
  const skill = () => join(p.dir, "packs", "transit", "SKILL.md");
  /** the Skill as served, once it holds `want` (the watch event read), within 10 s */
  const seen = async (want: string) => {
    const until = Date.now() + 10_000;
    let text = await read();
    while (!text.includes(want) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      text = await read();
    }
    return text;
  };

  it("a same-size edit of a Skill is served on the next request", async () => {
    for (const [from, to] of [
      ["# transit", "# TRANSIT"],
      ["# TRANSIT", "# TrAnSiT"],
    ] as const) {
      const before = readFileSync(skill(), "utf8");
      expect(await read()).toContain(from);
      writeFileSync(skill(), before.replace(from, to));
      expect(await seen(to)).toContain(to);
    }
  });

  it("a pack directory renamed over is seen, and its files are watched anew", async () => {
    const dir = join(p.dir, "packs", "transit");
    const next = join(p.dir, "packs", ".transit-next");
    cpSync(dir, next, { recursive: true });
    writeFileSync(join(next, "SKILL.md"), readFileSync(join(next, "SKILL.md"), "utf8").replace(/# \w+/, "# SWAPPED"));
    // as the door's swapDir does: the old directory moved aside (its inode lives on), the new one in
    renameSync(dir, join(p.dir, "packs", ".transit-old"));
    renameSync(next, dir);
    expect(await seen("# SWAPPED")).toContain("# SWAPPED");
    await new Promise((r) => setTimeout(r, 400)); // the new directory's watch is set
    expect(await read()).toContain("# SWAPPED"); // (the one stat pass after the watches were set again)
    writeFileSync(skill(), readFileSync(skill(), "utf8").replace("# SWAPPED", "# SWAPPD2"));
    expect(await seen("# SWAPPD2")).toContain("# SWAPPD2");
    rmSync(join(p.dir, "packs", ".transit-old"), { recursive: true });
  });
});
