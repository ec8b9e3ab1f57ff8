// A project on a network file system: sshfs (FUSE), serving a "remote" folder through sftp-server on this
// machine (no network: ssh_command runs the server itself). There a file's identity does not vouch for its
// content, and a change made on the remote side makes no inotify event here. Found in review (stop 63):
//   - sshfs's ctime is its mtime: a same-size edit whose mtime is set back (touch -d, cp -p, rsync -t) keeps
//     every part of the identity, and exec went on by the grant the validation cache remembered; it now compares
//     the file's bytes (src/pack/validcache.ts);
//   - hcpx mcp's watches stood in for the pack files' stat pass there, and an edit on the remote side never
//     reached tools/list or the Skills; on a file system that is not a local one they are not trusted
//     (src/mcp/watch-plan.ts).
// Mounted with the kernel's and sshfs's attribute caches off, so that a stat asks the remote side (as an NFS
// client's open does); skipped where sshfs or sftp-server is missing, and a failure in CI (.ci/run installs them).
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { identityParts } from "../../support/identity";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runHcpx, tmp } from "../../support/hcpx";
import { startMcp } from "../../mcp/support";
import { RACY_MS } from "../../../src/util/stamp";

const SFTP_SERVER = "/usr/lib/openssh/sftp-server";
const HAS_SSHFS =
  process.platform === "linux" &&
  spawnSync("sshfs", ["--version"]).status === 0 &&
  existsSync(SFTP_SERVER) &&
  existsSync("/dev/fuse");

describe.skipIf(!HAS_SSHFS && !process.env.CI)("a project on sshfs", () => {
  const root = tmp("hcpx-sshfs-");
  const remote = join(root, "remote");
  const mnt = join(root, "mnt");
  const home = tmp("hcpx-sshfs-home-");
  let mounted = false;
  let made = 0;

  beforeAll(() => {
    expect(HAS_SSHFS, "sshfs, openssh-sftp-server and /dev/fuse are needed (Debian: apt-get install sshfs)").toBe(true);
    mkdirSync(remote);
    mkdirSync(mnt);
    const ssh = join(root, "fake-ssh");
    writeFileSync(ssh, `#!/bin/sh\nexec ${SFTP_SERVER}\n`);
    chmodSync(ssh, 0o755);
    for (const d of ["packs", "bins"]) cpSync(join(REPO, d), join(remote, d), { recursive: true });
    writeFileSync(
      join(remote, "hcp.config.json5"),
      JSON.stringify({
        packs: ["./packs/calc-wrap", "./packs/transit"],
        principal: { id: "test", kind: "agent" },
        grants: { allow: ["calc-wrap.*", "transit.*"], deny: [] },
        sandbox: { roots: ["."], cwd: "." },
      }),
    );
    made = Date.now();
    const r = spawnSync(
      "sshfs",
      [`localhost:${remote}`, mnt, "-o", `ssh_command=${ssh},cache=no,attr_timeout=0,entry_timeout=0`],
      { encoding: "utf8" },
    );
    expect(r.status, r.stderr).toBe(0);
    mounted = true;
  });

  afterAll(() => {
    if (mounted && spawnSync("fusermount3", ["-u", mnt]).status !== 0) spawnSync("fusermount", ["-u", mnt]);
  });

  const settled = () => new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 200 - Date.now())));

  it("a grant taken back by a same-size edit whose mtime is set back is refused at the next exec", async () => {
    await settled();
    const exec = async () =>
      JSON.parse((await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: mnt, env: { HOME: home } })).stdout);
    expect(await exec()).toEqual({ ok: true, data: { pong: true } });
    expect(await exec()).toEqual({ ok: true, data: { pong: true } }); // the config remembered
    const config = join(mnt, "hcp.config.json5");
    const before = identityParts(config);
    const was = statSync(join(remote, "hcp.config.json5"));
    const text = readFileSync(join(remote, "hcp.config.json5"), "utf8");
    writeFileSync(join(remote, "hcp.config.json5"), text.replace('"calc-wrap.*"', '"calc-wrap.x"'));
    utimesSync(join(remote, "hcp.config.json5"), was.atime, was.mtime);
    // the case itself: as sshfs shows it, the file is the same one, unchanged
    const after = identityParts(config);
    expect(after).toEqual(before);
    const denied = await exec();
    expect(denied.ok).toBe(false);
    expect(denied.error.code).toBe("not_granted");
  });

  it("hcpx mcp, watching: a Skill edited on the remote side is served at the next read", async () => {
    await settled();
    const s = await startMcp({ dir: mnt, home });
    try {
      const skill = async () =>
        ((await s.client.readResource({ uri: "skill://transit/SKILL.md" })).contents[0] as { text: string }).text;
      expect(await skill()).toContain("# transit");
      await new Promise((r) => setTimeout(r, 500)); // the watches are set (and their trust decided)
      await s.client.listTools();
      const file = join(remote, "packs", "transit", "SKILL.md");
      writeFileSync(file, readFileSync(file, "utf8").replace("# transit", "# EDITED"));
      await new Promise((r) => setTimeout(r, 300));
      expect(await skill()).toContain("# EDITED");
    } finally {
      await s.close();
    }
  });
});
