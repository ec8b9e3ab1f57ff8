// Issue 29: with watching on (the default), tools/list trusts the watches of
// the pack directories instead of stat-ing 3 files a pack on every call; a
// change is seen as soon as its watch event is read (the event marks the packs
// dirty; on a loaded machine a request sent right after the change may be read
// first, so the test waits for the event, bounded) — including a pack
// directory replaced whole (renamed over), whose files are then watched anew.
// A call is never decided on the listing: execute() reads the pack's files
// as they are (test/mcp/confirm*.test.ts).
import { cpSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchPlan } from "../../src/mcp/watch-plan";
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

// The watches stand in for the stat pass only while they see every change of the packs (src/mcp/watch-plan.ts).
// Two changes make no event in a pack folder or its parent: a pack file that is a link to a file in another
// folder, edited there; the folder holding the pack folders replaced whole (renamed over, or a link to it
// repointed, as a release swap does), whose event is in the project's folder. Watching, neither was ever
// served (tools/list, the instructions, skill://); --no-watch, which stats the pack files on every request, served
// both. Now the project's folder is watched for `packs`, and a link makes every request stat.
describe("hcpx mcp: changes a pack folder's watch does not see", () => {
  const DESCRIPTION = "Fastest journey between two stations";
  /** `get()` once it holds `want` (the change seen), within 10 s */
  const until = async (get: () => Promise<string>, want: string) => {
    const end = Date.now() + 10_000;
    let text = await get();
    while (!text.includes(want) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
      text = await get();
    }
    return text;
  };
  const edit = (file: string, from: string, to: string) => {
    const text = readFileSync(file, "utf8");
    if (!text.includes(from)) throw new Error(`${file}: no ${from}`);
    writeFileSync(file, text.replace(from, to));
  };
  const session = async (p: Ledgered) => {
    const s = await startMcp(p, { shape: "per-command" });
    let changed = 0;
    s.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
    const skill = async () =>
      ((await s.client.readResource({ uri: "skill://transit/SKILL.md" })).contents[0] as { text: string }).text;
    const list = async () => JSON.stringify((await s.client.listTools()).tools);
    expect(await skill()).toContain("# transit");
    expect(await list()).toContain(DESCRIPTION);
    await new Promise((r) => setTimeout(r, 300)); // the watches are set
    return { s, skill, list, changed: () => changed };
  };

  it("a pack file linked to a file elsewhere, edited there in place", async () => {
    const p = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
    const shared = join(p.dir, "shared");
    mkdirSync(shared);
    for (const f of ["SKILL.md", "surface.json"]) {
      const inPack = join(p.dir, "packs", "transit", f);
      renameSync(inPack, join(shared, f));
      symlinkSync(join(shared, f), inPack);
    }
    const { s, skill, list, changed } = await session(p);
    try {
      edit(join(shared, "SKILL.md"), "# transit", "# EDITED");
      edit(join(shared, "surface.json"), DESCRIPTION, "EDITED DESCRIPTION");
      expect(await until(skill, "# EDITED")).toContain("# EDITED");
      expect(await until(list, "EDITED DESCRIPTION")).toContain("EDITED DESCRIPTION");
      expect(changed()).toBeGreaterThan(0); // notifications/tools/list_changed
    } finally {
      await s.close();
    }
  }, 40_000);

  for (const how of ["renamed over", "a link repointed"] as const)
    it(`the folder of the pack folders replaced whole (${how}), then a pack file edited in the new one`, async () => {
      const p = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
      const packs = join(p.dir, "packs");
      const rel2 = join(p.dir, "rel2");
      cpSync(packs, rel2, { recursive: true });
      edit(join(rel2, "transit", "SKILL.md"), "# transit", "# RELEASE2");
      edit(join(rel2, "transit", "surface.json"), DESCRIPTION, "RELEASE2 DESCRIPTION");
      if (how === "a link repointed") {
        renameSync(packs, join(p.dir, "rel1"));
        symlinkSync(join(p.dir, "rel1"), packs);
      }
      const { s, skill, list } = await session(p);
      try {
        if (how === "renamed over") {
          renameSync(packs, join(p.dir, "packs.old"));
          renameSync(rel2, packs);
        } else {
          symlinkSync(rel2, join(p.dir, "packs.lnk"));
          renameSync(join(p.dir, "packs.lnk"), packs);
        }
        expect(await until(skill, "# RELEASE2")).toContain("# RELEASE2");
        expect(await until(list, "RELEASE2 DESCRIPTION")).toContain("RELEASE2 DESCRIPTION");
        // the new folders are watched (or, a link, stat'ed): an edit in them is served too
        edit(join(packs, "transit", "SKILL.md"), "# RELEASE2", "# RELEASE3");
        expect(await until(skill, "# RELEASE3")).toContain("# RELEASE3");
      } finally {
        await s.close();
      }
    }, 40_000);
});

// What the watches are trusted for (the stat pass skipped): the project's own layout, and nothing a
// folder's watch cannot see.
describe("watchPlan", () => {
  const FILES = ["surface.json", "policy.json", "SKILL.md"];
  const layout = () => {
    const p = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
    return { p, dirs: ["ledger", "transit"].map((id) => join(p.dir, "packs", id)) };
  };

  it("watches each folder from the config's down to the packs, and trusts them in a plain project", () => {
    const { p, dirs } = layout();
    const plan = watchPlan(p.config, undefined, dirs, FILES);
    expect([...plan.want.get(p.dir)!].sort()).toEqual(["hcp.config.json5", "packs"]);
    expect([...plan.want.get(join(p.dir, "packs"))!].sort()).toEqual(["ledger", "transit"]);
    expect([...plan.packFolders].sort()).toEqual([p.dir, join(p.dir, "packs"), ...dirs].sort());
    expect(plan.seen()).toBe(true);
  });

  it("does not trust them with a link or a hard-linked file on the way, or a pack outside the project", () => {
    const cases: [string, (p: Ledgered, dirs: string[]) => string[]][] = [
      ["a linked pack file", (p, dirs) => (link(join(dirs[1]!, "SKILL.md"), p.dir), dirs)],
      ["a hard-linked pack file", (p, dirs) => (linkSync(join(dirs[1]!, "SKILL.md"), join(p.dir, "other.md")), dirs)],
      ["a linked pack folder", (p, dirs) => (link(dirs[1]!, p.dir), dirs)],
      ["a linked folder of packs", (p, dirs) => (link(join(p.dir, "packs"), p.dir), dirs)],
      ["a pack outside", (p, dirs) => [dirs[0]!, join(p.dir, "..", "elsewhere", "transit")]],
    ];
    for (const [what, make] of cases) {
      const { p, dirs } = layout();
      expect(watchPlan(p.config, undefined, make(p, dirs), FILES).seen(), what).toBe(false);
    }
  });
});

/** `path` moved into `dir`/moved-… and linked back. */
function link(path: string, dir: string): void {
  const to = join(dir, `moved-${basename(path)}`);
  renameSync(path, to);
  symlinkSync(to, path);
}
