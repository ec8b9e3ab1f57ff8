// One reader of the adopt ledger (src/host/ledger-state.ts readLedger) for adopt's
// planner, doctor's adopted check and host detection: the same trust rules for
// all three. A ledger over its cap (4 MiB, docs/files.md) is refused by adopt as
// by doctor; a project's `.hcp` that a symlink leads out of the project is read
// by none of them.
import { describe, expect, it } from "vitest";
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { envelope, tmp } from "../support/hcpx";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";
import { readAdopted } from "../../src/config/adopted";
import { readLedgerQuiet } from "../../src/host/detect";
import { CAPS } from "../../src/util/readfile";

const scratch = () => inProcess(scratchChild());

/** The project-scope findings of doctor's adopted check (the user's own ledger is not this test's). */
function projectAdopted(root: string) {
  const r = readAdopted(root);
  return {
    hosts: r.hosts.filter((h) => h.scope === "project").map((h) => h.host),
    errors: r.errors.filter((e) => e.file.includes(".hcp")),
  };
}

describe("one ledger reader: adopt, doctor and host detection read a ledger alike", () => {
  it("a ledger over the ledger's cap: adopt refuses it (file_too_large, naming the file), as doctor's check does", async () => {
    const s = scratch();
    mkdirSync(join(s.dir, ".hcp"), { recursive: true });
    const big = JSON.stringify({ version: 1, hosts: {}, pad: "x".repeat(CAPS.ledger) });
    writeFileSync(join(s.dir, ".hcp", "adopted.json"), big);
    const r = await s.adopt("claude", "--write", "--json");
    expect(r.code, r.stdout).toBe(1);
    const env = envelope<never>(r);
    expect(env.ok).toBe(false);
    expect(env.error).toMatchObject({ code: "file_too_large", file: ".hcp/adopted.json" });
    const doctor = projectAdopted(s.dir);
    expect(doctor.hosts).toEqual([]);
    expect(doctor.errors).toEqual([
      {
        file: expect.stringMatching(/\.hcp\/adopted\.json$/),
        message: expect.stringMatching(/more than the 4194304 bytes/),
      },
    ]);
    expect(readLedgerQuiet(join(s.dir, ".hcp", "adopted.json"), "project", s.dir)).toBeUndefined();
  });

  it("`.hcp` a symlink out of the project: doctor and detection name or skip it, never read the ledger it leads to", async () => {
    const s = scratch();
    const a = await s.adopt("claude", "--write");
    expect(a.code, a.stderr).toBe(0);
    expect(projectAdopted(s.dir)).toEqual({ hosts: ["claude"], errors: [] });
    const away = join(tmp("hcpx-ledger-away-"), "hcp");
    renameSync(join(s.dir, ".hcp"), away);
    symlinkSync(away, join(s.dir, ".hcp"));
    const r = await s.adopt("claude", "--check", "--json");
    expect(r.code, r.stdout).toBe(1);
    expect(envelope<never>(r).error.code).toBe("symlink_refused");
    const doctor = projectAdopted(s.dir);
    expect(doctor.hosts).toEqual([]);
    expect(doctor.errors).toEqual([
      { file: expect.stringMatching(/\.hcp\/adopted\.json$/), message: expect.stringMatching(/^the adopt ledger /) },
    ]);
    expect(readLedgerQuiet(join(s.dir, ".hcp", "adopted.json"), "project", s.dir)).toBeUndefined();
  });
});
