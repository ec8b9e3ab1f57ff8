// The front's per-call project (view-cache.ts currentProject) finds the config
// as hcpx's upward search does, with one stat where the search looks first
// (the cwd's own hcp.config.json5) serving both the search and the stamp: a
// config that appears in the cwd, or goes from it, is seen at the very next
// call, whether the files are fresh or aged past the racy rule.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { McpFront } from "../../src/mcp/front";
import { RACY_MS } from "../../src/util/stamp";

const root = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-config-search-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = (dir: string, id: string) =>
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({ packs: [], principal: { id, kind: "agent" }, grants: { allow: [] } }),
  );

describe("hcpx mcp: the config search per call", () => {
  it("a config that appears in the cwd or goes from it is the next call's, fresh or aged", async () => {
    // no user config: the file's scratch HOME has none (test/support/env.ts: no XDG_CONFIG_HOME either)
    const sub = join(root, "project", "sub");
    mkdirSync(sub, { recursive: true });
    config(join(root, "project"), "above");
    config(sub, "near");
    const f = new McpFront({ shape: "single", cwd: sub, audit: () => {} });
    expect(f.currentProject().configFile).toBe(join(sub, "hcp.config.json5"));
    await new Promise((r) => setTimeout(r, RACY_MS + 200));
    // aged: kept by its stamp
    const kept = f.currentProject();
    expect(kept.configFile).toBe(join(sub, "hcp.config.json5"));
    expect(f.currentProject()).toBe(kept);
    // gone from the cwd: the one above, at the next call, and kept by its stamp (it is aged)
    rmSync(join(sub, "hcp.config.json5"));
    const above = f.currentProject();
    expect(above.configFile).toBe(join(root, "project", "hcp.config.json5"));
    expect(f.currentProject()).toBe(above);
    // an edit of the one above: the next call's (its stamp is what vouches for it now)
    config(join(root, "project"), "above-edited");
    expect(f.currentProject().principal.id).toBe("above-edited");
    // back in the cwd: the next call's
    config(sub, "near-again");
    expect(f.currentProject().configFile).toBe(join(sub, "hcp.config.json5"));
    expect(f.currentProject().principal.id).toBe("near-again");
  }, 20_000);
});
