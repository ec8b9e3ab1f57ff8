// Host e2e: a host home moved by an environment variable (descriptor `homes`). `hcpx adopt <host>
// --scope user --write` run with the variable writes where the host reads; the host's own program,
// run with the same variable, starts the user-scope server from there — and, without it, does not
// see it (the files are not in ~/.claude or ~/.codex at all).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { availability, hc, hostHome, makeWorld, removeAfterAll } from "./support";

const avail = availability();
const cleanup = removeAfterAll();
const USER = {
  "~/.config/hcp/config.json5": `{ packs: ["$P/packs/ledger"], grants: { allow: ["ledger.accounts", "ledger.balance", "ledger.entries"] }, sandbox: { roots: ["$P"], cwd: "$P" } }\n`,
};

describe("a host home moved by a variable, with the host's own program", () => {
  it.skipIf(!avail.has.claude)(
    "Claude Code: $CLAUDE_CONFIG_DIR/.claude.json's hcp-user connects; ~/.claude.json has none",
    async () => {
      const w = makeWorld(USER);
      cleanup(w.dir, w.home);
      const r = await w.hcpx(["adopt", "claude", "--scope", "user", "--write"], {
        CLAUDE_CONFIG_DIR: join(w.home, "claude-work"),
      });
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const h = cleanup(hostHome(w.home));
      const moved = await hc.claudeMcpList({ home: h, cwd: w.dir, env: { CLAUDE_CONFIG_DIR: join(h, "claude-work") } });
      expect(moved.servers.find((s) => s.name === "hcp-user")?.status, moved.raw.stdout + moved.raw.stderr).toBe(
        "connected",
      );
      const plain = await hc.claudeMcpList({ home: h, cwd: w.dir });
      expect(plain.servers.map((s) => s.name)).not.toContain("hcp-user");
    },
  );

  it.skipIf(!avail.has.codex)(
    "Codex: $CODEX_HOME/config.toml's hcp-user connects (its entry forwards CODEX_HOME)",
    async () => {
      const w = makeWorld(USER);
      cleanup(w.dir, w.home);
      mkdirSync(join(w.home, "codex-home"));
      const r = await w.hcpx(["adopt", "codex", "--scope", "user", "--write"], {
        CODEX_HOME: join(w.home, "codex-home"),
      });
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(w.read("~/codex-home/config.toml")).toMatch(/^env_vars = \[.*"CODEX_HOME"/m);
      const h = cleanup(hostHome(w.home));
      mkdirSync(join(h, "tmp"));
      // TMPDIR of its own: Codex refuses its helper links when CODEX_HOME is under the temp dir (test/agents/support.ts)
      const st = await hc.codexMcpServerStatus({
        home: h,
        cwd: w.dir,
        thread: false,
        env: { CODEX_HOME: join(h, "codex-home"), TMPDIR: join(h, "tmp") },
      });
      const s = st.servers.find((x) => x.name === "hcp-user");
      expect(s?.status, st.error ?? st.raw?.stderr).toBe("connected");
      expect(s?.tools).toContain("ledger__balance");
    },
  );
});
