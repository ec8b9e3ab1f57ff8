// Planted files (issue 22 §2): a file a repository can commit where hcpx
// reads one back — the adopt lock, the ledger, a host's config file read by
// `import`, hcp.lock — made a symlink to a device or a FIFO. Every such file
// is read through the one bounded reader (src/util/readfile.ts): a clear
// error naming the file, quickly, never a hang or a read without end.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { envelope, runHcpx, scratchProject, type RunResult } from "../../support/hcpx";

const haveMkfifo = spawnSync("mkfifo", ["--version"]).status === 0;

type Plant = "dev-zero" | "fifo";
function plant(path: string, how: Plant): void {
  rmSync(path, { force: true, recursive: true });
  if (how === "dev-zero") symlinkSync("/dev/zero", path);
  else {
    const r = spawnSync("mkfifo", [path]);
    if (r.status !== 0) throw new Error(`mkfifo failed: ${r.stderr}`);
  }
}

/** A --json run refused at once: exit 1, no stack, an error (or one of its problems) of `code` naming `file`; that error. */
function expectClearError(r: RunResult, file: RegExp, code = "not_a_file"): { code: string; message: string } {
  expect(r.signal, "killed by the test's timeout: it hung").toBeNull();
  expect(r.code, r.stdout + r.stderr).toBe(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const { error } = envelope(r);
  const all: { code: string; message: string; file?: unknown }[] = [error, ...(error.problems ?? [])];
  const named = all.find((e) => e.code === code && file.test(String(e.file)));
  expect(named, r.stdout).toBeDefined();
  return named!;
}

/** What a read through the bounded reader says of a planted file: a symlink (to /dev/zero) is refused as one where hcpx does not follow links. */
const notAFile = (how: Plant) => (how === "dev-zero" ? "symlink_refused" : "not_a_file");

const hows: Plant[] = haveMkfifo ? ["dev-zero", "fifo"] : ["dev-zero"];

describe("a planted file that is a device or a FIFO: a clear error, never a hang", () => {
  it.each(hows)("the adopt lock (.hcp/adopt.lock) as %s: adopt --write answers at once", async (how) => {
    const p = scratchProject({ ownHome: true });
    mkdirSync(join(p.dir, ".hcp"), { recursive: true });
    plant(join(p.dir, ".hcp", "adopt.lock"), how);
    const r = await runHcpx(["adopt", "claude", "--write", "--json"], { cwd: p.dir, env: p.env, timeoutMs: 10_000 });
    expect(expectClearError(r, /adopt\.lock$/, "bad_lock_file").message).toMatch(/lock file/);
  });

  it.each(hows)("a config's edit lock (.hcp.config.json5.lock) as %s: grant answers at once", async (how) => {
    const p = scratchProject({ ownHome: true });
    plant(join(p.dir, ".hcp.config.json5.lock"), how);
    const r = await runHcpx(["grant", "x.y", "--json"], { cwd: p.dir, env: p.env, timeoutMs: 10_000 });
    expectClearError(r, /hcp\.config\.json5\.lock$/, "bad_lock_file");
  });

  it.each(hows)("the adopt ledger (.hcp/adopted.json) as %s: adopt answers at once", async (how) => {
    const p = scratchProject({ ownHome: true });
    mkdirSync(join(p.dir, ".hcp"), { recursive: true });
    plant(join(p.dir, ".hcp", "adopted.json"), how);
    const r = await runHcpx(["adopt", "claude", "--write", "--json"], { cwd: p.dir, env: p.env, timeoutMs: 10_000 });
    expectClearError(r, /adopted\.json$/, notAFile(how));
  });

  it.each(hows)("a host's config file read by import (.mcp.json) as %s: import answers at once", async (how) => {
    const p = scratchProject({ ownHome: true });
    plant(join(p.dir, ".mcp.json"), how);
    const r = await runHcpx(["import", "claude", "--json"], { cwd: p.dir, env: p.env, timeoutMs: 10_000 });
    expectClearError(r, /\.mcp\.json$/);
  });

  it.each(hows)("hcp.lock as %s: pack install answers at once", async (how) => {
    const p = scratchProject({ ownHome: true });
    plant(join(p.dir, "hcp.lock"), how);
    const r = await runHcpx(["pack", "install", "--json"], { cwd: p.dir, env: p.env, timeoutMs: 10_000 });
    expectClearError(r, /hcp\.lock$/, notAFile(how));
  });
});
