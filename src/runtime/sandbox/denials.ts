// What a confined program's failure says the sandbox denied (index.ts explainDenial), as far as its
// messages tell: bubblewrap keeps no log, so the program's own lines are read (a write to a read-only
// mount, a hidden path, the network, the host's /tmp, a unix socket under the seccomp filter).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "../../util/paths";
import { ownFolderOf, type BwrapPlan } from "./bwrap";

const EROFS = /read-only file system|\bEROFS\b/i;
const EACCES = /permission denied|\bEACCES\b|\bEPERM\b|operation not permitted/i;
const NET =
  /network is unreachable|\bENETUNREACH\b|connection refused|\bECONNREFUSED\b|\bEAI_AGAIN\b|\bENOTFOUND\b|temporary failure in name resolution|name or service not known|could not resolve host/i;
const ENOENT = /no such file or directory|\bENOENT\b/i;
/**
 * connect() to a unix socket, refused by the seccomp filter (socket(AF_UNIX) fails: EACCES): Node says
 * `connect EACCES <path>`; a socketpair() of datagrams, refused too: `socketpair: Permission denied`
 */
const UNIX_DENIED = /\bconnect EACCES (\/\S+)|\bsocket(?:pair)?\b.*(?:EACCES|permission denied)/i;
const QUOTED_PATH = /['"\u2018`](\/[^'"\u2019`\n]*)['"\u2019`]/;

/** A path of the host's /tmp or /dev/shm the call does not see (its own are empty): the host has it, the sandbox does not show it. */
function hiddenTmp(path: string, plan: Pick<BwrapPlan, "rebind" | "writable">): boolean {
  const root = ownFolderOf(path);
  if (root === undefined) return false;
  if ([...plan.rebind, ...plan.writable].some((p) => isInside(path, p))) return false;
  // the first component under it exists on the host: the program reached for something outside its private one
  const top = join(root, path.slice(root.length + 1).split("/")[0]!);
  return existsSync(top);
}

export interface Denial {
  /** what the call tried that its Policy row does not allow ("tmp": a path of the host's /tmp or /dev/shm, which the call's own do not show) */
  what: "write" | "read" | "network" | "tmp" | "unix socket";
  /** the path, when the program's message names one */
  path?: string;
  /** the program's own line that says so */
  line: string;
}

/** The denials a failed program's output shows, as far as its messages tell (bubblewrap keeps no log). */
export function denialsIn(
  text: string,
  plan: Pick<BwrapPlan, "masks" | "network" | "rebind" | "writable" | "noUnixSockets">,
): Denial[] {
  const out: Denial[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const path = QUOTED_PATH.exec(line)?.[1];
    if (EROFS.test(line)) out.push({ what: "write", ...(path ? { path } : {}), line });
    else if (!plan.network && NET.test(line)) out.push({ what: "network", line });
    else if (EACCES.test(line) && plan.masks.some((m) => line.includes(m.path)))
      out.push({ what: "read", path: path ?? plan.masks.find((m) => line.includes(m.path))!.path, line });
    else if (path && ENOENT.test(line) && plan.masks.some((m) => isInside(path, m.path)))
      out.push({ what: "read", path, line });
    else if (path && ENOENT.test(line) && hiddenTmp(path, plan)) out.push({ what: "tmp", path, line });
    else if (plan.noUnixSockets) {
      const m = UNIX_DENIED.exec(line);
      if (m) out.push({ what: "unix socket", ...(m[1] ? { path: m[1] } : {}), line });
    }
  }
  // one per kind and path (a stack trace repeats its message); a line without a path only when its kind has none
  const seen = new Set<string>();
  return out.filter((d) => {
    if (!d.path && out.some((o) => o.what === d.what && o.path)) return false;
    const k = `${d.what}\0${d.path ?? ""}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
