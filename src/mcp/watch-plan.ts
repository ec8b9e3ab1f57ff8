// What `hcpx mcp` watches (watch.ts), and whether those watches may stand in
// for the pack files' stat pass on a request (view-cache.ts refresh()). A
// watch on a folder sees a change made through a name in that folder, nothing
// else; so they are trusted only when every change that would change the view
// goes through a watched name:
//   - each folder from the config's own folder down to a pack directory is
//     watched for the next one's name, the pack directory for the pack's
//     files: `packs` (or any folder between) renamed over, or a link to it
//     repointed, is an event one folder up, and the folders replaced are
//     watched anew (watch.ts: their inodes). Nothing above the config's
//     folder is: every request stats the config file by its path
//     (configStamp), and that folder replaced holds another config file
//     (another inode; a file moved in has a new ctime).
//   - a pack directory outside its config's folder (../shared/pack,
//     ~/packs/x): the folders above it lead up to $HOME or /, whose watches
//     would wake the server for any change there; not trusted (its directory
//     and parent are still watched, for the notifications).
//   - a symbolic link among the folders below the config's, or among a pack's
//     files: its target changes (edited in place, or a folder on its way
//     replaced) with no event where the link is; a pack file with another
//     hard link: edited through that name, the event is in that name's
//     folder. Not trusted either (seen(): lstat, once a sync).
//   - on Linux, a pack directory (or the config's folder) on a file system
//     whose changes made elsewhere make no inotify event here: anything but
//     the local ones below (NFS, sshfs and other FUSE, CIFS, 9p: another
//     machine's edit is seen only by a stat). Not trusted (seen(): statfs).
// Not trusted, every request stats the pack files, as with --no-watch (3
// stats a pack: ~1 ms at 100 packs).
import { lstatSync, statfsSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isInside, userConfigDir } from "../util/paths";

export interface WatchPlan {
  /** dir → the names in it whose change is watched */
  want: Map<string, Set<string>>;
  /** the folders watched for the packs: one's watch lost or set anew calls for a stat pass, one replaced is watched anew */
  packFolders: Set<string>;
  /** Whether these watches see every change of the packs' files (lstats: call it once their watches are set). */
  seen(): boolean;
}

/** See the file comment: the config, the user config, the server config (--http) and each pack's folders. */
export function watchPlan(
  configFile: string | undefined,
  serverFile: string | undefined,
  packDirs: readonly string[],
  packFiles: readonly string[],
): WatchPlan {
  const want = new Map<string, Set<string>>();
  const add = (dir: string, name: string) => {
    const had = want.get(dir);
    if (had) had.add(name);
    else want.set(dir, new Set([name]));
  };
  const user = userConfigDir();
  if (configFile) add(dirname(configFile), basename(configFile));
  add(user, "config.json5");
  if (serverFile) add(dirname(serverFile), basename(serverFile));
  // the packs are named in the project config, or in the user's (src/pack/load.ts: resolved in its folder)
  const bases = configFile ? [dirname(configFile), user] : [user];
  const packFolders = new Set<string>();
  const below = new Set<string>(); // the folders below a base, pack directories included
  let outside = false;
  for (const d of packDirs) {
    for (const f of packFiles) add(d, f);
    packFolders.add(d);
    const base = bases.find((b) => isInside(d, b));
    if (base === undefined) {
      outside = true;
      add(dirname(d), basename(d));
      packFolders.add(dirname(d));
      continue;
    }
    // up to the base, or to a folder whose way up is set already (the packs share `packs/`)
    for (let dir = d; dir !== base && !below.has(dir); dir = dirname(dir)) {
      below.add(dir);
      add(dirname(dir), basename(dir));
      packFolders.add(dirname(dir));
    }
  }
  const seen = () =>
    !outside &&
    [...below].every((d) => !isLink(d)) &&
    packDirs.every((d) => packFiles.every((f) => ownFile(join(d, f)))) &&
    [...(configFile ? [dirname(configFile)] : []), ...packDirs].every(localFs);
  return { want, packFolders, seen };
}

function isLink(path: string): boolean {
  const st = lstatOf(path);
  return st === null || st?.isSymbolicLink() === true;
}

/** Not a link, nor a file with another name (a missing file is made by a name in its folder). */
function ownFile(path: string): boolean {
  const st = lstatOf(path);
  return st === undefined || (st !== null && !st.isSymbolicLink() && !(st.isFile() && st.nlink > 1));
}

/** undefined: no such file; null: not known (ENOTDIR, EACCES…), taken as one the watches may miss. */
function lstatOf(path: string): Stats | undefined | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return null;
  }
}

/**
 * Linux's local file systems (statfs f_type), whose every change is made through this kernel and so makes
 * an inotify event: ext2/3/4, xfs, btrfs, tmpfs, overlayfs, zfs, f2fs, bcachefs, reiserfs, jfs, ramfs.
 */
const LOCAL_FS = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010, 0xca451a4e, 0x52654973, 0x3153464a,
  0x858458f6,
]);

/** Whether a watch on `dir` sees every change there (Linux: a local file system; elsewhere as before). */
function localFs(dir: string): boolean {
  if (process.platform !== "linux") return true;
  try {
    return LOCAL_FS.has(statfsSync(dir).type);
  } catch {
    return false;
  }
}
