// The host's approval and the managed / system settings a host reads from outside the person's files
// (descriptor `gate.inForce` paths and `gate.unread`, docs/confirm.md): Claude Code's managed settings
// (/etc/claude-code/managed-settings.json, managed-settings.d/, the server-managed ~/.claude/remote-settings.json),
// Codex's legacy managed config (/etc/codex/managed_config.toml), Gemini CLI's and Qwen Code's system
// settings and system defaults (and the variables that move them), Gemini CLI's admin policies. A mode
// there that skips the prompt, or a layer hcpx does not read, takes the host's prompt out of force.
// The decision is called in this process (src/host/approval.ts), with the system files below a scratch
// folder (`system`: a test's; `hcpx mcp` reads /): the real /etc is never written.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { widenedBySettings } from "../../src/host/health";
import { scratch as scratchChild } from "../adopt/helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce } from "../support/approval";
import { tmp } from "../support/project";

const scratch = () => inProcess(scratchChild());
type Scratch = ReturnType<typeof scratch>;

/** A scratch folder that stands for / (the system files below it). */
function systemRoot(s: Scratch): {
  root: string;
  put: (abs: string, text: string) => void;
  dir: (abs: string) => void;
} {
  const root = tmp("hcpx-sysroot-");
  void s;
  return {
    root,
    put: (abs, text) => {
      mkdirSync(dirname(join(root, abs)), { recursive: true });
      writeFileSync(join(root, abs), text);
    },
    dir: (abs) => mkdirSync(join(root, abs), { recursive: true }),
  };
}

/** Is the host's approval in force for the gated ledger.transfer (project scope), system files below `system`? */
const inForce = (host: string, s: Scratch, system: string, env: Record<string, string> = {}) =>
  approvalInForce(host, s, { system, env });

const mode = (m: string) => JSON.stringify({ permissions: { defaultMode: m } });

describe("Claude Code: its managed settings", () => {
  it("bypassPermissions or auto in /etc/claude-code/managed-settings.json: not in force, whatever the person's files say", async () => {
    const s = scratch();
    const sys = systemRoot(s);
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    expect(await inForce("claude", s, sys.root)).toBe(true);
    for (const m of ["bypassPermissions", "auto"]) {
      sys.put("/etc/claude-code/managed-settings.json", mode(m));
      expect(await inForce("claude", s, sys.root), m).toBe(false);
    }
    sys.put("/etc/claude-code/managed-settings.json", mode("default"));
    expect(await inForce("claude", s, sys.root)).toBe(true);
    // a managed document Claude Code may leave out (one it finds user-writable, not yet approved): the person's own mode still counts
    s.write(".claude/settings.local.json", mode("bypassPermissions"));
    expect(await inForce("claude", s, sys.root)).toBe(false);
  });

  it("a managed-settings.d folder, or the server-managed settings' cache: not in force (hcpx does not read them)", async () => {
    const s = scratch();
    const sys = systemRoot(s);
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    sys.dir("/etc/claude-code/managed-settings.d");
    expect(await inForce("claude", s, sys.root)).toBe(false);
    const t = scratch();
    expect((await t.adopt("claude", "--write")).code).toBe(0);
    mkdirSync(join(t.home, ".claude"), { recursive: true });
    writeFileSync(join(t.home, ".claude", "remote-settings.json"), "{}");
    expect(await inForce("claude", t, systemRoot(t).root)).toBe(false);
  });

  it("adopt --check and doctor's warning names the managed file", async () => {
    const s = scratch();
    const sys = systemRoot(s);
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    sys.put("/etc/claude-code/managed-settings.json", mode("bypassPermissions"));
    const w = await widenedBySettings(["claude"], {
      scope: "project",
      root: s.dir,
      home: s.home,
      env: {},
      system: sys.root,
    });
    expect(w.map((x) => x.file)).toContain("/etc/claude-code/managed-settings.json");
    expect(w.map((x) => x.message).join("\n")).toMatch(
      /managed-settings\.json: permissions\.defaultMode is "bypassPermissions"/,
    );
  });
});

describe("Codex: its legacy managed config", () => {
  it("/etc/codex/managed_config.toml, merged over every layer: not in force; the system config.toml (lowest) and requirements.toml: in force", async () => {
    const s = scratch();
    const sys = systemRoot(s);
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    expect(await inForce("codex", s, sys.root)).toBe(true);
    sys.put("/etc/codex/config.toml", 'approval_policy = "never"\n');
    sys.put("/etc/codex/requirements.toml", 'allowed_approval_policies = ["on-request"]\n');
    expect(await inForce("codex", s, sys.root)).toBe(true);
    sys.put("/etc/codex/managed_config.toml", '[mcp_servers.hcp.tools.ledger__transfer]\napproval_mode = "approve"\n');
    expect(await inForce("codex", s, sys.root)).toBe(false);
    const w = await widenedBySettings(["codex"], {
      scope: "project",
      root: s.dir,
      home: s.home,
      env: {},
      system: sys.root,
    });
    expect(w.find((x) => x.code === "policy_widened")?.file).toBe("/etc/codex/managed_config.toml");
  });
});

describe("Gemini CLI: its system settings and admin policies", () => {
  it("system settings, system defaults, an admin policy folder, or a variable that moves them: not in force", async () => {
    const s = scratch();
    const sys = systemRoot(s);
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    expect(await inForce("gemini", s, sys.root)).toBe(true);
    for (const v of ["GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"])
      expect(await inForce("gemini", s, sys.root, { [v]: "/tmp/x.json" }), v).toBe(false);
    for (const f of ["/etc/gemini-cli/settings.json", "/etc/gemini-cli/system-defaults.json"]) {
      const one = systemRoot(s);
      one.put(f, "{}");
      expect(await inForce("gemini", s, one.root), f).toBe(false);
    }
    const pol = systemRoot(s);
    pol.dir("/etc/gemini-cli/policies");
    expect(await inForce("gemini", s, pol.root)).toBe(false);
  });
});

describe("Qwen Code: its system settings", () => {
  it("tools.approvalMode in the system settings wins over the project's; the system defaults' counts below the person's", async () => {
    const s = scratch();
    const sys = systemRoot(s);
    expect((await s.adopt("qwen", "--write")).code).toBe(0);
    expect(await inForce("qwen", s, sys.root)).toBe(true);
    const approval = (m: string) => JSON.stringify({ tools: { approvalMode: m } });
    for (const m of ["yolo", "auto"]) {
      sys.put("/etc/qwen-code/settings.json", approval(m));
      expect(await inForce("qwen", s, sys.root), m).toBe(false);
    }
    sys.put("/etc/qwen-code/settings.json", approval("default"));
    mkdirSync(join(s.home, ".qwen"), { recursive: true });
    writeFileSync(join(s.home, ".qwen", "settings.json"), approval("yolo"));
    expect(await inForce("qwen", s, sys.root)).toBe(true); // the system layer decides
    const d = systemRoot(s);
    d.put("/etc/qwen-code/system-defaults.json", approval("yolo"));
    writeFileSync(join(s.home, ".qwen", "settings.json"), "{}");
    expect(await inForce("qwen", s, d.root)).toBe(false);
    writeFileSync(join(s.home, ".qwen", "settings.json"), approval("default"));
    expect(await inForce("qwen", s, d.root)).toBe(true); // the person's own wins over the defaults
    for (const v of ["QWEN_CODE_SYSTEM_SETTINGS_PATH", "QWEN_CODE_SYSTEM_DEFAULTS_PATH"])
      expect(await inForce("qwen", s, d.root, { [v]: "/tmp/x.json" }), v).toBe(false);
  });
});
