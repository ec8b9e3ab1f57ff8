// warm.mjs — vitest globalSetup of the host and agent suites: read the host programs'
// big files once, in sequence, before any test starts one.
//
// The hosts are native executables of 100–400 MB (Claude Code, Codex, Droid, Copilot,
// opencode, Kilo, Cline, Amp) and JS bundles of 5–35 MB. On a machine whose page cache
// does not hold them (a new CI machine, ~135 MB/s here after a cache drop), the first
// tests start a dozen of them at once and each pages its binary in at random: on such a
// machine `claude mcp list` produced no output in 60 s (CI, stop 37). One sequential
// read first costs ~15 s cold and ~1 s warm; the programs then start from memory.
//
// What is read: under HCPX_HOSTS_DIR, each regular file of 5 MB or more that is an
// executable or a .js/.mjs/.cjs bundle, once per inode (npm hard-links the platform
// packages), skipping builds for other systems (win32, darwin, arm64, x64 baseline).
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const MIN = 5 * 1024 * 1024;
const OTHER_SYSTEM = /win32|darwin|arm64|baseline/;
const BUNDLE = /\.(m|c)?js$/;

/** The files warm() reads: [{ path, size }], one per inode. */
export function warmList(dir) {
  const out = [];
  const seen = new Set();
  const walk = (d) => {
    let entries;
    try { entries = readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = join(d, e.name);
      if (OTHER_SYSTEM.test(e.name)) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const st = statSync(p, { throwIfNoEntry: false });
        if (!st || st.size < MIN || !((st.mode & 0o111) !== 0 || BUNDLE.test(e.name))) continue;
        const key = `${st.dev}:${st.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ path: p, size: st.size });
      }
    }
  };
  walk(dir);
  return out;
}

/** Read each file of warmList(dir) through; resolves { files, bytes, ms }. */
export function warm(dir) {
  const t0 = Date.now();
  const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
  let bytes = 0;
  const files = warmList(dir);
  for (const f of files) {
    let fd;
    try {
      fd = openSync(f.path, 'r');
      for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) bytes += n;
    } catch { /* a file that went away: nothing to warm */ } finally { if (fd !== undefined) closeSync(fd); }
  }
  return { files: files.length, bytes, ms: Date.now() - t0 };
}

export default function setup() {
  const dir = process.env.HCPX_HOSTS_DIR || join(homedir(), '.cache', 'hcpx-hosts');
  const r = warm(dir);
  process.stderr.write(`host programs: read ${r.files} files, ${(r.bytes / 1e6).toFixed(0)} MB, in ${(r.ms / 1000).toFixed(1)} s (page cache)\n`);
}
