// A protected path reached through a symbolic link (hcp.config.json5 -> conf/hcp.config.json5, .git/hooks ->
// ../githooks, packs/x -> a folder elsewhere): the sandbox binds where the link leads read-only (index.ts
// protectedIn), but a bind mount cannot pin the link itself, and a link in a writable folder can be removed and
// made again, or replaced by a file or folder of the write's own: the next call reads that config, git runs
// that hook folder. So a write whose protected paths go through such a link is not run (fail closed): the
// person replaces the link with what it points at, or moves it out of the roots. A link inside a folder that
// is itself kept read-only cannot be replaced, and a read changes nothing: neither is refused.
import { lstatSync, readlinkSync } from "node:fs";
import { dirname } from "node:path";
import { HcpxError } from "../../util/errors";
import { display, isInside } from "../../util/paths";

/** A link met on a path: where it is, and the real folder it lies in. */
export interface Link {
  link: string;
  dir: string;
}

/** Links followed at most on one path (the kernel's own limit is 40). */
const MAX_HOPS = 40;

/**
 * The links met resolving `p` (absolute) as the kernel does, those its targets go through included: one
 * lstat per part of the path. Asked only of a path whose real path is not itself (index.ts protectedIn).
 */
export function linksOn(p: string): Link[] {
  const out: Link[] = [];
  const todo = p.split("/").reverse();
  let dir = "/"; // always a real folder: what the parts so far resolve to
  while (todo.length) {
    const name = todo.pop()!;
    if (name === "" || name === ".") continue;
    if (name === "..") {
      dir = dirname(dir);
      continue;
    }
    const next = dir === "/" ? `/${name}` : `${dir}/${name}`;
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      return out; // not there (or not a folder): nothing further is reached through it
    }
    if (!isLink) {
      dir = next;
      continue;
    }
    out.push({ link: next, dir });
    if (out.length > MAX_HOPS) return out;
    const target = readlinkSync(next);
    if (target.startsWith("/")) dir = "/";
    todo.push(...target.split("/").reverse());
  }
  return out;
}

/**
 * Refuse (sandbox_unavailable) when one of `links` lies in a writable root, not inside a path bound read-only
 * (`protect`, real paths): a write could replace it.
 */
export function refuseSwappableLinks(links: readonly Link[], writable: readonly string[], protect: readonly string[]) {
  const bad = links.find((l) => writable.some((w) => isInside(l.dir, w)) && !protect.some((p) => isInside(l.dir, p)));
  if (bad === undefined) return;
  throw new HcpxError({
    code: "sandbox_unavailable",
    message: `${display(bad.link)} is a symbolic link in a writable root, on the way to what a write must not change (a config, a pack, git's hooks or config): the sandbox keeps where it leads read-only, but a write could replace the link itself`,
    hint: `replace the link with the file or folder it points at, or move it out of sandbox.roots (docs/sandbox.md)`,
  });
}
