// The validation cache (src/pack/validcache.ts) keys a file on its identity, but a hit also needs the file's
// text, read now, to be the text the value came from: an identity does not vouch for content everywhere. Here
// the case a local disk shows: a write through a shared mapping (mmap) changes no time of the file once its page
// is dirty (the kernel updates them at the page's first write fault), so a grant taken back that way left the
// config's identity as it was, and exec went on by the remembered grant (found in review, stop 63; sshfs, whose
// ctime is its mtime, and an NFS client's cached stat are the same case). python3's mmap makes the write.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { identityParts } from "../support/identity";
import { describe, expect, it } from "vitest";
import { runHcpx, scratchProject, tmp } from "../support/hcpx";
import { RACY_MS } from "../../src/util/stamp";

const HAS_PYTHON = spawnSync("python3", ["-c", "import mmap"]).status === 0;

// maps the file, dirties its page with a write of the same byte, says "ready"; on a line in, writes `to` over the
// first `from` in place through the mapping, flushes it, says "done"
const MMAP_EDIT = `
import mmap, sys
path, old, new = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode()
f = open(path, "r+b"); m = mmap.mmap(f.fileno(), 0); i = m.find(old)
m[i:i + 1] = old[:1]
print("ready", flush=True); sys.stdin.readline()
m[i:i + len(new)] = new
m.flush(); m.close(); f.close()
print("done", flush=True)
`;

describe("validation cache: content, not only identity", () => {
  it.skipIf(!HAS_PYTHON && !process.env.CI)(
    "a grant taken back through a shared mapping (the config's identity unchanged) is refused at the next exec",
    async () => {
      expect(HAS_PYTHON, "python3 (with mmap) is not installed").toBe(true);
      const p = scratchProject({ packs: ["calc-wrap"], allow: ["calc-wrap.*"] });
      const env = { HOME: tmp("hcpx-vc-home-") };
      const py = spawn("python3", ["-c", MMAP_EDIT, p.config, "calc-wrap.*", "calc-wrap.x"], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      const lines: string[] = [];
      py.stdout.setEncoding("utf8").on("data", (d: string) => lines.push(...d.split("\n").filter(Boolean)));
      const said = async (word: string) => {
        for (let i = 0; i < 200 && !lines.includes(word); i++) await new Promise((r) => setTimeout(r, 25));
        expect(lines).toContain(word);
      };
      try {
        await said("ready");
        await new Promise((r) => setTimeout(r, RACY_MS + 200)); // settled: its entry is written and vouched for
        const exec = async () =>
          JSON.parse((await runHcpx(["exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env })).stdout);
        expect(await exec()).toEqual({ ok: true, data: { pong: true } });
        const before = identityParts(p.config);
        py.stdin.write("go\n");
        await said("done");
        const after = identityParts(p.config);
        // the case itself: the text changed, every part of the identity did not
        expect(after).toEqual(before);
        const denied = await exec();
        expect(denied.ok).toBe(false);
        expect(denied.error.code).toBe("not_granted");
      } finally {
        py.stdin.end();
        if (py.exitCode === null) await once(py, "exit");
      }
    },
    RACY_MS + 20_000,
  );
});
