// The composite adapter loads a pack's module only from inside the pack
// (src/runtime/composite.ts): the module's real path (the system's
// realpath(3), links resolved) must lie inside the pack directory's. A module
// reached through a link that leads out is refused (bin_denied), one through
// a link that stays inside runs, and so does a pack reached through a linked
// directory.
import { cpSync, mkdirSync, renameSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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
