// Hosts added for December 2026 (issue 27 §1): Kimi Code CLI, Crush, Warp, Trae and Zoo Code (formerly
// Roo Code, alias `roo`). None of their programs runs here (Kimi Code needs Node >= 22, Crush's npm
// install downloads its binary, the others are desktop apps), so what adopt writes is checked against
// the shape their documentation gives, and each descriptor names that source. Every case: the person's
// own entries survive, --check is in sync, --remove gives every byte back.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import JSON5 from "json5";
import { parse as parseJsonc } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { loadDescriptor } from "../../src/host/descriptor";
import { scratch as scratchChild, snapshot, userConfigFromProject } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

type Obj = Record<string, unknown>;
const REPO = join(import.meta.dirname, "..", "..");
const docsOf = (host: string) =>
  (JSON5.parse(readFileSync(join(REPO, "hosts", `${host}.json5`), "utf8")) as { docs: string[] }).docs;
const at = (o: unknown, ...k: string[]) => k.reduce<unknown>((x, key) => (x as Obj | undefined)?.[key], o);
const OTHER = { command: "other-server", args: ["--x"] };

const cases: {
  host: string;
  scope: "project" | "user";
  path: string;
  key: string[];
  source: RegExp;
  shape: (e: Obj) => void;
  block?: string;
}[] = [
  // MoonshotAI/kimi-code docs/en/customization/mcp.md: mcp.json at two levels, `command` entries are stdio
  {
    host: "kimi",
    scope: "project",
    path: ".kimi-code/mcp.json",
    key: ["mcpServers"],
    source: /kimi-code\/blob\/main\/docs\/en\/customization\/mcp\.md/,
    shape: (e) => expect(Object.keys(e).sort()).toEqual(["args", "command"]),
    block: "AGENTS.md",
  },
  {
    host: "kimi",
    scope: "user",
    path: "~/.kimi-code/mcp.json",
    key: ["mcpServers"],
    source: /~\/\.kimi-code\/mcp\.json/,
    shape: (e) => expect(typeof e.command).toBe("string"),
    block: "~/.kimi-code/AGENTS.md",
  },
  // Crush README + rulesync crush-mcp.ts: `mcp.<name>`, `type` required
  {
    host: "crush",
    scope: "project",
    path: "crush.json",
    key: ["mcp"],
    source: /charmbracelet\/crush/,
    shape: (e) => expect(e).toMatchObject({ type: "stdio", command: expect.any(String), args: expect.any(Array) }),
    block: "CRUSH.md",
  },
  {
    host: "crush",
    scope: "user",
    path: "~/.config/crush/crush.json",
    key: ["mcp"],
    source: /rulesync.*crush-mcp\.ts/,
    shape: (e) => expect(e.type).toBe("stdio"),
    block: "~/.config/crush/CRUSH.md",
  },
  // warpdotdev/warp agent-add-mcp: ~/.warp/.mcp.json and {repo_root}/.warp/.mcp.json
  {
    host: "warp",
    scope: "project",
    path: ".warp/.mcp.json",
    key: ["mcpServers"],
    source: /warpdotdev\/warp/,
    shape: (e) => expect(Object.keys(e).sort()).toEqual(["args", "command"]),
    block: "AGENTS.md",
  },
  {
    host: "warp",
    scope: "user",
    path: "~/.warp/.mcp.json",
    key: ["mcpServers"],
    source: /~\/\.warp\/\.mcp\.json/,
    shape: (e) => expect(typeof e.command).toBe("string"),
  },
  // Trae: .trae/mcp.json (Enable Project MCP)
  {
    host: "trae",
    scope: "project",
    path: ".trae/mcp.json",
    key: ["mcpServers"],
    source: /\.trae\/mcp\.json/,
    shape: (e) => expect(Object.keys(e).sort()).toEqual(["args", "command"]),
  },
  // Roo/Zoo Code: .roo/mcp.json, alwaysAllow
  {
    host: "zoo",
    scope: "project",
    path: ".roo/mcp.json",
    key: ["mcpServers"],
    source: /roocode\.com.*\.roo\/mcp\.json/,
    shape: (e) => expect(e.alwaysAllow).toEqual(expect.any(Array)),
  },
];

