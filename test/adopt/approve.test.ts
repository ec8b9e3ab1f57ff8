// Issue 26 §4: after `adopt claude --write` Claude Code lists the server as
// "Pending approval". An opt-in `--approve` writes the person's approval of the
// server into their own local settings file (descriptor data: a target marked
// `approval`, kept out of git), even where they keep no list yet; without it
// adopt says how and where to approve. Hosts whose approval lives where hcpx
// does not write it say so (their descriptor `gate.person`). Removal takes the
// approval out again, byte for byte.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listHosts, loadDescriptor } from "../../src/host/descriptor";
import { scratch as scratchChild, snapshot } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

describe("adopt --approve", () => {
  it(
    "without it: no approval written where the person keeps no list, and adopt says how to approve (--approve, the file)",
    { timeout: 60_000 },
    async () => {
      const s = scratch();
      const a = await s.adopt("claude", "--write");
      expect(a.code, a.stderr + a.stdout).toBe(0);
      expect(existsSync(join(s.dir, ".claude/settings.local.json"))).toBe(false);
      expect(a.stdout + a.stderr).toMatch(/--approve.*\.claude\/settings\.local\.json/);
    },
  );

  it(
    "with it: enabledMcpjsonServers gets hcp in .claude/settings.local.json (gitignored, the person's own); --check in sync; removal restores every byte",
    { timeout: 60_000 },
    async () => {
      const s = scratch();
      const before = snapshot(s.dir);
      const a = await s.adopt("claude", "--approve", "--write", "--json");
      expect(a.code, a.stderr + a.stdout).toBe(0);
      expect(JSON.parse(s.read(".claude/settings.local.json")).enabledMcpjsonServers).toEqual(["hcp"]);
      expect((await s.adopt("claude", "--approve", "--check")).code).toBe(0);
      // the person's own entries stay, and a second run adds nothing twice
      s.write(
        ".claude/settings.local.json",
        JSON.stringify({ enabledMcpjsonServers: ["theirs", "hcp"] }, null, 2) + "\n",
      );
      const again = await s.adopt("claude", "--approve", "--write");
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(s.read(".claude/settings.local.json")).enabledMcpjsonServers).toEqual(["theirs", "hcp"]);
      s.write(".claude/settings.local.json", JSON.stringify({ enabledMcpjsonServers: ["hcp"] }, null, 2) + "\n");
      const r = await s.adopt("claude", "--remove", "--write");
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(snapshot(s.dir)).toEqual(before);
    },
  );

  it(
    "a host whose approval hcpx does not write (Codex trust, Copilot trusted folders, Qwen approvals): --approve says where the person approves",
    { timeout: 60_000 },
    async () => {
      const s = scratch();
      const a = await s.adopt("codex", "copilot", "qwen", "--approve");
      expect(a.code, a.stderr + a.stdout).toBe(0);
      const text = a.stdout + a.stderr;
      expect(text).toMatch(/Codex: --approve: .*trust/);
      expect(text).toMatch(/GitHub Copilot CLI: --approve: .*trusted_folders/);
      expect(text).toMatch(/Qwen Code: --approve: .*qwen mcp approve/);
    },
  );

  it("--approve with --remove is a usage error", async () => {
    const s = scratch();
    const r = await s.adopt("claude", "--approve", "--remove", "--json");
    expect(r.code).toBe(64);
    expect(JSON.parse(r.stdout).error.code).toBe("bad_args");
  });

  it("descriptor data: an approval target is the person's own file (project scope: kept out of git), a list at a key", () => {
    const approvals = listHosts().flatMap((h) =>
      (["project", "user"] as const).flatMap((sc) =>
        (loadDescriptor(h).scopes[sc]?.targets ?? []).filter((t) => t.approval).map((t) => ({ h, sc, t })),
      ),
    );
    expect(approvals.map((x) => x.h)).toContain("claude");
    for (const { sc, t } of approvals) {
      expect(t.items).toBeDefined();
      if (sc === "project") expect(t.git).toBe("ignore");
    }
  });
});
