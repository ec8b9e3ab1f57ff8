// The host's approval and the config layers hcpx does not read (descriptor `gate.unread`): opencode
// merges OPENCODE_CONFIG's file, OPENCODE_CONFIG_CONTENT, OPENCODE_CONFIG_DIR, OPENCODE_PERMISSION,
// .opencode/opencode.json, ~/.opencode/, the second of opencode.json(c) and its managed config over the
// file adopt wrote its ask rule in; a `"permission": {"hcp_*": "allow"}` there makes opencode run the
// gated write unasked. While one is there, `hcpx mcp --host opencode` does not count opencode's prompt
// (hcpx asks itself), and adopt --check and doctor name it (`policy_widened`). Kilo deletes KILO_CONFIG,
// KILO_CONFIG_CONTENT and KILO_CONFIG_DIR from its servers' environment: its prompt never counts there.
// The decision is called in this process (src/host/approval.ts), against the files adopt wrote.
import { cpSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkUnread } from "../../src/host/descriptor-check";
import { loadDescriptor, type Descriptor } from "../../src/host/descriptor";
import { pathResolver } from "../../src/host/homes";
import { targetFiles, unreadLayers, unreadProblem } from "../../src/host/unread";
import { tmp } from "../support/project";
import { scratch as scratchChild, userConfigFromProject } from "../adopt/helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce, warningsOf } from "../support/approval";

const scratch = () => inProcess(scratchChild());

/** Is the host's approval in force for the gated ledger.transfer, with this server environment? */
const inForce = (
  host: string,
  s: { dir: string; home: string },
  env: Record<string, string> = {},
  o: { user?: string; cwd?: string } = {},
) => approvalInForce(host, s, { env, ...o });

describe("opencode: a config layer hcpx does not read takes its prompt out of force", () => {
  it("each variable opencode reads a config from, set in the server's environment: not in force (empty: as unset)", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    expect(await inForce("opencode", s)).toBe(true);
    for (const [name, value] of [
      ["OPENCODE_CONFIG", "/tmp/extra.json"],
      ["OPENCODE_CONFIG_CONTENT", '{"permission":{"hcp_*":"allow"}}'],
      ["OPENCODE_CONFIG_DIR", "/tmp/oc"],
      ["OPENCODE_PERMISSION", '{"hcp_*":"allow"}'],
      ["OPENCODE_DISABLE_PROJECT_CONFIG", "1"],
      ["OPENCODE_TEST_MANAGED_CONFIG_DIR", "/tmp/managed"],
    ])
      expect(await inForce("opencode", s, { [name]: value }), name).toBe(false);
    expect(await inForce("opencode", s, { OPENCODE_CONFIG: "" })).toBe(true);
  });

  it("a config file opencode merges over the one adopt wrote: .opencode/, ~/.opencode/, opencode.jsonc beside opencode.json", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const allow = JSON.stringify({ permission: { "hcp_*": "allow" } });
    for (const rel of [".opencode/opencode.json", "opencode.jsonc"]) {
      s.write(rel, allow);
      expect(await inForce("opencode", s), rel).toBe(false);
      const { rmSync } = await import("node:fs");
      rmSync(join(s.dir, rel));
      expect(await inForce("opencode", s)).toBe(true);
    }
    mkdirSync(join(s.home, ".opencode"), { recursive: true });
    writeFileSync(join(s.home, ".opencode", "opencode.jsonc"), allow);
    expect(await inForce("opencode", s)).toBe(false);
  });

  it("an entry that sets one of these variables for the server alone (hiding the host's value): not in force", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const doc = JSON.parse(s.read("opencode.json")) as { mcp: { hcp: Record<string, unknown> } };
    doc.mcp.hcp.environment = { OPENCODE_CONFIG: "" };
    s.write("opencode.json", JSON.stringify(doc));
    expect(await inForce("opencode", s)).toBe(false);
    doc.mcp.hcp.environment = { OPENCODE_CONFIG: "{env:OPENCODE_CONFIG}" };
    s.write("opencode.json", JSON.stringify(doc));
    expect(await inForce("opencode", s)).toBe(true);
  });

  it("user scope: the project opencode runs in merges its opencode.json over ~/.config/opencode: not in force there", async () => {
    const s = scratch();
    const user = userConfigFromProject(s);
    expect((await s.adopt("opencode", "--scope", "user", "--write")).code).toBe(0);
    const elsewhere = join(s.home, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    expect(await inForce("opencode", s, {}, { user, cwd: elsewhere })).toBe(true);
    writeFileSync(join(elsewhere, "opencode.json"), JSON.stringify({ permission: { "hcp-user_*": "allow" } }));
    expect(await inForce("opencode", s, {}, { user, cwd: elsewhere })).toBe(false);
  });

  it("adopt --check and doctor name the variable (policy_widened), and the file", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const c = await s.run(["adopt", "opencode", "--check", "--json"], { OPENCODE_CONFIG_CONTENT: "{}" });
    const w = warningsOf(c.stdout).filter((x) => x.code === "policy_widened");
    expect(c.code, c.stdout).toBe(1);
    expect(w.map((x) => x.message).join("\n")).toMatch(/opencode: \$OPENCODE_CONFIG_CONTENT is set/);
    const d = await s.run(["doctor", "--json"], { OPENCODE_CONFIG_CONTENT: "{}" });
    expect(d.stdout).toMatch(/\$OPENCODE_CONFIG_CONTENT is set/);
    s.write(".opencode/opencode.json", "{}");
    const f = await s.run(["adopt", "opencode", "--check", "--json"]);
    expect(warningsOf(f.stdout).find((x) => x.code === "policy_widened")?.file).toBe(".opencode/opencode.json");
  });
});

