// Issue 26: the newcomer walk, as an automated test. A project of one's own
// (its own CLAUDE.md and .mcp.json), the README's "Use it on your own project"
// commands as written (init → pack new → activate → adopt two hosts → use),
// what the README promises is there, and removal gives every file back byte
// for byte. The hosts' own programs listing the server: test/hosts/e2e/newcomer.test.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { snapshot } from "../support/snapshot";
import { newcomerWalk, OWN_CLAUDE_MD } from "../support/newcomer";

describe("the newcomer walk (README quick start on one's own project)", () => {
  it(
    "runs as written; adopts two hosts next to the project's own files; --remove gives them back byte for byte",
    { timeout: 120_000 },
    async () => {
      const w = await newcomerWalk();
      // used: the command ran git for real
      const exec = Object.entries(w.outputs).find(([c]) => c.startsWith("hcpx exec "));
      expect(exec?.[1]).toMatch(/^## /m);
      // the preview showed the diff people will see, and wrote nothing
      const preview = Object.entries(w.outputs).find(([c]) => /^hcpx adopt /.test(c) && !c.includes("--write"));
      expect(preview?.[1]).toContain("+++ b/CLAUDE.md");
      expect(preview?.[1]).toContain("+<!-- hcp:begin -->");
      // the project's own files kept, hcpx's parts added
      const claude = readFileSync(join(w.dir, "CLAUDE.md"), "utf8");
      expect(claude.startsWith(OWN_CLAUDE_MD)).toBe(true);
      expect(claude).toContain("### gitx");
      const mcp = JSON.parse(readFileSync(join(w.dir, ".mcp.json"), "utf8")).mcpServers;
      expect(Object.keys(mcp).sort()).toEqual(["hcp", "other"]);
      expect(mcp.hcp).toEqual({
        type: "stdio",
        command: "hcpx",
        args: ["mcp", "--shape", "per-command", "--client-host", "claude"],
      });
      expect(JSON.parse(readFileSync(join(w.dir, ".cursor/mcp.json"), "utf8")).mcpServers.hcp).toEqual({
        command: "hcpx",
        args: ["mcp", "--shape", "per-command"],
      });
      // both adopted hosts in sync
      const hosts = /^hcpx adopt (.*?) --write$/m.exec(Object.keys(w.outputs).join("\n"))![1]!;
      expect(hosts.split(" ")).toHaveLength(2);
      expect((await w.sh(`hcpx adopt ${hosts} --check`)).code).toBe(0);
      // removal: byte for byte what was there before the first --write
      const rm = await w.sh(`hcpx adopt ${hosts} --remove --write`);
      expect(rm.code, rm.stderr + rm.stdout).toBe(0);
      expect(snapshot(w.dir)).toEqual(w.before.project);
      // HOME: adopt wrote nothing there (hcpx exec's V8 code cache, ~/.cache/hcpx, is no adopt file)
      // caches, and the audit log of the calls the walk made (a record, not a setting: docs/audit.md)
      const noCache = (rel: string) =>
        rel === ".cache" ||
        rel.startsWith(".cache/") ||
        [".local", ".local/state", ".local/state/hcpx"].includes(rel) ||
        rel.startsWith(".local/state/hcpx/");
      const strip = (s: Record<string, string>) => Object.fromEntries(Object.entries(s).filter(([k]) => !noCache(k)));
      expect(snapshot(w.home, { skip: noCache })).toEqual(strip(w.before.home));
    },
  );
});
