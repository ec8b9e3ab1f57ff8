// Claude Code's enabled plugins and the host's approval (docs/confirm.md, rule 7; descriptor `gate.hooks[].plugins`).
// Claude Code 2.1.332 runs the hooks of each plugin that is on (`enabledPlugins` in its settings files, the managed
// file's first, then local, project, user: the first that names it decides, `false` turns it off): from its folder's
// `hooks/hooks.json`, from its manifest `.claude-plugin/plugin.json` (`hooks`: written there, the path of a file, or a
// list of both) and from its marketplace entry. The folder: each `installPath` that `~/.claude/plugins/installed_plugins.json`
// records for it, and, for an entry whose source is a path, that folder of the marketplace (a local marketplace's
// plugin is read in place). A plugin of `~/.claude/skills/<name>/` or `.claude/skills/<name>/` with a manifest is one
// too (`<name>@skills-dir`). A PreToolUse or PermissionRequest hook there may approve a gated write so Claude Code never
// asks: while one may select the served tool, or hcpx cannot tell (no install record, a file that does not parse,
// hooks it does not understand, a hooks module), the prompt is not in force and adopt --check names the plugin and
// the file. The decision is called in this process (src/host/approval.ts), system files below a scratch folder.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratch as scratchChild } from "../adopt/helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce, warningsOf } from "../support/approval";
import { tmp } from "../support/project";
import { loadDescriptor, type Descriptor } from "../../src/host/descriptor";
import { checkHooks } from "../../src/host/descriptor-check";
import { HookSchema } from "../../src/host/hooks-zod";

const scratch = () => inProcess(scratchChild());
type Scratch = ReturnType<typeof scratch>;

const put = (file: string, text: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};

/** Sets `enabledPlugins[id]` in a settings file (undefined: takes it out), keeping what is there. */
function enable(file: string, id: string, on: unknown): void {
  let doc: Record<string, unknown> = {};
  try {
    doc = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    /* a new file */
  }
  const list = { ...(doc.enabledPlugins as Record<string, unknown> | undefined) };
  if (on === undefined) delete list[id];
  else list[id] = on;
  put(file, JSON.stringify({ ...doc, enabledPlugins: list }));
}

/** A hook event map with one group of `event` (matcher left out when undefined). */
const events = (event: string, matcher?: unknown) => ({
  [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command: "allow.sh" }] }],
});

interface Plugin {
  name: string;
  marketplace?: string;
  /** hooks/hooks.json's text (left out when undefined) */
  hooksJson?: string;
  /** .claude-plugin/plugin.json (left out when undefined) */
  manifest?: unknown;
  /** the marketplace entry's own fields over { name, source } */
  entry?: Record<string, unknown>;
  /** no install record */
  notInstalled?: boolean;
}

/**
 * Installs plugins as Claude Code's `plugin install` leaves them (seen with 2.1.332, a scratch HOME): a marketplace
 * in ~/.claude/plugins/known_marketplaces.json (a git one: its catalog in ~/.claude/plugins/marketplaces/<name>),
 * each plugin's copy in ~/.claude/plugins/cache/<marketplace>/<name>/1.0.0 and its record in installed_plugins.json,
 * and turns each on in ~/.claude/settings.json. Gives each plugin's folder.
 */
function install(s: Scratch, plugins: Plugin[]): Record<string, string> {
  const root = join(s.home, ".claude", "plugins");
  const known: Record<string, unknown> = {};
  const records: Record<string, unknown> = {};
  const catalogs: Record<string, unknown[]> = {};
  const folders: Record<string, string> = {};
  for (const p of plugins) {
    const mkt = p.marketplace ?? "tools";
    const location = join(root, "marketplaces", mkt);
    known[mkt] = {
      source: { source: "github", repo: `someone/${mkt}` },
      installLocation: location,
      lastUpdated: "2026-12-06T00:00:00.000Z",
    };
    (catalogs[mkt] ??= []).push({ name: p.name, source: { source: "github", repo: `someone/${p.name}` }, ...p.entry });
    const folder = join(root, "cache", mkt, p.name, "1.0.0");
    folders[p.name] = folder;
    mkdirSync(folder, { recursive: true });
    if (p.hooksJson !== undefined) put(join(folder, "hooks", "hooks.json"), p.hooksJson);
    if (p.manifest !== undefined) put(join(folder, ".claude-plugin", "plugin.json"), JSON.stringify(p.manifest));
    if (!p.notInstalled) records[`${p.name}@${mkt}`] = [{ scope: "user", installPath: folder, version: "1.0.0" }];
    enable(join(s.home, ".claude", "settings.json"), `${p.name}@${mkt}`, true);
  }
  for (const [mkt, list] of Object.entries(catalogs))
    put(
      join(root, "marketplaces", mkt, ".claude-plugin", "marketplace.json"),
      JSON.stringify({ name: mkt, owner: { name: "o" }, plugins: list }),
    );
  put(join(root, "known_marketplaces.json"), JSON.stringify(known));
  put(join(root, "installed_plugins.json"), JSON.stringify({ version: 2, plugins: records }));
  return folders;
}

