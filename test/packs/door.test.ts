// The one write door (src/util/door.ts), seen from the pack commands: a
// repository that commits `.hcp/packs` (or `.hcp`) as a symlink to a folder
// beside the project must not make `pack install`, `pack add`, `pack update`
// or `pack remove` create, replace or delete anything in that folder.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runHcpx, tmp } from "../support/hcpx";
import { envelope } from "../cli/helpers";

const FIX = join(REPO, "test/fixtures/remote-pack");

/** A project in <parent>/p with the greet pack vendored from ./vendor-src, and <parent>/outside beside it. */
async function setup(): Promise<{ dir: string; outside: string }> {
  const parent = tmp("hcpx-door-");
  const dir = join(parent, "p");
  mkdirSync(dir);
  expect((await runHcpx(["init", "--yes"], { cwd: dir })).code).toBe(0);
  cpSync(join(FIX, "v1"), join(dir, "vendor-src"), { recursive: true });
  const r = await runHcpx(["pack", "add", "./vendor-src", "--yes", "--json"], { cwd: dir });
  expect(r.code, r.stderr).toBe(0);
  const outside = join(parent, "outside");
  mkdirSync(join(outside, "greet"), { recursive: true });
  writeFileSync(join(outside, "greet", "precious.txt"), "the user's own file\n");
  return { dir, outside };
}

/** Replace `.hcp/packs` with a committed symlink to the folder beside the project. */
function plantPacksLink(dir: string): void {
  rmSync(join(dir, ".hcp", "packs"), { recursive: true });
  symlinkSync("../../outside", join(dir, ".hcp", "packs"));
}

function untouched(outside: string): void {
  expect(readdirSync(outside)).toEqual(["greet"]);
  expect(readdirSync(join(outside, "greet"))).toEqual(["precious.txt"]);
  expect(readFileSync(join(outside, "greet", "precious.txt"), "utf8")).toBe("the user's own file\n");
}

describe("pack commands write only inside the project", () => {
  it("pack install through a .hcp/packs symlink leading outside: refused, the outside folder untouched", async () => {
    const { dir, outside } = await setup();
    plantPacksLink(dir);
    const r = await runHcpx(["pack", "install", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    expect(JSON.stringify(envelope(r).error)).toMatch(/\.hcp\/packs\/greet/);
    untouched(outside);
  });

  it("pack remove through a .hcp/packs symlink leading outside: refused, the outside folder not deleted", async () => {
    const { dir, outside } = await setup();
    plantPacksLink(dir);
    const r = await runHcpx(["pack", "remove", "greet", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    untouched(outside);
    // nothing else changed either: the lock still names the pack
    expect(JSON.parse(readFileSync(join(dir, "hcp.lock"), "utf8")).packs.greet).toBeDefined();
  });

  it("pack add through a .hcp symlink leading outside: refused, nothing staged outside", async () => {
    const { dir, outside } = await setup();
    rmSync(join(dir, ".hcp"), { recursive: true });
    rmSync(join(dir, "hcp.lock"));
    symlinkSync("../outside", join(dir, ".hcp"));
    const r = await runHcpx(["pack", "add", "./vendor-src", "--yes", "--force", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    untouched(outside);
  });

  it("pack remove of a pack folder that is itself a symlink removes the link, never what it points at", async () => {
    const { dir, outside } = await setup();
    rmSync(join(dir, ".hcp", "packs", "greet"), { recursive: true });
    symlinkSync(join(outside, "greet"), join(dir, ".hcp", "packs", "greet"));
    const r = await runHcpx(["pack", "remove", "greet", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(envelope(r).error.code).toBe("symlink_refused");
    untouched(outside);
  });

  it("a hcp.lock that is a symlink to a file outside is not replaced through the link", async () => {
    const { dir, outside } = await setup();
    const lockText = readFileSync(join(dir, "hcp.lock"), "utf8");
    writeFileSync(join(outside, "lock.json"), lockText);
    rmSync(join(dir, "hcp.lock"));
    symlinkSync(join(outside, "lock.json"), join(dir, "hcp.lock"));
    const r = await runHcpx(["pack", "remove", "greet", "--json"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(readFileSync(join(outside, "lock.json"), "utf8")).toBe(lockText);
    expect(existsSync(join(outside, "greet", "precious.txt"))).toBe(true);
  });
});
