// Issue 24 §4: the approval rules of a remote entry (`adopt <host> --url`). The
// host sees the tools the team's server lists for the token's principal, not
// this checkout's packs: the rules come from that listing (the server's
// annotations: readOnlyHint → allowed, anything not marked read-only and not
// marked non-destructive → asked), never from the local packs, grants or shell
// route. Without a listing (the server not reachable; a re-run or --check
// without --url, which never contacts a recorded URL) no allow is written that
// hcpx did not see: the rules an earlier --url wrote are kept as they are, and
// a first write writes no per-tool rule. Real HTTP: an `hcpx mcp --http` on
// 127.0.0.1 with static-token principals.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteClasses, toolClass, type ToolClass } from "../../src/host/remote";
import { addToken, serve, teamProject, type Served, type TeamProject } from "../mcp/http-support";
import { scratch as scratchChild, type Scratch } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt and doctor (what they decide, write and probe) as function calls in this process (test/support/inproc.ts); the servers they talk to stay processes */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

type Json = Record<string, unknown>;
const DEAD = "http://127.0.0.1:9/mcp";

/** The scratch checkout's own ledger pack, edited: `transfer` is a read here (an older copy, a local edit); the server gates it. */
function localTransferIsRead(s: Scratch): void {
  const f = join(s.dir, "packs", "ledger", "policy.json");
  const rows = {
    accounts: { operation: "read" },
    balance: { operation: "read" },
    entries: { operation: "read" },
    doctor: { operation: "read" },
    "account.open": { operation: "write", land: "remote" },
    "entry.add": { operation: "write", land: "remote" },
    "entry.delete": { operation: "write", land: "local", confirm: true },
    transfer: { operation: "read" },
  };
  writeFileSync(f, JSON.stringify({ rows }, null, 2));
}

const claudeRules = (s: Scratch) =>
  ((parseJsonc(s.read(".claude/settings.json")) as Json).permissions ?? {}) as { allow?: string[]; ask?: string[] };
const geminiTools = (s: Scratch) =>
  ((parseJsonc(s.read(".gemini/settings.json")) as Json).tools ?? {}) as {
    allowed?: string[];
    confirmationRequired?: string[];
  };

