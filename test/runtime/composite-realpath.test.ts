// The composite adapter loads a pack's module only from inside the pack
// (src/runtime/composite.ts): the module's real path (the system's
// realpath(3), links resolved) must lie inside the pack directory's. A module
// reached through a link that leads out is refused (bin_denied), one through
// a link that stays inside runs, and so does a pack reached through a linked
// directory. In one process (hcpx mcp) the checked path is kept while the
// module file keeps its stamp (src/util/stamp.ts): a link put in the way is
// still refused at the next call, right after a call and once the files aged.
import { cpSync, mkdirSync, renameSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/pack/load";
import { execute } from "../../src/runtime/execute";
import { RACY_MS } from "../../src/util/stamp";
import { scratchProject, tmp } from "../support/hcpx";

const envOf = (stdout: string) => JSON.parse(stdout) as { ok: boolean; error?: { code: string; message: string } };

describe("composite module: only from inside its pack", () => {
  it("a module linked from outside the pack is refused; a link inside and a linked pack directory run", async () => {
    const p = scratchProject({ packs: ["calc"], ownHome: true });
    const mod = join(p.dir, "packs", "calc", "index.mjs");
    // a link leading out of the pack
    const outside = tmp("hcpx-composite-outside-");
    cpSync(join(p.dir, "packs", "calc"), join(outside, "calc"), { recursive: true });
    renameSync(mod, join(p.dir, "packs", "calc", "index.real.mjs"));
    symlinkSync(join(outside, "calc", "index.mjs"), mod);
    const out = await p.run(["exec", "calc", "ping", "--json"]);
    expect(envOf(out.stdout).error?.code).toBe("bin_denied");
    expect(envOf(out.stdout).error?.message).toContain("outside the pack directory");
    // a link that stays inside
    unlinkSync(mod);
    symlinkSync("./index.real.mjs", mod);
    expect(envOf((await p.run(["exec", "calc", "ping", "--json"])).stdout).ok).toBe(true);
    // the pack directory itself reached through a link
    mkdirSync(join(p.dir, "real"));
    renameSync(join(p.dir, "packs", "calc"), join(p.dir, "real", "calc"));
    symlinkSync(join(p.dir, "real", "calc"), join(p.dir, "packs", "calc"));
    expect(envOf((await p.run(["exec", "calc", "ping", "--json"])).stdout).ok).toBe(true);
  }, 60_000);
});

describe("composite module: the checked path kept in one process", () => {
  // the two waits for the files to age (RACY_MS each) run at once, each on its own project
  it("a link leading out put in the way is refused at the next call, right after a call and after the files aged", async () => {
    const aged = () => new Promise((r) => setTimeout(r, RACY_MS + 300));
    const calc = () => {
      const p = scratchProject({ packs: ["calc"] });
      const project = loadProject({ config: p.config, user: false });
      const dir = join(p.dir, "packs", "calc");
      const ping = async () =>
        (await execute(project, { pack: "calc", verb: "ping", args: {} })) as { ok: boolean; error?: { code: string } };
      return { dir, mod: join(dir, "index.mjs"), ping };
    };
    const linked = async () => {
      const { dir, mod, ping } = calc();
      const outside = tmp("hcpx-composite-outside-");
      cpSync(dir, join(outside, "calc"), { recursive: true });
      const linkOut = () => {
        renameSync(mod, join(dir, "index.real.mjs"));
        symlinkSync(join(outside, "calc", "index.mjs"), mod);
      };
      const restore = () => {
        unlinkSync(mod);
        renameSync(join(dir, "index.real.mjs"), mod);
      };
      expect((await ping()).ok).toBe(true);
      linkOut();
      expect((await ping()).error?.code).toBe("bin_denied");
      restore();
      expect((await ping()).ok).toBe(true);
      // aged: the stamp now vouches for the module file, and a link put in the way still changes it
      await aged();
      expect((await ping()).ok).toBe(true);
      expect((await ping()).ok).toBe(true);
      linkOut();
      expect((await ping()).error?.code).toBe("bin_denied");
      restore();
      expect((await ping()).ok).toBe(true);
    };
    const removed = async () => {
      const { dir, mod, ping } = calc();
      // removed, after the files aged: not found
      await aged();
      expect((await ping()).ok).toBe(true);
      renameSync(mod, join(dir, "index.real.mjs"));
      expect((await ping()).error?.code).toBe("bad_pack");
      renameSync(join(dir, "index.real.mjs"), mod);
      expect((await ping()).ok).toBe(true);
    };
    await Promise.all([linked(), removed()]);
  }, 60_000);
});
