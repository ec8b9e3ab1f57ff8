// Descriptor `gate.skipped` (hosts/claude.json5) against Claude Code's own program: for each settings file below,
// whether Claude Code skips it as a whole (`claude plugin list --json` in a scratch HOME: a plugin on in the user's
// file, turned off in the project's local file beside the member tried; still on = the local file was skipped) is
// what hcpx's shape says (src/host/settings-shape.ts `misfitOf`). The cases are those of test/hosts/HOST-PROBES.md
// ("Claude Code's settings files with errors"): a changed Claude Code that reads or skips one differently fails here.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hc } from "./support";
import { loadDescriptor } from "../../../src/host/descriptor";
import { honours, misfitOf, type SettingsShape } from "../../../src/host/settings-shape";
import { SCHEMA_READS, SCHEMA_SINKS } from "../../support/claude-schema-probes";

const has = existsSync(join(hc.HOSTS_DIR, "node_modules", ".bin", "claude"));
if (!has) console.warn(`[host e2e] claude SKIPPED: not installed in ${hc.HOSTS_DIR} (scripts/install-hosts.sh)`);

/** The member that turns the plugin off: still on in `claude plugin list` = the local file was skipped. */
const OFF = '"enabledPlugins":{"hk@pm":false}';

/** Members put beside `OFF` in .claude/settings.local.json (probed, HOST-PROBES.md). */
const MEMBERS = [
  '"zzzUnknown":1',
  '"model":3',
  '"model":"x"',
  '"apiKeyHelper":3',
  '"permissions":3',
  '"permissions":{"defaultMode":"bogus"}',
  '"permissions":{"defaultMode":"manual"}',
  '"permissions":{"defaultMode":"dontAsk"}',
  '"permissions":{"allow":"x"}',
  '"permissions":{"ask":[3]}',
  '"permissions":{"additionalDirectories":[3]}',
  '"hooks":3',
  '"hooks":{"PreToolUse":3}',
  '"hooks":{"PermissionRequest":{}}',
  '"env":3',
  '"cleanupPeriodDays":0',
  '"cleanupPeriodDays":30',
  '"disableAllHooks":"x"',
  '"enabledMcpjsonServers":"hcp"',
  '"enabledMcpjsonServers":[3]',
  '"statusLine":{"type":"command","command":"x"}',
  '"statusLine":{"type":"command"}',
  '"statusLine":{}',
  '"statusLine":{"command":"x"}',
  '"statusLine":{"type":"bogus","command":"x"}',
  '"statusLine":{"type":"command","command":3}',
  '"outputStyle":3',
  '"extraKnownMarketplaces":3',
  '"extraKnownMarketplaces":{"x":3}',
  '"extraKnownMarketplaces":{"x":{"source":"bogus"}}',
  '"extraKnownMarketplaces":{"x":{"source":{}}}',
  '"extraKnownMarketplaces":{"x":{"source":{"source":3}}}',
  '"extraKnownMarketplaces":{"x":{"source":{"source":"bogus"}}}',
  '"extraKnownMarketplaces":{"x":{"source":{"source":"Github","repo":"o/r"}}}',
  '"extraKnownMarketplaces":{"x":{"source":{"source":"npm"}}}',
  '"extraKnownMarketplaces":{"x":{"source":{"source":"hostPattern","hostPattern":"x"}}}',
  // each top-level key of the settings schema: the probed sample (test/support/claude-schema-probes.ts)
  ...SCHEMA_SINKS,
  ...SCHEMA_READS,
];

/** Members of an ordinary settings file that `honoured` confirms (each must be read: probed, HOST-PROBES.md). */
const ORDINARY = [
  '"$schema":"https://json.schemastore.org/claude-code-settings.json"',
  '"model":"opus"',
  '"outputStyle":"default"',
  '"theme":"dark"',
  '"env":{"A":"b","PATH":"/x"}',
  '"includeCoAuthoredBy":false',
  '"alwaysThinkingEnabled":true',
  '"cleanupPeriodDays":30',
  ...["acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan", "manual"].map(
    (m) => `"permissions":{"allow":["Read"],"defaultMode":"${m}"}`,
  ),
  '"statusLine":{"type":"command","command":"x","padding":0}',
  '"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":30}]}],"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}',
  '"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":1.5}]}]}',
  '"extraKnownMarketplaces":{"d":{"source":{"source":"directory","path":"/nowhere"}},"g":{"source":{"source":"github","repo":"o/r"}},"h":{"source":{"source":"git","url":"https://example.com/x.git"}},"u":{"source":{"source":"url","url":"https://example.com/m.json"}}}',
];

