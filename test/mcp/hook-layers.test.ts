// The host's approval and the hooks a host runs before a tool call or at its permission prompt (descriptor
// `gate.hooks`, docs/confirm.md): Claude Code's PreToolUse and PermissionRequest hooks, Codex's and Qwen
// Code's PermissionRequest hooks, may allow the call so the host never asks. hcpx cannot know what a hook
// script decides: while one whose matcher may select the gated tool is there, the host's prompt is not in
// force (hcpx asks the person itself), and adopt --check names the file, the event and the matcher.
// The decision is called in this process (src/host/approval.ts), with system files below a scratch folder.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkHooks } from "../../src/host/descriptor-check";
import type { Descriptor } from "../../src/host/descriptor";
import { scratch as scratchChild } from "../adopt/helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce, warningsOf } from "../support/approval";
import { tmp } from "../support/project";

const scratch = () => inProcess(scratchChild());
type Scratch = ReturnType<typeof scratch>;

/** Is the host's approval in force for the gated ledger.transfer (project scope), system files below `system`? */
const inForce = (host: string, s: Scratch, system: string) => approvalInForce(host, s, { system });

/** `host` adopted in a scratch project, system files below a scratch "/": its prompt in force at first. */
async function adopted(host: string) {
  const s = scratch();
  const sys = tmp("hcpx-sysroot-");
  expect((await s.adopt(host, "--write")).code).toBe(0);
  const now = () => inForce(host, s, sys);
  expect(await now()).toBe(true);
  return { s, sys, now };
}

const put = (file: string, text: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};

/** A settings file's `hooks` with one group of `event` (matcher left out when undefined). */
const hooks = (event: string, matcher?: unknown) =>
  JSON.stringify({
    hooks: {
      [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command: "allow.sh" }] }],
    },
  });

describe("Claude Code: PreToolUse and PermissionRequest hooks", () => {
  it("a hook whose matcher may select the gated tool: not in force; one for other tools, or PostToolUse: in force", async () => {
    const { s, now } = await adopted("claude");
    const local = join(s.dir, ".claude", "settings.local.json");
    const cases: [string, unknown, boolean][] = [
      ["PreToolUse", "Bash", true],
      ["PreToolUse", "Bash|Edit", true],
      ["PreToolUse", "mcp__hcp", true], // a list of exact names: not the tool's
      ["PreToolUse", "^mcp__other__.*", true],
      ["PostToolUse", "*", true], // after the call: it cannot approve it
      ["PreToolUse", "mcp__hcp__.*", false],
      ["PreToolUse", "*", false],
      ["PreToolUse", "", false],
      ["PreToolUse", undefined, false],
      ["PreToolUse", "Bash, mcp__hcp__ledger__transfer", false],
      ["PermissionRequest", "mcp__hcp__ledger__transfer", false],
      ["PermissionRequest", "mcp__hcp__(", false], // a regex hcpx cannot evaluate counts as matching
      ["PermissionRequest", 42, false],
    ];
    for (const [event, matcher, want] of cases) {
      put(local, hooks(event, matcher));
      expect(await now(), `${event} ${JSON.stringify(matcher)}`).toBe(want);
    }
  });

  it("the user's settings and the managed settings are read too; a file that does not parse: not in force", async () => {
    const { s, sys, now } = await adopted("claude");
    put(join(s.home, ".claude", "settings.json"), hooks("PermissionRequest", "mcp__.*"));
    expect(await now()).toBe(false);
    put(join(s.home, ".claude", "settings.json"), hooks("PermissionRequest", "Bash"));
    expect(await now()).toBe(true);
    put(join(sys, "etc", "claude-code", "managed-settings.json"), hooks("PreToolUse", ".*"));
    expect(await now()).toBe(false);
    put(join(sys, "etc", "claude-code", "managed-settings.json"), "{ not json");
    expect(await now()).toBe(false);
  });

  it("adopt --check names the file, the hook event and its matcher (policy_widened)", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    s.write(".claude/settings.local.json", hooks("PreToolUse", "mcp__hcp__.*"));
    const c = await s.run(["adopt", "claude", "--check", "--json"]);
    const w = warningsOf(c.stdout).filter((x) => x.code === "policy_widened");
    expect(w.map((x) => x.file)).toContain(".claude/settings.local.json");
    expect(w.map((x) => x.message).join("\n")).toMatch(
      /Claude Code: \.claude\/settings\.local\.json has a PreToolUse hook \(matcher "mcp__hcp__\.\*"\) that may select the gated tools [a-z_, ]*ledger__transfer/,
    );
  });
});

describe("Codex: PermissionRequest hooks in hooks.json and config.toml", () => {
  it("a PermissionRequest hook for the tool: not in force; a PreToolUse hook (it cannot allow) or one for Bash: in force", async () => {
    const { s, now } = await adopted("codex");
    const json = join(s.home, ".codex", "hooks.json");
    put(json, hooks("PreToolUse", "*"));
    expect(await now()).toBe(true);
    put(json, hooks("PermissionRequest", "Bash|apply_patch"));
    expect(await now()).toBe(true);
    put(json, hooks("PermissionRequest", "mcp__hcp__ledger__transfer"));
    expect(await now()).toBe(false);
    put(json, "{}");
    const toml = join(s.home, ".codex", "config.toml");
    put(toml, '[[hooks.PermissionRequest]]\nmatcher = "Bash"\n');
    expect(await now()).toBe(true);
    put(toml, '[[hooks.PermissionRequest]]\nmatcher = "mcp__.*"\n');
    expect(await now()).toBe(false);
  });
});

describe("Qwen Code: PermissionRequest hooks", () => {
  it("a PermissionRequest hook for the tool: not in force; PreToolUse (it cannot allow), or for other tools: in force", async () => {
    const { s, sys, now } = await adopted("qwen");
    const user = join(s.home, ".qwen", "settings.json");
    put(user, hooks("PreToolUse", "*"));
    expect(await now()).toBe(true);
    put(user, hooks("PermissionRequest", "^run_shell_command$"));
    expect(await now()).toBe(true);
    for (const m of [".*", "hcp", "mcp__hcp__.*|Bash"]) {
      put(user, hooks("PermissionRequest", m));
      expect(await now(), m).toBe(false);
    }
    put(user, "{}");
    put(join(sys, "etc", "qwen-code", "system-defaults.json"), hooks("PermissionRequest"));
    expect(await now()).toBe(false);
  });
});

describe("gate.hooks in a descriptor", () => {
  it("paths do not go up; names and split are regular expressions; the name names the tool", () => {
    const d = (h: unknown) => ({ gate: { model: "m", hooks: [h] } }) as unknown as Descriptor;
    const ok = {
      path: ["a.json"],
      format: "json",
      key: ["hooks"],
      events: ["E"],
      name: "mcp__{server}__{tool}",
      what: "w",
    };
    expect(() => checkHooks(d(ok), "x")).not.toThrow();
    expect(() => checkHooks(d({ ...ok, path: ["../a.json"] }), "x")).toThrow(/must not go up/);
    expect(() => checkHooks(d({ ...ok, names: "[" }), "x")).toThrow(/not a regular expression/);
    expect(() => checkHooks(d({ ...ok, name: "mcp__hcp" }), "x")).toThrow(/\{tool\}/);
  });
});
