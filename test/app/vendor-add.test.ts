// The `pack add` use case (src/app/vendor-add.ts) without the CLI: it yields the
// review before anything is vendored and takes the person's answer back; a no
// leaves the project as it was, a yes vendors, locks and activates with the
// reads granted. `hcpx pack add` (test/packs/vendor.test.ts) is a thin caller.
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { vendorAdd } from "../../src/app/vendor-add";
import { releaseHeld } from "../../src/util/held";
import { REPO, tmp } from "../support/hcpx";

const V1 = join(REPO, "test/fixtures/remote-pack/v1");

function project(): { dir: string; config: string } {
  const dir = tmp("hcpx-app-add-");
  const config = join(dir, "hcp.config.json5");
  writeFileSync(config, "{ packs: [], grants: { allow: [] } }\n");
  cpSync(V1, join(dir, "vendor-src"), { recursive: true });
  return { dir, config };
}

// activation edits the config under its lock, held until the command is done: this test is the command
afterEach(() => releaseHeld());

describe("vendorAdd", () => {
  it("yields the review first; no: nothing vendored, nothing left; yes: vendored, locked, its reads granted", async () => {
    const p = project();
    const source = join(p.dir, "vendor-src");
    const refused = vendorAdd(source, { config: p.config });
    const review = await refused.next();
    expect(review.done).toBe(false);
    expect(review.value).toMatchObject({ id: "greet", target: join(p.dir, ".hcp", "packs", "greet") });
    expect(review.done ? [] : review.value.lines[0]).toMatch(/^pack 'greet' from path /);
    // the staged copy waits for the answer, outside the pack's folder
    expect(existsSync(join(p.dir, ".hcp", "packs", "greet"))).toBe(false);
    const no = await refused.next(false);
    expect(no.done && no.value.status).toBe("review_required");
    expect(readdirSync(join(p.dir, ".hcp", "packs"))).toEqual([]);
    expect(existsSync(join(p.dir, "hcp.lock"))).toBe(false);
    expect(readFileSync(p.config, "utf8")).toBe("{ packs: [], grants: { allow: [] } }\n");

    const accepted = vendorAdd(source, { config: p.config });
    await accepted.next();
    const yes = await accepted.next(true);
    expect(yes.done).toBe(true);
    const r = yes.value;
    if (!("status" in r) || r.status !== "added") throw new Error(`not added: ${JSON.stringify(r)}`);
    expect(r.id).toBe("greet");
    expect(Object.keys(r.files).length).toBeGreaterThan(0);
    expect(r.granted.length).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(p.dir, "hcp.lock"), "utf8")).packs.greet.files).toEqual(r.files);
    expect(readFileSync(p.config, "utf8")).toContain(".hcp/packs/greet");
  });
});