describe("new hosts (documented shapes): the entry where and as their documentation says; the person's entries stay; --remove gives every byte back", () => {
  for (const c of cases) {
    it(`${c.host} (${c.scope}): ${c.path} ${c.key.join(".")}.hcp`, async () => {
      expect(
        docsOf(c.host).some((d) => c.source.test(d)),
        `hosts/${c.host}.json5 docs`,
      ).toBe(true);
      const s = scratch();
      if (c.scope === "user") userConfigFromProject(s);
      const mine =
        JSON.stringify(
          c.key.reduceRight<Obj>((inner, k) => ({ [k]: inner }), { other: OTHER }),
          null,
          2,
        ) + "\n";
      s.write(c.path, mine);
      if (c.block) s.write(c.block, "# mine\n");
      const before = { proj: snapshot(s.dir), home: snapshot(s.home) };
      const scope = ["--scope", c.scope];
      const w = await s.adopt(c.host, ...scope, "--write");
      expect(w.code, w.stderr).toBe(0);
      const all = parseJsonc(s.read(c.path)) as Obj;
      expect(at(all, ...c.key, "other")).toEqual(OTHER);
      const entry = at(all, ...c.key, c.scope === "user" ? "hcp-user" : "hcp") as Obj;
      expect(entry, s.read(c.path)).toBeDefined();
      c.shape(entry);
      if (c.block) expect(s.read(c.block)).toMatch(/^# mine\n[\s\S]*<!-- hcp:begin -->/);
      const chk = await s.adopt(c.host, ...scope, "--check");
      expect(chk.code, chk.stdout + chk.stderr).toBe(0);
      const r = await s.adopt(c.host, ...scope, "--remove", "--write");
      expect(r.code, r.stderr).toBe(0);
      expect({ proj: snapshot(s.dir), home: snapshot(s.home) }).toEqual(before);
    });
  }

  it("Zoo Code is Roo Code: `roo` is its alias; alwaysAllow lists the reads, never a gated write; a person's entry that does is named (policy_widened)", async () => {
    expect(loadDescriptor("roo")).toBe(loadDescriptor("zoo"));
    const s = scratch();
    expect((await s.adopt("roo", "--write")).code).toBe(0);
    const hcp = at(parseJsonc(s.read(".roo/mcp.json")), "mcpServers", "hcp") as {
      alwaysAllow: string[];
      args: string[];
    };
    expect(hcp.args.slice(-2)).toEqual(["--shape", "per-command"]);
    expect(hcp.alwaysAllow).toEqual(expect.arrayContaining(["hcp__read_skill", "ledger__balance", "transit__plan"]));
    expect(hcp.alwaysAllow.some((x) => x.includes("transfer") || x.includes("delete"))).toBe(false);
    expect((await s.adopt("zoo", "--check")).code).toBe(0);
    // the person adds the gated write to the list
    const text = s.read(".roo/mcp.json").replace('"hcp__read_skill"', '"hcp__read_skill", "ledger__transfer"');
    s.write(".roo/mcp.json", text);
    const c = await s.adopt("zoo", "--check", "--json");
    expect(c.code).not.toBe(0);
    const drift = JSON.parse(c.stdout) as {
      error: { code: string; details: { warnings: { code: string; file: string; path: string; message: string }[] } };
    };
    expect(drift.error.code).toBe("drift");
    expect(drift.error.details.warnings).toContainEqual(
      expect.objectContaining({ code: "policy_widened", file: ".roo/mcp.json", path: "mcpServers.hcp.alwaysAllow" }),
    );
    expect(drift.error.details.warnings.find((w) => w.code === "policy_widened")?.message).toMatch(/ledger__transfer/);
  });

  it("Trae's rule carries the frontmatter it reads (alwaysApply: true, a description)", async () => {
    const s = scratch();
    expect((await s.adopt("trae", "--write")).code).toBe(0);
    const fm = /^---\n([\s\S]*?)\n---\n/.exec(s.read(".trae/rules/hcp.md"))![1]!;
    expect(fm).toMatch(/^alwaysApply: true$/m);
    expect(fm).toMatch(/^description: "/m);
  });

  it("Warp at user scope writes no block into ~/.agents/AGENTS.md (Cline's block is there), and says so", async () => {
    const s = scratch();
    userConfigFromProject(s);
    const w = await s.adopt("warp", "--scope", "user", "--write");
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toMatch(/hcpx writes no block there for Warp/);
    expect(() => s.read("~/.agents/AGENTS.md")).toThrow();
  });
});

describe("what cannot be checked is said, not called checked (descriptor `unchecked`, issue 27 §3)", () => {
  it("doctor says it with the host's result: the Kiro CLI's agent allowedTools, VS Code's and Copilot CLI's tool approvals; a host with nothing unchecked says nothing", async () => {
    const s = scratch();
    expect((await s.adopt("kiro", "vscode", "copilot", "cursor", "--write")).code).toBe(0);
    const d = await s.run(["doctor", "--json"]);
    const checks = JSON.parse(d.stdout) as {
      data?: { checks: { id: string; message: string }[] };
      error?: { details?: { checks: { id: string; message: string }[] } };
    };
    const all = checks.data?.checks ?? checks.error?.details?.checks ?? [];
    const msg = (h: string) => all.find((c) => c.id === `host:${h}`)?.message ?? "";
    expect(msg("kiro")).toMatch(
      /not checked \(hcpx cannot read it\): the Kiro CLI does not read the entry's autoApprove.*allowedTools/,
    );
    expect(msg("vscode")).toMatch(/not checked .*VS Code's tool approvals/);
    expect(msg("copilot")).toMatch(/not checked .*--allow-tool/);
    expect(msg("cursor")).not.toMatch(/not checked/);
    expect(loadDescriptor("kiro-cli")).toBe(loadDescriptor("kiro"));
  });
});

describe("Auggie's launch.env (issue 27 §3): it passes an MCP server HOME, LOGNAME, PATH, SHELL, TERM, USER and the entry's env, nothing else", () => {
  it("a config found only through $HCP_CONFIG: healthy for a host that passes it on (Claude Code), not for Auggie, which does not", async () => {
    const s = scratch({ packs: ["ledger"], hcpxOnPath: true });
    // the project's config is conf/team.json5, named by HCP_CONFIG (no hcp.config.json5 where the hosts start the server)
    s.write(
      "conf/team.json5",
      s
        .read("hcp.config.json5")
        .replaceAll("./packs/", "../packs/")
        .replace('"roots": [\n      "."\n    ]', '"roots": ["..", "."]'),
    );
    const team = join(s.dir, "conf", "team.json5");
    const env = { HCP_CONFIG: team };
    for (const h of ["claude", "auggie"])
      expect((await s.run(["adopt", h, "--write", "--command", "hcpx mcp"], env)).code, h).toBe(0);
    rmSync(join(s.dir, "hcp.config.json5"));
    const ok = await s.run(["adopt", "claude", "--check", "--command", "hcpx mcp"], env);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const bad = await s.run(["adopt", "auggie", "--check", "--command", "hcpx mcp"], env);
    expect(bad.code, bad.stdout + bad.stderr).toBe(1);
    expect(bad.stdout).toMatch(
      /Augment \(Auggie\): starts the server in the project root, where `hcpx mcp` does not get HCP_CONFIG/,
    );
  });
});

describe("Crush expands MCP commands and args in crush.json as shell text (docs/config/README.md)", () => {
  it("a command word with `$` is refused (host_variable), nothing written; Crush's own JSONC (trailing commas) is edited in place", async () => {
    const s = scratch({ hcpxOnPath: true });
    const before = snapshot(s.dir);
    const r = await s.adopt("crush", "--write", "--json", "--command", "hcpx mcp --config $HOME/x.json5");
    expect(r.code).not.toBe(0);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "host_variable", file: "crush.json" });
    expect(snapshot(s.dir)).toEqual(before);
    const mine =
      '{\n  "$schema": "https://charm.land/crush.json",\n  "permissions": { "allowed_tools": ["view", "ls", "grep"] },\n}\n';
    s.write("crush.json", mine);
    expect((await s.adopt("crush", "--write")).code).toBe(0);
    expect(at(parseJsonc(s.read("crush.json")), "permissions")).toEqual({ allowed_tools: ["view", "ls", "grep"] });
    expect((await s.adopt("crush", "--remove", "--write")).code).toBe(0);
    expect(s.read("crush.json")).toBe(mine);
  });
});