/** An adopted project (claude, project scope) whose prompt is in force before the plugins come. */
async function adopted(): Promise<{ s: Scratch; sys: string; inForce: () => Promise<boolean> }> {
  const s = scratch();
  const sys = tmp("hcpx-sysroot-");
  expect((await s.adopt("claude", "--write")).code).toBe(0);
  const inForce = () => approvalInForce("claude", s, { system: sys });
  expect(await inForce()).toBe(true);
  return { s, sys, inForce };
}

/** The policy_widened warnings of adopt --check. */
async function widened(s: Scratch): Promise<{ message: string; file?: string }[]> {
  const c = await s.run(["adopt", "claude", "--check", "--json"]);
  return warningsOf(c.stdout).filter((w) => w.code === "policy_widened");
}

const approving = JSON.stringify({ hooks: events("PreToolUse", "mcp__hcp__.*") });

describe("Claude Code: hooks of its enabled plugins", () => {
  it("an approving PreToolUse hook in a plugin's hooks/hooks.json: not in force, and adopt --check names the plugin and the file", async () => {
    const { s, inForce } = await adopted();
    install(s, [{ name: "autopilot", hooksJson: approving }]);
    expect(await inForce()).toBe(false);
    const w = await widened(s);
    expect(w.map((x) => x.file)).toContain("~/.claude/plugins/cache/tools/autopilot/1.0.0/hooks/hooks.json");
    expect(w.map((x) => x.message).join("\n")).toMatch(
      /Claude Code: the enabled plugin autopilot@tools has a PreToolUse hook \(matcher "mcp__hcp__\.\*"\) in ~\/\.claude\/plugins\/cache\/tools\/autopilot\/1\.0\.0\/hooks\/hooks\.json that may select [a-z_, ]*ledger__transfer/,
    );
  });

  it("hooks written in the manifest (plugin.json), or in a file it names: not in force", async () => {
    const { s, inForce } = await adopted();
    install(s, [
      {
        name: "inline",
        manifest: { name: "inline", hooks: events("PermissionRequest", "mcp__hcp__ledger__transfer") },
      },
    ]);
    expect(await inForce()).toBe(false);
    expect((await widened(s)).map((x) => x.file)).toContain(
      "~/.claude/plugins/cache/tools/inline/1.0.0/.claude-plugin/plugin.json",
    );
    const { s: t, inForce: tInForce } = await adopted();
    const folders = install(t, [{ name: "named", manifest: { name: "named", hooks: ["./extra/approve.json"] } }]);
    expect(await tInForce()).toBe(true); // the file it names is not there: no hook
    put(join(folders.named!, "extra", "approve.json"), JSON.stringify({ hooks: events("PreToolUse", "*") }));
    expect(await tInForce()).toBe(false);
  });

  it("a plugin turned off (false in a file that decides before the one that turns it on): in force", async () => {
    const { s, inForce } = await adopted();
    install(s, [{ name: "autopilot", hooksJson: approving }]);
    expect(await inForce()).toBe(false);
    // local over user: off
    enable(join(s.dir, ".claude", "settings.local.json"), "autopilot@tools", false);
    expect(await inForce()).toBe(true);
    // the project's true does not turn it back on: local decides first
    enable(join(s.dir, ".claude", "settings.json"), "autopilot@tools", true);
    expect(await inForce()).toBe(true);
    // off in the user's file, on in the project's: on
    enable(join(s.dir, ".claude", "settings.local.json"), "autopilot@tools", undefined);
    enable(join(s.home, ".claude", "settings.json"), "autopilot@tools", false);
    expect(await inForce()).toBe(false);
  });

  it("a false in a settings file Claude Code may skip (not plain JSON, or a value hcpx cannot confirm): the user's true decides", async () => {
    const { s, inForce } = await adopted();
    install(s, [{ name: "autopilot", hooksJson: approving }]);
    const local = join(s.dir, ".claude", "settings.local.json");
    const off = '"enabledPlugins": { "autopilot@tools": false }';
    // each seen with Claude Code 2.1.332 (`plugin list --json`): the whole file is skipped, the user's true decides;
    // the unknown key is one hcpx cannot confirm (Claude Code reads that file: hcpx asks twice, never not at all)
    for (const text of [
      `{ ${off}, "permissions": 3 }`,
      `{ "enabledPlugins": { "autopilot@tools": false, "other@tools": "yes" } }`,
      `{ ${off}, }`,
      `// off\n{ ${off} }`,
      `{ ${off}, "permissions": { "defaultMode": "bogus" } }`,
      `{ ${off}, "zzzUnknown": 1 }`,
    ]) {
      put(local, text);
      expect(await inForce(), text).toBe(false);
    }
    const named = (await widened(s)).map((x) => x.message).join("\n");
    expect(named).toMatch(/autopilot@tools/);
    expect(named).toMatch(/Its false in \.claude\/settings\.local\.json counts for nothing/);
  });

  it("a false in a settings file hcpx can confirm Claude Code reads still turns the plugin off (asked once)", async () => {
    const { s, inForce } = await adopted();
    install(s, [{ name: "autopilot", hooksJson: approving }]);
    const local = join(s.dir, ".claude", "settings.local.json");
    for (const text of [
      `{ "enabledPlugins": { "autopilot@tools": false } }`,
      `\ufeff{ "enabledPlugins": { "autopilot@tools": false } }`,
      `{ "$schema": "https://json.schemastore.org/claude-code-settings.json", "enabledPlugins": { "autopilot@tools": false, "noat": true } }`,
      `{ "enabledPlugins": { "autopilot@tools": false }, "permissions": { "allow": ["Read", "Bash(("], "deny": [], "ask": ["mcp__hcp__x"], "additionalDirectories": ["/x"] } }`,
    ]) {
      put(local, text);
      expect(await inForce(), text).toBe(true);
    }
    // the file adopt writes its ask rule in, with the plugin turned off there
    enable(join(s.dir, ".claude", "settings.json"), "autopilot@tools", false);
    put(local, "{}");
    expect(await inForce()).toBe(true);
    // names are compared as written (seen with 2.1.332: no case folding for a marketplace's plugin)
    enable(join(s.dir, ".claude", "settings.json"), "autopilot@tools", undefined);
    put(local, `{ "enabledPlugins": { "AutoPilot@tools": false } }`);
    expect(await inForce()).toBe(false);
  });

  it("an ordinary settings file (marketplace add, plugin disable, model, env, hooks, …) counts its false (asked once)", async () => {
    const { s, inForce } = await adopted();
    install(s, [{ name: "autopilot", hooksJson: approving }]);
    // as `claude plugin marketplace add` (each source kind it writes) and `claude plugin disable` leave it, with the
    // keys people keep there; each shape seen read with 2.1.332 (test/hosts/HOST-PROBES.md)
    const ordinary = {
      $schema: "https://json.schemastore.org/claude-code-settings.json",
      extraKnownMarketplaces: {
        tools: { source: { source: "directory", path: "/home/me/mkt" } },
        gh: { source: { source: "github", repo: "someone/tools" } },
        gi: { source: { source: "git", url: "https://example.com/x.git" } },
        ur: { source: { source: "url", url: "https://example.com/marketplace.json" } },
      },
      enabledPlugins: { "autopilot@tools": false },
      model: "opus",
      env: { FOO: "bar" },
      permissions: { allow: ["Read"], defaultMode: "acceptEdits" },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "check.sh", timeout: 30 }] }],
        Stop: [{ hooks: [{ type: "command", command: "done.sh" }] }],
      },
      statusLine: { type: "command", command: "status.sh", padding: 0 },
      includeCoAuthoredBy: false,
      alwaysThinkingEnabled: true,
      cleanupPeriodDays: 30,
      outputStyle: "default",
      theme: "dark",
    };
    const local = join(s.dir, ".claude", "settings.local.json");
    put(local, JSON.stringify(ordinary, null, 2));
    expect(await inForce()).toBe(true);
    // (each of the seven modes is confirmed; auto, dontAsk, bypassPermissions switch the asking off: gate.inForce)
    // a hook's timeout is a number above 0, not only a whole one (1.5 seen read with 2.1.332)
    const withTimeout = (t: number) => ({
      ...ordinary,
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "check.sh", timeout: t }] }] },
    });
    put(local, JSON.stringify(withTimeout(1.5)));
    expect(await inForce()).toBe(true);
    for (const mode of ["acceptEdits", "default", "plan", "manual"]) {
      put(local, JSON.stringify({ ...ordinary, permissions: { defaultMode: mode } }));
      expect(await inForce(), mode).toBe(true);
    }
    // one value that sinks the file (seen) or a form not probed: its false counts for nothing (asked twice)
    const hook = (h: unknown) => ({ ...ordinary, hooks: { PreToolUse: [h] } });
    const source = (src: unknown) => ({ ...ordinary, extraKnownMarketplaces: { x: { source: src } } });
    for (const bad of [
      { ...ordinary, model: 3 },
      { ...ordinary, model: null },
      { ...ordinary, permissions: { defaultMode: "Default" } },
      { ...ordinary, env: [] },
      { ...ordinary, cleanupPeriodDays: 0 },
      { ...ordinary, statusLine: { type: "command" } },
      { ...ordinary, alwaysThinkingEnabled: "x" },
      hook({ matcher: "x" }),
      hook({ matcher: 3, hooks: [{ type: "command", command: "x" }] }),
      hook({ matcher: "x", hooks: [{ type: "bogus", command: "x" }] }),
      hook({ matcher: "x", hooks: [{ type: "command" }] }),
      hook({ matcher: "x", hooks: [{ type: "command", command: "x", timeout: 0 }] }),
      hook({ matcher: "x", hooks: [{ type: "command", command: "x", once: true }] }),
      hook({ matcher: "x", hooks: [{ type: "command", command: "x" }], zzz: 1 }),
      source({ source: "bogus" }),
      source({ source: "npm", package: "x" }),
      source({ source: "github" }),
      source({ source: "github", repo: "a/b", ref: "main" }),
      { ...ordinary, extraKnownMarketplaces: { x: { source: { source: "directory", path: "/x" }, autoUpdate: true } } },
      { ...ordinary, zzzUnknown: 1 },
    ]) {
      put(local, JSON.stringify(bad));
      expect(await inForce(), JSON.stringify(bad)).toBe(false);
    }
  });

  it("enabled but not installed (no install record), or installed_plugins.json that does not parse: not in force, named", async () => {
    const { s, inForce } = await adopted();
    install(s, [{ name: "ghost", hooksJson: approving, notInstalled: true }]);
    expect(await inForce()).toBe(false);
    const w = await widened(s);
    expect(w.map((x) => x.file)).toContain("~/.claude/plugins/installed_plugins.json");
    expect(w.map((x) => x.message).join("\n")).toMatch(/the enabled plugin ghost@tools: .*no install record/);
    const { s: t, inForce: tInForce } = await adopted();
    install(t, [{ name: "quiet", hooksJson: JSON.stringify({ hooks: events("Stop") }) }]);
    expect(await tInForce()).toBe(true);
    put(join(t.home, ".claude", "plugins", "installed_plugins.json"), "{ not json");
    expect(await tInForce()).toBe(false);
  });

  it("a hook for another tool, or of an event that cannot approve: in force", async () => {
    const { s, inForce } = await adopted();
    const folders = install(s, [
      { name: "linter", hooksJson: JSON.stringify({ hooks: events("PreToolUse", "Bash|Edit") }) },
    ]);
    expect(await inForce()).toBe(true);
    for (const [event, matcher, want] of [
      ["PreToolUse", "mcp__other__.*", true],
      ["PostToolUse", "*", true],
      ["PermissionRequest", "mcp__hcp__ledger__balance", true],
      ["PermissionRequest", "mcp__hcp__ledger__.*", false],
      ["PreToolUse", undefined, false],
    ] as const) {
      put(join(folders.linter!, "hooks", "hooks.json"), JSON.stringify({ hooks: events(event, matcher) }));
      expect(await inForce(), `${event} ${matcher}`).toBe(want);
    }
  });

  it("a hooks.json or plugin.json that does not parse, or hooks hcpx does not understand: not in force, named", async () => {
    const { s, inForce } = await adopted();
    const folders = install(s, [{ name: "broken", hooksJson: "{ not json" }]);
    expect(await inForce()).toBe(false);
    const w = await widened(s);
    expect(w.map((x) => x.file)).toContain("~/.claude/plugins/cache/tools/broken/1.0.0/hooks/hooks.json");
    expect(w.map((x) => x.message).join("\n")).toMatch(/the enabled plugin broken@tools: .*does not parse/);
    const hooks = join(folders.broken!, "hooks", "hooks.json");
    put(hooks, JSON.stringify({ hooks: events("Stop") }));
    expect(await inForce()).toBe(true);
    const manifest = join(folders.broken!, ".claude-plugin", "plugin.json");
    for (const bad of [
      "{ not json",
      JSON.stringify({ name: "broken", hooks: 42 }),
      JSON.stringify({ name: "broken", hooks: ["../../elsewhere.json"] }),
    ]) {
      put(manifest, bad);
      expect(await inForce(), bad).toBe(false);
    }
    put(manifest, JSON.stringify({ name: "broken" }));
    expect(await inForce()).toBe(true);
    // a hooks module: code hcpx cannot read
    put(hooks, JSON.stringify({ modules: ["./on.mjs"] }));
    expect(await inForce()).toBe(false);
  });

  it("a local marketplace's plugin is read in place, and an entry's own hooks count", async () => {
    const { s, inForce } = await adopted();
    install(s, [{ name: "quiet", hooksJson: JSON.stringify({ hooks: events("Stop") }) }]);
    expect(await inForce()).toBe(true);
    // a directory marketplace (`claude plugin marketplace add ./mkt`): its entry's folder is read, not the cached copy
    const mkt = join(s.dir, "mkt");
    put(
      join(mkt, ".claude-plugin", "marketplace.json"),
      JSON.stringify({
        name: "local",
        owner: { name: "o" },
        metadata: { pluginRoot: "./plugins" },
        plugins: [{ name: "inplace", source: "inplace" }],
      }),
    );
    put(join(mkt, "plugins", "inplace", "hooks", "hooks.json"), approving);
    const root = join(s.home, ".claude", "plugins");
    const known = JSON.parse(readFileSync(join(root, "known_marketplaces.json"), "utf8")) as Record<string, unknown>;
    put(
      join(root, "known_marketplaces.json"),
      JSON.stringify({ ...known, local: { source: { source: "directory", path: mkt }, installLocation: mkt } }),
    );
    const installed = JSON.parse(readFileSync(join(root, "installed_plugins.json"), "utf8")) as {
      plugins: Record<string, unknown>;
    };
    const copy = join(root, "cache", "local", "inplace", "1.0.0");
    mkdirSync(copy, { recursive: true });
    installed.plugins["inplace@local"] = [
      { scope: "project", projectPath: s.dir, installPath: copy, version: "1.0.0" },
    ];
    put(join(root, "installed_plugins.json"), JSON.stringify(installed));
    enable(join(s.dir, ".claude", "settings.json"), "inplace@local", true);
    expect(await inForce()).toBe(false);
    put(join(mkt, "plugins", "inplace", "hooks", "hooks.json"), JSON.stringify({ hooks: events("Stop") }));
    expect(await inForce()).toBe(true);
    // hooks written in the marketplace entry itself
    put(
      join(mkt, ".claude-plugin", "marketplace.json"),
      JSON.stringify({
        name: "local",
        owner: { name: "o" },
        plugins: [{ name: "inplace", source: "./plugins/inplace", strict: false, hooks: events("PermissionRequest") }],
      }),
    );
    expect(await inForce()).toBe(false);
  });

  it("a plugin of a skills folder (.claude/skills/<name>/.claude-plugin/plugin.json): on until turned off by its name@skills-dir", async () => {
    const { s, inForce } = await adopted();
    put(join(s.dir, ".claude", "skills", "helper", "hooks", "hooks.json"), approving);
    expect(await inForce()).toBe(true); // no manifest: a skill's folder, not a plugin
    put(
      join(s.dir, ".claude", "skills", "helper", ".claude-plugin", "plugin.json"),
      JSON.stringify({ name: "helper" }),
    );
    expect(await inForce()).toBe(false);
    expect((await widened(s)).map((x) => x.message).join("\n")).toMatch(
      /the enabled plugin helper@skills-dir has a PreToolUse hook/,
    );
    enable(join(s.dir, ".claude", "settings.local.json"), "helper@skills-dir", false);
    expect(await inForce()).toBe(true);
  });

  it("Claude Code's own plugins (@builtin) are not read; a variable that moves its plugins folder: not in force", async () => {
    const { s, inForce } = await adopted();
    enable(join(s.home, ".claude", "settings.json"), "cc-plugin-privacy@builtin", true);
    expect(await inForce()).toBe(true);
    const sys = tmp("hcpx-sysroot-");
    const moved = (env: Record<string, string>) => approvalInForce("claude", s, { system: sys, env });
    for (const v of [
      "CLAUDE_CODE_PLUGIN_CACHE_DIR",
      "CLAUDE_CODE_PLUGIN_SEED_DIR",
      "CLAUDE_CODE_PLUGIN_DIRS",
      "CLAUDE_CODE_USE_COWORK_PLUGINS",
    ])
      expect(await moved({ [v]: "/elsewhere" }), v).toBe(false);
  });
});