describe("opencode and Kilo: the folders above the project, up to the git worktree's root", () => {
  /** The adopted scratch project copied to <outer>/mono/proj: a project below folders this test owns. */
  const nested = async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const outer = tmp("hcpx-above-");
    const mono = join(outer, "mono");
    const proj = join(mono, "proj");
    cpSync(s.dir, proj, { recursive: true });
    return { s, outer, mono, proj, inForce: () => inForce("opencode", { dir: proj, home: s.home }) };
  };
  const allow = JSON.stringify({ permission: { "hcp_*": "allow" } });

  it("an opencode.json, a .opencode/ config or plugin folder above the project: not in force; at or below the worktree's root only", async () => {
    const { outer, mono, proj, inForce: now } = await nested();
    expect(await now()).toBe(true);
    // outside a git worktree opencode walks up to /: every folder above counts
    writeFileSync(join(outer, "opencode.json"), allow);
    expect(await now()).toBe(false);
    // mono is the worktree's root: it is read, the folder above it is not
    mkdirSync(join(mono, ".git"));
    expect(await now()).toBe(true);
    renameSync(join(outer, "opencode.json"), join(mono, "opencode.jsonc"));
    expect(await now()).toBe(false);
    rmSync(join(mono, "opencode.jsonc"));
    for (const rel of [".opencode/opencode.json", ".opencode/plugin"]) {
      mkdirSync(join(mono, ".opencode"), { recursive: true });
      if (rel.endsWith(".json")) writeFileSync(join(mono, rel), "{}");
      else mkdirSync(join(mono, rel));
      expect(await now(), rel).toBe(false);
      rmSync(join(mono, ".opencode"), { recursive: true });
      expect(await now()).toBe(true);
    }
    // the project is the root of its own repository (a .git file, as a worktree or submodule has): nothing above
    writeFileSync(join(mono, "opencode.json"), allow);
    expect(await now()).toBe(false);
    writeFileSync(join(proj, ".git"), "gitdir: elsewhere\n");
    expect(await now()).toBe(true);
  });

  it("the warning (adopt --check, doctor) names the folder's file by its whole path, once; Kilo's .kilo/ is walked the same way", async () => {
    const { s, mono, proj } = await nested();
    mkdirSync(join(mono, ".git"));
    writeFileSync(join(mono, "opencode.json"), allow);
    mkdirSync(join(mono, ".kilo", "plugins"), { recursive: true });
    for (const host of ["opencode", "kilo"]) {
      const d = loadDescriptor(host);
      const abs = pathResolver(d, { root: proj, home: s.home, env: {} });
      const found = unreadLayers(d, "project", { env: {}, abs, read: targetFiles(d, "project", abs), server: false });
      const above = found.filter((f) => f.above);
      expect(above.map((f) => f.shown)).toEqual([join(mono, host === "opencode" ? "opencode.json" : ".kilo/plugins")]);
      expect(unreadProblem(d, above[0]!)).toMatchObject({ code: "policy_widened", file: above[0]!.shown });
      expect(unreadProblem(d, above[0]!).message).toContain("is there (a folder above the project, which");
    }
    // a project in HOME, outside a repository: HOME's .opencode/ is named once, as ~/.opencode/
    const inHome = join(s.home, "code", "proj");
    cpSync(proj, inHome, { recursive: true });
    mkdirSync(join(s.home, ".opencode"), { recursive: true });
    writeFileSync(join(s.home, ".opencode", "opencode.json"), allow);
    const d = loadDescriptor("opencode");
    const abs = pathResolver(d, { root: inHome, home: s.home, env: {} });
    const shown = unreadLayers(d, "project", { env: {}, abs, read: targetFiles(d, "project", abs), server: false }).map(
      (f) => f.shown,
    );
    expect(shown).toEqual(["~/.opencode/opencode.json"]);
  });
});

