// Issue 29: `hcpx mcp` on stdio takes the packs' validated files from the
// validation cache (as hcpx exec does), so a start does not parse and
// validate every pack again. A pack edited since — even to the same size —
// is read and validated again: an edit that breaks it is refused, not served
// from the cache.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ledgerProject, startMcp } from "./support";

describe("hcpx mcp start: the validation cache", () => {
  it("a pack broken after a start that filled the cache is broken at the next start", async () => {
    const p = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
    const first = await startMcp(p, { args: ["--no-watch"] });
    expect((await first.client.listTools()).tools.find((t) => t.name === "hcp")!.description).toContain("- transit:");
    await first.close();
    // the start filled the cache (surface.json and policy.json of each pack)
    expect(readdirSync(join(p.home, ".cache", "hcpx", "validated")).length).toBeGreaterThanOrEqual(4);
    const file = join(p.dir, "packs", "transit", "policy.json");
    const text = readFileSync(file, "utf8");
    // same size: "read" → "reed" is no operation
    const bad = text.replace('"read"', '"reed"');
    expect(bad.length).toBe(text.length);
    expect(bad).not.toBe(text);
    writeFileSync(file, bad);
    const second = await startMcp(p, { args: ["--no-watch"] });
    const hcp = (await second.client.listTools()).tools.find((t) => t.name === "hcp")!.description!;
    expect(hcp).not.toContain("- transit:");
    expect(hcp).toContain("Not served, broken");
    await second.close();
  });
});