/** Members that sink the file (probed): `honoured` must not confirm them. */
const SINKING = [
  '"model":3',
  '"hooks":{"PreToolUse":[{"matcher":"x"}]}',
  '"hooks":{"PreToolUse":[{"matcher":"x","hooks":[{"type":"bogus","command":"x"}]}]}',
  '"hooks":{"PreToolUse":[{"matcher":"x","hooks":[{"type":"command","command":"x","timeout":0}]}]}',
  '"hooks":{"PreToolUse":[{"matcher":"x","hooks":[{"type":"command","command":"x","timeout":"5"}]}]}',
  '"statusLine":{"type":"command"}',
  '"extraKnownMarketplaces":{"x":{"source":{"source":"bogus"}}}',
  '"alwaysThinkingEnabled":"x"',
];

/**
 * Each top-level key `gate.skipped` lists with a plain type (most of Claude Code's schema): a value of another type,
 * and `null` (which Claude Code drops for its restrictive switches, the shape says which).
 */
function wrongTyped(shape: SettingsShape): string[] {
  const known = (shape as { known: Record<string, SettingsShape> }).known;
  const other: Record<string, string> = { string: "3", boolean: '"x"', strings: '"x"', count: "0", number: '"x"' };
  return Object.entries(known).flatMap(([k, s]) => {
    const v =
      typeof s === "string"
        ? other[s]
        : Array.isArray(s)
          ? undefined
          : s.oneOf
            ? s.oneOf.includes(true)
              ? '"x"'
              : '"zzz"'
            : s.number
              ? '"x"'
              : s.pattern
                ? "3"
                : undefined;
    return v === undefined ? [] : [`${JSON.stringify(k)}:${v}`, `${JSON.stringify(k)}:null`];
  });
}

