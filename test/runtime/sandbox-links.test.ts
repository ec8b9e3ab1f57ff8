// The links on the way to a protected path (src/runtime/sandbox/links.ts): a bind mount keeps where a link
// leads read-only but cannot pin the link, so a write whose protected paths go through one in a writable
// root is refused. Here the walk itself on a scratch tree: every link met, those inside a link's target too.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tmp } from "../support/hcpx";
import { linksOn, refuseSwappableLinks } from "../../src/runtime/sandbox/links";

describe("linksOn", () => {
  it("names each link met resolving a path, in the real folder it lies in, those a target goes through too", () => {
    const d = tmp("hcpx-links-");
    mkdirSync(join(d, "real", "conf"), { recursive: true });
    writeFileSync(join(d, "real", "conf", "c.json5"), "{}\n");
    symlinkSync("real", join(d, "sub")); // a link inside the target of the next one
    mkdirSync(join(d, "p"));
    symlinkSync("../sub/conf/c.json5", join(d, "p", "hcp.config.json5"));
    expect(linksOn(join(d, "p", "hcp.config.json5"))).toEqual([
      { link: join(d, "p", "hcp.config.json5"), dir: join(d, "p") },
      { link: join(d, "sub"), dir: d },
    ]);
    expect(linksOn(join(d, "real", "conf", "c.json5"))).toEqual([]);
  });

  it("refuses a link in a writable root, not one outside the roots or inside a folder kept read-only", () => {
    const links = [{ link: "/p/packs/x/bin", dir: "/p/packs/x" }];
    expect(() => refuseSwappableLinks(links, ["/p"], [])).toThrow(/\/p\/packs\/x\/bin is a symbolic link/);
    expect(() => refuseSwappableLinks(links, ["/p"], ["/p/packs/x"])).not.toThrow();
    expect(() => refuseSwappableLinks(links, ["/q"], [])).not.toThrow();
  });
});