describe("gate.hooks plugins in a descriptor", () => {
  const claude = loadDescriptor("claude").gate!.hooks![0]!;
  it("an unknown key is an error; a plugin's file is a plain relative path; the host's files never go up", () => {
    expect(HookSchema.safeParse(claude).success).toBe(true);
    const typo = {
      ...claude,
      plugins: { ...claude.plugins!, installed: { ...claude.plugins!.installed, folders: "x" } },
    };
    expect(HookSchema.safeParse(typo).success).toBe(false);
    expect(HookSchema.safeParse({ ...claude, plugins: { ...claude.plugins!, extra: 1 } }).success).toBe(false);
    const honoured = (h: unknown) => ({
      ...claude,
      plugins: { ...claude.plugins!, enabled: { ...claude.plugins!.enabled, honoured: h } },
    });
    expect(HookSchema.safeParse(honoured({ keys: { a: ["boolean", { values: "strings" }] } })).success).toBe(true);
    const listed = { keys: { a: { items: { keys: { b: "string" }, need: ["b"] } } } };
    expect(HookSchema.safeParse(honoured(listed)).success).toBe(true);
    expect(HookSchema.safeParse(honoured({ known: {}, need: ["a"] })).success).toBe(true);
    for (const bad of [
      { items: "string", keys: {} },
      { keys: {}, need: [""] },
      { known: {}, need: [""] },
      { values: "string", need: ["a"] },
    ])
      expect(HookSchema.safeParse(honoured(bad)).success, JSON.stringify(bad)).toBe(false);
    for (const bad of ["integer", { oneOf: [] }, { keys: { a: "any" } }, { keys: {}, values: "string" }, undefined])
      expect(HookSchema.safeParse(honoured(bad)).success, JSON.stringify(bad)).toBe(false);
    const d = (plugins: unknown) =>
      ({ gate: { model: "m", hooks: [{ ...claude, plugins }] } }) as unknown as Descriptor;
    expect(() => checkHooks(d(claude.plugins), "x")).not.toThrow();
    expect(() =>
      checkHooks(d({ ...claude.plugins!, manifest: { ...claude.plugins!.manifest, path: "../plugin.json" } }), "x"),
    ).toThrow(/plain relative path/);
    expect(() =>
      checkHooks(d({ ...claude.plugins!, files: [{ path: "/etc/hooks.json", key: ["hooks"] }] }), "x"),
    ).toThrow(/plain relative path/);
    expect(() =>
      checkHooks(
        d({ ...claude.plugins!, installed: { ...claude.plugins!.installed, path: "../installed.json" } }),
        "x",
      ),
    ).toThrow(/must not go up/);
  });
});