describe("Kilo: the variables it hides from its servers", () => {
  it("KILO_CONFIG and the like never reach the server: Kilo's prompt never counts; adopt --check names one set", async () => {
    const s = scratch();
    expect((await s.adopt("kilo", "--write")).code).toBe(0);
    expect(await inForce("kilo", s)).toBe(false);
    expect((await s.adopt("kilo", "--check")).code).toBe(0);
    const c = await s.run(["adopt", "kilo", "--check", "--json"], { KILO_CONFIG: "/tmp/k.json" });
    expect(c.code, c.stdout).toBe(1);
    expect(
      warningsOf(c.stdout)
        .map((x) => x.message)
        .join("\n"),
    ).toMatch(/Kilo Code: \$KILO_CONFIG is set.*does not pass KILO_CONFIG to its MCP servers/);
  });
});

describe("gate.unread in a descriptor", () => {
  it("names a variable or a file, one of them; `hidden` is a variable's; a path does not go up", () => {
    const d = (unread: unknown) => ({ gate: { model: "m", unread } }) as unknown as Descriptor;
    expect(() => checkUnread(d([{ env: "A", path: "b", what: "w" }]), "x.json5")).toThrow(/either `env`/);
    expect(() => checkUnread(d([{ what: "w" }]), "x.json5")).toThrow(/either `env`/);
    expect(() => checkUnread(d([{ path: "a", hidden: true, what: "w" }]), "x.json5")).toThrow(/hidden/);
    expect(() => checkUnread(d([{ path: "../a", what: "w" }]), "x.json5")).toThrow(/must not go up/);
    for (const u of [{ env: "A" }, { path: "~/a" }, { path: "/etc/a" }])
      expect(() => checkUnread(d([{ ...u, above: true, what: "w" }]), "x.json5")).toThrow(
        /`above` is said of a project's file/,
      );
    expect(() => checkUnread(d([{ path: ".a/b", above: true, what: "w" }]), "x.json5")).not.toThrow();
    expect(() =>
      checkUnread(
        d([
          { path: "/etc/a", what: "w" },
          { env: "A", hidden: true, what: "w" },
        ]),
        "x",
      ),
    ).not.toThrow();
  });
});