describe.skipIf(!has)("Claude Code skips the settings files gate.skipped says it skips", () => {
  const shape = loadDescriptor("claude").gate!.skipped!.shape;
  const honoured = loadDescriptor("claude").gate!.hooks!.find((h) => h.plugins)!.plugins!.enabled.honoured;
  const root = mkdtempSync(join(tmpdir(), "hcpx-skipped-"));
  const home = join(root, "home");
  const proj = join(root, "proj");
  const mkt = join(root, "mkt");
  const claude = (args: string[]) =>
    hc.run(hc.hostBin("claude"), args, { cwd: proj, env: hc.hostEnv(home), timeoutMs: 60_000 });
  afterAll(() => {
    if (!process.env.HCPX_E2E_KEEP) rmSync(root, { recursive: true, force: true });
  });

  beforeAll(async () => {
    const put = (file: string, v: unknown) => {
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, JSON.stringify(v));
    };
    mkdirSync(home, { recursive: true });
    mkdirSync(join(proj, ".claude"), { recursive: true });
    put(join(mkt, ".claude-plugin", "marketplace.json"), {
      name: "pm",
      owner: { name: "x" },
      plugins: [{ name: "hk", source: "./plugins/hk", description: "d" }],
    });
    put(join(mkt, "plugins", "hk", ".claude-plugin", "plugin.json"), {
      name: "hk",
      version: "1.0.0",
      description: "d",
    });
    put(join(mkt, "plugins", "hk", "hooks", "hooks.json"), {
      hooks: { PreToolUse: [{ matcher: "", hooks: [{ type: "command", command: "true" }] }] },
    });
    for (const args of [
      ["plugin", "marketplace", "add", mkt],
      ["plugin", "install", "hk@pm"],
    ]) {
      const r = await claude(args);
      expect(r.code, r.stderr + r.stdout).toBe(0);
    }
  });

  /** Does Claude Code skip a local settings file of this text (the user's true then decides)? */
  const skips = async (text: string): Promise<boolean> => {
    writeFileSync(join(proj, ".claude", "settings.local.json"), text);
    const r = await claude(["plugin", "list", "--json"]);
    const list = JSON.parse(r.stdout) as { id: string; enabled: boolean }[];
    const p = list.find((x) => x.id === "hk@pm");
    expect(p, r.stdout).toBeDefined();
    return p!.enabled;
  };

  /** The cases (`label`, the local file's text) on which Claude Code and hcpx's shape disagree, each said. */
  const disagreements = async (cases: [label: string, text: string][]): Promise<string[]> => {
    const out: string[] = [];
    for (const [label, text] of cases) {
      const host = await skips(text);
      const hcpx = misfitOf(text, shape) !== undefined;
      if (host !== hcpx)
        out.push(`${label}: Claude Code ${host ? "skips" : "reads"} it, hcpx says it ${hcpx ? "skips" : "reads"}`);
    }
    return out;
  };

  it("each probed member, and a file that is not plain JSON: Claude Code and hcpx agree", async () => {
    expect(await skips(`{${OFF}}`)).toBe(false);
    const texts = [...MEMBERS.map((m) => `{${OFF},${m}}`), `{${OFF},}`, `// c\n{${OFF}}`, `\ufeff{${OFF}}`];
    expect(await disagreements(texts.map((t) => [t, t]))).toEqual([]);
  });

  it("each top-level key listed with a plain type, of another type and null: Claude Code and hcpx agree", async () => {
    const members = wrongTyped(shape);
    expect(members.length).toBeGreaterThan(200);
    expect(await disagreements(members.map((m) => [m, `{${OFF},${m}}`]))).toEqual([]);
  });

  it("each file honoured confirms (an ordinary settings file), Claude Code reads; each it sinks, hcpx does not confirm", async () => {
    const wrong: string[] = [];
    for (const text of [`{${ORDINARY.join(",")},${OFF}}`, ...ORDINARY.map((m) => `{${m},${OFF}}`)]) {
      if (!honours(text, honoured)) wrong.push(`${text}: hcpx does not confirm it`);
      else if (await skips(text)) wrong.push(`${text}: hcpx confirms it, Claude Code skips it`);
    }
    for (const text of SINKING.map((m) => `{${OFF},${m}}`)) {
      if (!(await skips(text))) wrong.push(`${text}: Claude Code reads it (the probe is stale)`);
      if (honours(text, honoured)) wrong.push(`${text}: hcpx confirms it, Claude Code skips it`);
    }
    expect(wrong).toEqual([]);
  });

  it("an enabledPlugins that is not an object sinks the file (its plugin marker cannot tell: a .mcp.json server approved there)", async () => {
    // the marker: a project server approved by enabledMcpjsonServers in the local file (the workspace trusted) is
    // started (claude mcp list: failed to connect, it runs nothing) when the file is read, and pending when it is not
    writeFileSync(
      join(proj, ".mcp.json"),
      JSON.stringify({ mcpServers: { hcp: { type: "stdio", command: "/nonexistent/bin" } } }),
    );
    const user = join(home, ".claude.json");
    const doc = JSON.parse(readFileSync(user, "utf8")) as { projects?: Record<string, object> };
    writeFileSync(
      user,
      JSON.stringify({ ...doc, projects: { ...doc.projects, [proj]: { hasTrustDialogAccepted: true } } }),
    );
    const skips = async (text: string): Promise<boolean> => {
      writeFileSync(join(proj, ".claude", "settings.local.json"), text);
      const r = await hc.run(hc.hostBin("claude"), ["mcp", "list"], {
        cwd: proj,
        env: hc.hostEnv(home, { MCP_TIMEOUT: "3000" }),
        timeoutMs: 60_000,
      });
      const line = r.stdout.split("\n").find((l) => l.startsWith("hcp:")) ?? "";
      expect(line, r.stdout + r.stderr).toMatch(/Pending|Failed|Connected/);
      return /Pending/.test(line);
    };
    const on = '"enabledMcpjsonServers":["hcp"]';
    expect(await skips(`{${on}}`)).toBe(false);
    expect(await skips(`{${on},"enabledPlugins":{}}`)).toBe(false);
    const disagree: string[] = [];
    for (const m of ["[]", "3", '"x"', "null", "true", '{"a@b":"yes"}']) {
      const text = `{${on},"enabledPlugins":${m}}`;
      const host = await skips(text);
      const hcpx = misfitOf(text, shape) !== undefined;
      if (!host || !hcpx)
        disagree.push(`${text}: Claude Code ${host ? "skips" : "reads"} it, hcpx says it ${hcpx ? "skips" : "reads"}`);
    }
    expect(disagree).toEqual([]);
  });
});
