// A file's identity as the caches that go by it see it (src/util/stamp.ts, src/util/readfile.ts): for tests
// whose case is a file whose content changed while its identity did not (a write through a shared mapping, an
// sshfs edit with its mtime set back).
import { statSync } from "node:fs";

/** The parts of `file`'s identity a cache keys on (inode, size, mtime and ctime in ns). */
export function identityParts(file: string): bigint[] {
  const st = statSync(file, { bigint: true });
  return [st.ino, st.size, st.mtimeNs, st.ctimeNs];
}
