// Plugins and the host's approval (docs/confirm.md, rule 6 and 4). opencode 1.18.33 and Kilo 7.7.7 load every
// `{plugin,plugins}/*.{ts,js}` of each config folder (~/.config/opencode, .opencode/, ~/.opencode/; Kilo's
// ~/.config/kilo, .kilo/, .kilocode/, ~/.kilo/, ~/.kilocode/) and each package or file a config's `plugin` list
// names (also the TUI's tui.json). A plugin's config hook is given the merged config and its client can answer
// a permission request: opencode then never asks. hcpx cannot know what plugin code does, so while a plugin
// folder is there or a `plugin` list names one, `hcpx mcp --host opencode` does not count opencode's prompt, and
// adopt --check names it (`policy_widened`). An empty list loads nothing, and is no plugin.
// The decision is called in this process (src/host/approval.ts), against the files adopt wrote.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratch as scratchChild } from "../adopt/helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce, warningsOf } from "../support/approval";

const scratch = () => inProcess(scratchChild());
type Scratch = ReturnType<typeof scratch>;

/** Sets `plugin` in the project's opencode.json, keeping what adopt wrote. */
function plugins(s: Scratch, list: unknown): void {
  const doc = JSON.parse(s.read("opencode.json")) as Record<string, unknown>;
  doc.plugin = list;
  s.write("opencode.json", JSON.stringify(doc));
}

describe("opencode: a plugin it may load takes its prompt out of force", () => {
  it("a plugin folder (project, ~/.opencode, ~/.config/opencode; plugin or plugins): not in force", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    expect(await approvalInForce("opencode", s)).toBe(true);
    for (const dir of [
      join(s.dir, ".opencode", "plugin"),
      join(s.dir, ".opencode", "plugins"),
      join(s.home, ".opencode", "plugins"),
      join(s.home, ".config", "opencode", "plugin"),
    ]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "approve.ts"), "export default async () => ({})\n");
      expect(await approvalInForce("opencode", s), dir).toBe(false);
      rmSync(dir, { recursive: true });
      expect(await approvalInForce("opencode", s)).toBe(true);
    }
  });

  it("a `plugin` list in opencode.json, ~/.config/opencode or a tui.json: not in force; an empty one: in force", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    plugins(s, []);
    expect(await approvalInForce("opencode", s)).toBe(true);
    plugins(s, ["opencode-auto-approve"]);
    expect(await approvalInForce("opencode", s)).toBe(false);
    plugins(s, []);
    // the lists are joined across the files: an empty one in the project does not hide the user's
    mkdirSync(join(s.home, ".config", "opencode"), { recursive: true });
    writeFileSync(join(s.home, ".config", "opencode", "opencode.json"), JSON.stringify({ plugin: ["./x.ts"] }));
    expect(await approvalInForce("opencode", s)).toBe(false);
    rmSync(join(s.home, ".config", "opencode", "opencode.json"));
    s.write("tui.json", JSON.stringify({ plugin: ["opencode-tui-thing"] }));
    expect(await approvalInForce("opencode", s)).toBe(false);
    s.write("tui.json", JSON.stringify({ plugin: [] }));
    expect(await approvalInForce("opencode", s)).toBe(true);
    expect(await approvalInForce("opencode", s, { env: { OPENCODE_TUI_CONFIG: "/tmp/tui.json" } })).toBe(false);
  });

  it("adopt --check names the folder and the list (policy_widened)", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    mkdirSync(join(s.dir, ".opencode", "plugins"), { recursive: true });
    const f = await s.run(["adopt", "opencode", "--check", "--json"]);
    expect(f.code, f.stdout).toBe(1);
    const w = warningsOf(f.stdout).filter((x) => x.code === "policy_widened");
    expect(w.map((x) => x.file)).toContain(".opencode/plugins");
    rmSync(join(s.dir, ".opencode"), { recursive: true });
    plugins(s, ["opencode-auto-approve"]);
    const l = await s.run(["adopt", "opencode", "--check", "--json"]);
    expect(l.code, l.stdout).toBe(1);
    const m = warningsOf(l.stdout).find((x) => x.code === "policy_widened" && x.file === "opencode.json");
    expect(m?.message).toMatch(/opencode loads the plugins `plugin` names.*opencode\.json: plugin is there/);
  });
});

describe("Kilo: its plugin folders and lists", () => {
  it("adopt --check names a .kilo/plugin folder and a `plugin` list in kilo.jsonc; none: no warning", async () => {
    const s = scratch();
    expect((await s.adopt("kilo", "--write")).code).toBe(0);
    expect((await s.adopt("kilo", "--check")).code).toBe(0);
    mkdirSync(join(s.dir, ".kilo", "plugin"), { recursive: true });
    const f = await s.run(["adopt", "kilo", "--check", "--json"]);
    expect(f.code, f.stdout).toBe(1);
    expect(warningsOf(f.stdout).map((x) => x.file)).toContain(".kilo/plugin");
    rmSync(join(s.dir, ".kilo", "plugin"), { recursive: true });
    const doc = JSON.parse(readFileSync(join(s.dir, "kilo.jsonc"), "utf8")) as Record<string, unknown>;
    s.write("kilo.jsonc", JSON.stringify({ ...doc, plugin: ["kilo-auto-approve"] }));
    const l = await s.run(["adopt", "kilo", "--check", "--json"]);
    expect(l.code, l.stdout).toBe(1);
    expect(
      warningsOf(l.stdout)
        .map((x) => x.message)
        .join("\n"),
    ).toMatch(/Kilo Code: Kilo loads the plugins/);
  });
});
