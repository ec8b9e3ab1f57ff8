// opencode and Kilo let the LAST `permission` rule that matches a tool decide (their evaluate is a
// findLast, seen in opencode 1.18.33's and Kilo 7.7.7's code), with `*` and `?` wildcards, over the
// user's file merged with the project's (a key keeps the place it first had). A rule of the person's
// after hcpx's "ask" that allows a gated write takes the host's prompt out of force (hcpx asks
// itself) and is named by adopt --check (`policy_widened`); one before it does not. And a host whose
// user-scope server has its own name (Amp's hcp-user) has the person's rules read under that name.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseJsonc } from "jsonc-parser";
import { scratch as scratchChild, userConfigFromProject } from "./helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce, warningsOf } from "../support/approval";

const scratch = () => inProcess(scratchChild());
type Scratch = ReturnType<typeof scratch>;

/** Is opencode's approval in force for the gated ledger.transfer (project scope)? */
const inForce = (s: Scratch) => approvalInForce("opencode", s);

const widened = async (s: Scratch, ...args: string[]): Promise<string[]> => {
  const r = await s.adopt(...args, "--check", "--json");
  return warningsOf(r.stdout)
    .filter((x) => x.code === "policy_widened")
    .map((x) => x.message);
};

/** opencode.json after adopt, with the person's rules put before or after hcpx's in `permission`. */
function withRules(s: Scratch, before: Record<string, unknown>, after: Record<string, unknown>): void {
  const doc = parseJsonc(s.read("opencode.json")) as { permission: Record<string, unknown> };
  doc.permission = { ...before, ...doc.permission, ...after };
  s.write("opencode.json", JSON.stringify(doc, null, 2) + "\n");
}

describe("opencode: the last matching permission rule decides", () => {
  it("a person's allow after hcpx's ask widens (`*`, `hcp_*`, `?`, a trailing ` *`, a rule object); before it, it does not", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const adopted = s.read("opencode.json");
    expect(await inForce(s)).toBe(true);
    withRules(s, { "*": "allow", "hcp_*": "allow" }, {});
    expect(await inForce(s)).toBe(true);
    expect(await widened(s, "opencode")).toEqual([]);
    for (const rule of [
      { "*": "allow" },
      { "hcp_*": "allow" },
      { "hcp_ledger__tr?nsfer": "allow" },
      { "hcp_ledger__transfer *": "allow" },
      { "hcp_ledger__*": { "*": "allow" } },
    ]) {
      s.write("opencode.json", adopted);
      withRules(s, {}, rule);
      const key = Object.keys(rule)[0]!;
      expect(await inForce(s), key).toBe(false);
      const said = await widened(s, "opencode");
      expect(said.join("\n"), key).toContain(`your rule ${JSON.stringify(key)}`);
      expect(said.join("\n")).toMatch(/hcp_ledger__transfer run without asking.*the last rule that matches decides/);
    }
    // a later rule that asks or denies, or names another tool, widens nothing
    for (const rule of [
      { "*": "ask" },
      { "hcp_*": "deny" },
      { "hcp_transit__*": "allow" },
      { "hcp_ledger__tr?": "allow" },
    ]) {
      s.write("opencode.json", adopted);
      withRules(s, {}, rule);
      expect(await inForce(s), Object.keys(rule)[0]).toBe(true);
    }
  });

  it("the user's file and the project's are one list: a key first written in the user's file keeps its place there", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    // the project's "hcp_*": "allow" comes before hcpx's rule in the file, but the merged list places
    // "hcp_ledger__transfer" where the user's file put it, first: the allow is then the last match
    withRules(s, { "hcp_*": "allow" }, {});
    expect(await inForce(s)).toBe(true);
    mkdirSync(join(s.home, ".config", "opencode"), { recursive: true });
    writeFileSync(
      join(s.home, ".config", "opencode", "opencode.json"),
      JSON.stringify({ permission: { hcp_ledger__transfer: "ask" } }),
    );
    expect(await inForce(s)).toBe(false);
    // a user file whose rules all come first changes nothing
    writeFileSync(
      join(s.home, ".config", "opencode", "opencode.json"),
      JSON.stringify({ permission: { "*": "allow" } }),
    );
    expect(await inForce(s)).toBe(true);
    // every tool allowed by a decision for all: the rule `*`, merged first
    writeFileSync(join(s.home, ".config", "opencode", "opencode.json"), JSON.stringify({ permission: "allow" }));
    expect(await inForce(s)).toBe(true);
  });
});

describe("opencode: an agent's own permission rules come after the config's", () => {
  it("agent.<name>.permission allowing the gated write widens, even under hcpx's own key; asking there does not", async () => {
    const s = scratch();
    expect((await s.adopt("opencode", "--write")).code).toBe(0);
    const adopted = s.read("opencode.json");
    const withAgent = (agent: Record<string, unknown>) => {
      const doc = parseJsonc(adopted) as Record<string, unknown>;
      doc.agent = agent;
      s.write("opencode.json", JSON.stringify(doc, null, 2) + "\n");
    };
    for (const [agent, ok] of [
      [{ build: { permission: { "hcp_*": "allow" } } }, false],
      // the same key as hcpx's rule: in an agent's list it is the person's, never hcpx's
      [{ plan: { permission: { hcp_ledger__transfer: "allow" } } }, false],
      [{ build: { permission: { "hcp_*": "ask" } }, plan: { model: "x" } }, true],
      [{ build: { permission: { "hcp_transit__*": "allow" } } }, true],
    ] as const) {
      withAgent(agent);
      expect(await inForce(s), JSON.stringify(agent)).toBe(ok);
      const said = (await widened(s, "opencode")).join("\n");
      if (ok) expect(said).toBe("");
      else expect(said).toMatch(/in `agent\.(build|plan)\.permission` lets hcp_ledger__transfer run without asking/);
    }
  });
});

describe("a user-scope server of its own name: the person's rules are read under it", () => {
  it("Amp (user scope, hcp-user): an earlier `mcp__hcp-user__*` allow is named", async () => {
    const s = scratch();
    userConfigFromProject(s);
    expect((await s.adopt("amp", "--scope", "user", "--write")).code).toBe(0);
    const file = join(s.home, ".config", "amp", "settings.json");
    const doc = parseJsonc(s.read("~/.config/amp/settings.json")) as { "amp.permissions": unknown[] };
    doc["amp.permissions"].unshift({ tool: "mcp__hcp-user__*", action: "allow" });
    writeFileSync(file, JSON.stringify(doc, null, 2) + "\n");
    const said = await widened(s, "amp", "--scope", "user");
    expect(said.join("\n")).toMatch(/mcp__hcp-user__\*.*mcp__hcp-user__ledger__transfer run without asking/);
  });
});
