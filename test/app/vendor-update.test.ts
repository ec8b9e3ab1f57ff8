// The `pack update` use case (src/app/vendor-update.ts) without the CLI: it yields each pack's review and
// takes the person's answer back; after a yes, what lands is what was reviewed, or nothing does.
import { cpSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { vendorAdd } from "../../src/app/vendor-add";
import { vendorUpdate } from "../../src/app/vendor-update";
import { HcpxError } from "../../src/util/errors";
import { releaseHeld } from "../../src/util/held";
import { REPO, tmp } from "../support/hcpx";
import { fileBytes as tree } from "../support/tree";

const FIX = join(REPO, "test/fixtures/remote-pack");

// vendoring edits the config and hcp.lock under their locks, held until the command is done: each step here is one
afterEach(() => releaseHeld());

describe("vendorUpdate", () => {
  it("a staged file changed between the review and the yes: refused by name, nothing swapped in or locked", async () => {
    const dir = tmp("hcpx-app-update-");
    const config = join(dir, "hcp.config.json5");
    writeFileSync(config, "{ packs: [], grants: { allow: [] } }\n");
    const src = join(dir, "vendor-src");
    cpSync(join(FIX, "v1"), src, { recursive: true });
    const add = vendorAdd(src, { config });
    await add.next();
    expect((await add.next(true)).done).toBe(true);
    releaseHeld();
    const target = join(dir, ".hcp", "packs", "greet");
    const vendored = tree(target);
    const lock = readFileSync(join(dir, "hcp.lock"), "utf8");

    cpSync(join(FIX, "v2"), src, { recursive: true });
    const update = vendorUpdate("greet", { config });
    const review = update.next();
    expect(review.done).toBe(false);
    const staging = readdirSync(join(dir, ".hcp", "packs")).filter((n) => n.startsWith(".staging-"));
    expect(staging).toHaveLength(1);
    // what the person said yes to is not what is staged any more
    writeFileSync(join(dir, ".hcp", "packs", staging[0]!, "bin", "greet.mjs"), "process.stdout.write('{}')\n");
    let err: unknown;
    try {
      update.next(true);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HcpxError);
    const p = (err as HcpxError).problems[0]!;
    expect(p.code).toBe("changed_during_plan");
    expect(p.message).toMatch(/bin\/greet\.mjs \(changed\)/);
    expect(tree(target)).toEqual(vendored);
    expect(readFileSync(join(dir, "hcp.lock"), "utf8")).toBe(lock);
    expect(readdirSync(join(dir, ".hcp", "packs"))).toEqual(["greet"]);
  });
});
