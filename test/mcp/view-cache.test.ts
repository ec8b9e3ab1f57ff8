// `hcpx mcp` serves the view it built while no file it was built from has
// changed (a stat of each), and any change — even one that keeps the file's
// size — is seen by the very next request, without waiting for a file watch.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerProject, startMcp, writeConfig, type Ledgered, type McpSession } from "./support";

describe("hcpx mcp view cache", () => {
  let p: Ledgered;
  let s: McpSession;
  beforeAll(async () => {
    p = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
    s = await startMcp(p, { args: ["--no-watch"] });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("a same-size edit of a Skill is served on the next request", async () => {
    const file = join(p.dir, "packs", "transit", "SKILL.md");
    const before = readFileSync(file, "utf8");
    const read = async () =>
      ((await s.client.readResource({ uri: "skill://transit/SKILL.md" })).contents[0] as { text: string }).text;
    expect(await read()).toContain("# transit");
    const after = before.replace("# transit", "# TRANSIT");
    expect(after.length).toBe(before.length);
    writeFileSync(file, after);
    expect(await read()).toContain("# TRANSIT");
  });

  it("a revoke in the config takes the pack out of the next tools/list", async () => {
    const names = async () => (await s.client.listTools()).tools.find((t) => t.name === "hcp")!.description!;
    expect(await names()).toContain("- transit:");
    writeConfig(join(p.dir, "hcp.config.json5"), {
      packs: ["./packs/ledger", "./packs/transit"],
      principal: { id: "test", kind: "agent" },
      grants: { allow: ["ledger.*"] },
      sandbox: { roots: ["."], cwd: "." },
    });
    expect(await names()).not.toContain("- transit:");
  });
});
