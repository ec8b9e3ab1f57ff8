// The TUI configs above the project (descriptor `gate.inForce` paths with `above`, docs/confirm.md rule 6):
// opencode 1.18.33 and Kilo 7.7.7 read tui.json and tui.jsonc, and .opencode/'s (.kilo/'s, .kilocode/'s), in
// every folder from the one they run in up to /, a git repository or not (run: their "loading tui config" log,
// test/hosts/HOST-PROBES.md), and load the plugins a `plugin` list there names into the TUI that shows the
// prompt. A non-empty list in a folder above the project takes the prompt out of force; an empty one does not.
// The decision is called in this process (src/host/approval.ts), against the files adopt wrote.
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkInForce } from "../../src/host/descriptor-check";
import type { Descriptor, HealthCheck } from "../../src/host/descriptor";
import { evaluate, widenedBySettings } from "../../src/host/health";
import { pathResolver } from "../../src/host/homes";
import { loadDescriptor } from "../../src/host/descriptor";
import { tmp } from "../support/project";
import { scratch as scratchChild } from "../adopt/helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce } from "../support/approval";

const scratch = () => inProcess(scratchChild());

/** The adopted scratch project copied to <outer>/mono/proj: a project below folders this test owns. */
async function nested(host: string) {
  const s = scratch();
  expect((await s.adopt(host, "--write")).code).toBe(0);
  const outer = tmp("hcpx-tui-above-");
  const mono = join(outer, "mono");
  const proj = join(mono, "proj");
  cpSync(s.dir, proj, { recursive: true });
  const now = () => approvalInForce(host, { dir: proj, home: s.home }, { env: {} });
  const warnings = () => widenedBySettings([host], { scope: "project", root: proj, home: s.home, env: {} });
  return { s, outer, mono, proj, now, warnings };
}
const plugin = (list: unknown[]) => JSON.stringify({ plugin: list });

describe("opencode and Kilo: a TUI config's `plugin` list in a folder above the project", () => {
  it("opencode: mono/tui.json with plugins, outside a repository, in it, and above the project's own .git: not in force", async () => {
    const { outer, mono, proj, now } = await nested("opencode");
    expect(await now()).toBe(true);
    writeFileSync(join(mono, "tui.json"), plugin(["./p.ts"]));
    expect(await now()).toBe(false); // no repository: every folder up to /
    mkdirSync(join(mono, ".git"));
    expect(await now()).toBe(false); // mono is the worktree's root
    rmSync(join(mono, ".git"), { recursive: true });
    // the TUI's walk does not stop at a repository's root (unlike opencode.json's): a .git file or folder in the
    // project, or in mono with the file above it, still leaves the file read
    for (const git of ["file", "folder"]) {
      if (git === "file") writeFileSync(join(proj, ".git"), "gitdir: elsewhere\n");
      else mkdirSync(join(proj, ".git"));
      expect(await now(), git).toBe(false);
      rmSync(join(proj, ".git"), { recursive: true });
    }
    rmSync(join(mono, "tui.json"));
    mkdirSync(join(mono, ".git"));
    writeFileSync(join(outer, "tui.jsonc"), plugin(["x"]));
    expect(await now()).toBe(false);
    rmSync(join(outer, "tui.jsonc"));
    mkdirSync(join(mono, ".opencode"));
    writeFileSync(join(mono, ".opencode", "tui.json"), plugin(["x"]));
    expect(await now()).toBe(false);
    // an empty list above loads nothing
    writeFileSync(join(mono, ".opencode", "tui.json"), plugin([]));
    writeFileSync(join(mono, "tui.json"), plugin([]));
    expect(await now()).toBe(true);
  });

  it("the warning names the file above by its whole path, and that it is above the project; Kilo's .kilocode/ too", async () => {
    for (const [host, rel] of [
      ["opencode", "tui.json"],
      ["kilo", ".kilocode/tui.jsonc"],
    ] as const) {
      const { mono, warnings } = await nested(host);
      expect((await warnings()).map((w) => w.file)).toEqual([]);
      mkdirSync(join(mono, ".kilocode"));
      writeFileSync(join(mono, rel), plugin(["x"]));
      const w = (await warnings()).filter((x) => x.file === join(mono, rel));
      expect(w.length, host).toBe(1);
      expect(w[0]!.message).toContain(`${join(mono, rel)} (in a folder above the project): plugin is there`);
    }
  });

  it("a project in HOME: HOME's .opencode/tui.json is read once, named as ~/.opencode/tui.json", async () => {
    const { s, proj } = await nested("opencode");
    const inHome = join(s.home, "code", "proj");
    cpSync(proj, inHome, { recursive: true });
    mkdirSync(join(s.home, ".opencode"), { recursive: true });
    writeFileSync(join(s.home, ".opencode", "tui.json"), plugin(["x"]));
    const w = await widenedBySettings(["opencode"], { scope: "project", root: inHome, home: s.home, env: {} });
    expect(w.map((x) => x.file)).toEqual(["~/.opencode/tui.json"]);
  });
});

describe("a gate check's path read above the project (`above`)", () => {
  const check = (path: HealthCheck["path"]): HealthCheck => ({
    id: "c",
    path,
    format: "json",
    key: ["plugin"],
    expect: "empty",
    value: "",
    absent: "ok",
    message: "m",
    hint: "h",
  });

  it("`above: true` stops at the git worktree's root, as gate.unread's; `root` goes on to /", async () => {
    const outer = tmp("hcpx-check-above-");
    const proj = join(outer, "mono", "proj");
    mkdirSync(proj, { recursive: true });
    writeFileSync(join(outer, "mono", "t.json"), plugin(["x"]));
    const d = loadDescriptor("opencode");
    const abs = pathResolver(d, { root: proj, home: join(outer, "home"), env: {} });
    const ok = async (h: HealthCheck) => (await evaluate(h, abs, (x) => x, "hcp")).ok;
    expect(await ok(check(["t.json"]))).toBe(true);
    expect(await ok(check([{ path: "t.json", above: true }]))).toBe(false);
    writeFileSync(join(proj, ".git"), "gitdir: elsewhere\n");
    expect(await ok(check([{ path: "t.json", above: true }]))).toBe(true);
    expect(await ok(check([{ path: "t.json", above: "root" }]))).toBe(false);
  });

  it("the descriptor check refuses `above` on a home or absolute path", () => {
    const d = (path: HealthCheck["path"]) =>
      ({ gate: { model: "m", inForce: [check(path)] } }) as unknown as Descriptor;
    for (const p of ["~/.opencode/tui.json", "/etc/opencode/tui.json"])
      for (const above of [true, "root"] as const)
        expect(() => checkInForce(d([{ path: p, above }]), "x.json5")).toThrow(/`above` is said of a project's file/);
    expect(() => checkInForce(d([{ path: ".opencode/tui.json", above: "root" }, "~/a"]), "x.json5")).not.toThrow();
  });
});