describe("adopt --url: the approval rules are the remote server's, not this checkout's", () => {
  let p: TeamProject;
  let srv: Served;
  let token: string;
  beforeAll(async () => {
    // alice may read balances and accounts, add entries (an ungated write) and transfer (gated); nothing of transit
    p = teamProject({
      principals: {
        alice: { grants: { allow: ["ledger.balance", "ledger.accounts", "ledger.entry.add", "ledger.transfer"] } },
      },
    });
    token = addToken(p, "alice");
    srv = await serve(p, ["--server-config", p.serverConfig, "--shape", "per-command"]);
  }, 90_000);
  afterAll(async () => srv?.stop());

  it("Claude Code and Gemini CLI: reads the server marks read-only are allowed, its gated write is asked; no local pack, grant or shell route in the rules", async () => {
    const s = scratch();
    localTransferIsRead(s);
    const w = await s.run(
      ["adopt", "claude", "gemini", "--url", srv.url, "--token-env", "HCP_TOKEN", "--write", "--json"],
      { HCP_TOKEN: token },
    );
    expect(w.code, w.stdout + w.stderr).toBe(0);
    const c = claudeRules(s);
    expect(c.allow?.slice().sort()).toEqual([
      "mcp__hcp__hcp__read_skill",
      "mcp__hcp__ledger__accounts",
      "mcp__hcp__ledger__balance",
    ]);
    expect(c.ask).toEqual(["mcp__hcp__ledger__transfer"]);
    const g = geminiTools(s);
    expect(g.allowed?.slice().sort()).toEqual([
      "mcp_hcp_hcp__read_skill",
      "mcp_hcp_ledger__accounts",
      "mcp_hcp_ledger__balance",
    ]);
    expect(g.confirmationRequired).toEqual(["mcp_hcp_ledger__transfer"]);
    // what the run says about them
    const notes = (JSON.parse(w.stdout) as { data: { notes: string[] } }).data.notes.join("\n");
    expect(notes).toMatch(
      /Claude Code: approval rules from the 5 tool\(s\) http:\/\/127\.0\.0\.1:\d+\/mcp lists with the token from \$HCP_TOKEN: 3 read-only allowed, 1 asked/,
    );
    expect(w.stdout).not.toContain(token);

    // --check with the URL: the server lists the same tools, in sync; without it: nothing contacted, kept, in sync
    const withUrl = await s.run(
      ["adopt", "claude", "gemini", "--check", "--url", srv.url, "--token-env", "HCP_TOKEN"],
      { HCP_TOKEN: token },
    );
    expect(withUrl.code, withUrl.stdout + withUrl.stderr).toBe(0);
    const before = s.read(".claude/settings.json") + s.read(".gemini/settings.json");
    const without = await s.run(["adopt", "claude", "gemini", "--check", "--json"]);
    expect(without.code, without.stdout + without.stderr).toBe(0);
    expect((JSON.parse(without.stdout) as { data: { notes: string[] } }).data.notes.join("\n")).toMatch(
      /Claude Code: its approval rules for http:\/\/127\.0\.0\.1:\d+\/mcp are kept as the last --url wrote them/,
    );
    // doctor --url: the host's rules are checked against the listing, and match it
    const d = await s.run(["doctor", "--url", srv.url, "--token-env", "HCP_TOKEN", "--json"], { HCP_TOKEN: token });
    const dj = JSON.parse(d.stdout) as {
      data?: { checks: { id: string; status: string; message: string }[] };
      error?: { details: { checks: { id: string; status: string; message: string }[] } };
    };
    const hc = (dj.data ?? dj.error!.details).checks.find((x) => x.id === "host:claude")!;
    expect(hc.status, hc.message).toBe("ok");
    expect(hc.message).toMatch(/its approval rules follow the 5 tool\(s\) it lists/);
    // a re-run without --url (after a local pack change) keeps them byte for byte
    const again = await s.run(["adopt", "claude", "gemini", "--write"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(s.read(".claude/settings.json") + s.read(".gemini/settings.json")).toBe(before);
  }, 90_000);

  it("Codex: the per-tool approval modes in the remote entry are the listing's; a --check without --url is in sync", async () => {
    const s = scratch();
    const w = await s.run(["adopt", "codex", "--url", srv.url, "--token-env", "HCP_TOKEN", "--write"], {
      HCP_TOKEN: token,
    });
    expect(w.code, w.stdout + w.stderr).toBe(0);
    const hcp = (parseToml(s.read(".codex/config.toml")) as { mcp_servers: { hcp: Json } }).mcp_servers.hcp;
    expect(hcp.default_tools_approval_mode).toBe("prompt");
    expect(hcp.tools).toEqual({
      hcp__read_skill: { approval_mode: "approve" },
      ledger__accounts: { approval_mode: "approve" },
      ledger__balance: { approval_mode: "approve" },
      ledger__entry_add: { approval_mode: "auto" },
      ledger__transfer: { approval_mode: "prompt" },
    });
    const c = await s.adopt("codex", "--check");
    expect(c.code, c.stdout + c.stderr).toBe(0);
  }, 60_000);

  it("a server that cannot be listed: no per-tool rule at all (the host asks for every tool), said; a local entry's rules do not survive the switch", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    expect(claudeRules(s).allow).toContainEqual(expect.stringMatching(/^Bash\(.* exec ledger accounts:\*\)$/));
    const w = await s.run(["adopt", "claude", "--url", DEAD, "--token-env", "HCP_TOKEN", "--write", "--json"], {
      HCP_TOKEN: token,
    });
    expect(w.code, w.stdout + w.stderr).toBe(0);
    const data = (JSON.parse(w.stdout) as { data: { notes: string[]; health: { code: string }[] } }).data;
    // (the ask list hcpx created stays, emptied of its rules)
    expect(claudeRules(s).allow).toEqual(["mcp__hcp__hcp__read_skill"]);
    expect(claudeRules(s).ask ?? []).toEqual([]);
    expect(data.notes.join("\n")).toMatch(
      /could not list the tools of http:\/\/127\.0\.0\.1:9\/mcp .*no per-tool rule/,
    );
    expect(data.health.map((h) => h.code)).toEqual(["remote_unreachable"]);
    // a wrong token is the same: nothing listed, nothing allowed
    const s2 = scratch();
    const bad = await s2.run(["adopt", "claude", "--url", srv.url, "--token-env", "HCP_TOKEN", "--write"], {
      HCP_TOKEN: "hcpx_wrong",
    });
    expect(bad.code, bad.stdout + bad.stderr).toBe(0);
    expect(claudeRules(s2)).toEqual({ allow: ["mcp__hcp__hcp__read_skill"] });
  }, 60_000);

  it("doctor --url reads the rules back against the listing: a person's own Cursor allow that lets the gated write run is named; without --url the rules are said to be unchecked", async () => {
    const s = scratch();
    expect(
      (await s.run(["adopt", "cursor", "--url", srv.url, "--token-env", "HCP_TOKEN", "--write"], { HCP_TOKEN: token }))
        .code,
    ).toBe(0);
    const allow = (parseJsonc(s.read(".cursor/permissions.json")) as { mcpAllowlist: string[] }).mcpAllowlist;
    expect(allow.slice().sort()).toEqual(["hcp:hcp__read_skill", "hcp:ledger__accounts", "hcp:ledger__balance"]);
    // the person's own rule, next to hcpx's
    s.write(".cursor/permissions.json", JSON.stringify({ mcpAllowlist: [...allow, "hcp:*"] }, null, 2) + "\n");
    const d = await s.run(["doctor", "--url", srv.url, "--token-env", "HCP_TOKEN", "--json"], { HCP_TOKEN: token });
    const checks = JSON.parse(d.stdout) as {
      data?: { checks: { id: string; status: string; message: string }[] };
      error?: { details: { checks: { id: string; status: string; message: string }[] } };
    };
    const host = (checks.data ?? checks.error!.details).checks.find((c) => c.id === "host:cursor")!;
    expect(host.status, host.message).toBe("warn");
    expect(host.message).toMatch(/"hcp:\*".*lets hcp:ledger__transfer run without asking/);
    const plain = await s.run(["doctor", "--json"]);
    const pc = JSON.parse(plain.stdout) as {
      data?: { checks: { id: string; message: string }[] };
      error?: { details: { checks: { id: string; message: string }[] } };
    };
    const h2 = (pc.data ?? pc.error!.details).checks.find((c) => c.id === "host:cursor")!;
    expect(h2.message).toMatch(/approval rules not checked against the server/);
  }, 60_000);
});

describe("a listed tool's class (what its rule is written from)", () => {
  it("only readOnlyHint: true is a read; destructiveHint: false an ungated write; anything else, no annotations included, is asked", () => {
    expect(toolClass({ readOnlyHint: true })).toBe("read");
    expect(toolClass({ readOnlyHint: true, destructiveHint: true })).toBe("read");
    expect(toolClass({ readOnlyHint: false, destructiveHint: false })).toBe("write");
    expect(toolClass({ readOnlyHint: false, destructiveHint: true })).toBe("confirm");
    expect(toolClass({ readOnlyHint: false })).toBe("confirm");
    expect(toolClass({ readOnlyHint: "true" })).toBe("confirm");
    expect(toolClass(undefined)).toBe("confirm");
  });
  it("across eras the strictest class wins; a name a rule would read as a glob or separator gets no rule", () => {
    const c = remoteClasses([
      {
        era: "legacy",
        classes: JSON.parse(
          '{"a__read": "read", "b__write": "write", "hcp:*": "read", "x*": "read", "a b": "read", "__proto__": "read"}',
        ) as Record<string, ToolClass>,
      },
      { era: "modern", classes: { a__read: "confirm", b__write: "write", c__new: "read" } },
    ]);
    expect({ ...c }).toEqual({ a__read: "confirm", b__write: "write", c__new: "read" });
  });
});
