// What hcpx itself last put in each vendored folder, so that `pack install` (and `pack update`, and
// `pack remove` before it deletes a folder) tell a hand edit from a lock change: `.hcp/vendored.json`,
// beside `.hcp/packs` (so it travels with a committed `.hcp/`, and stays local with an ignored one), the
// sha256 of every file of each pack's folder after a successful add, install, update or sweep. While a
// folder is being replaced it also holds the files of the folder being replaced (`replacing`), only
// those hcpx wrote there or hcp.lock records (their hash is hcp.lock's or one the record held): a run
// killed between the record's write and the swap leaves either version, and neither looks like a hand
// edit to the next install; a hand edit replaced by --force is never listed, so a replacement that did
// not finish (killed, or taken back with the old folder left aside) leaves it a hand edit, refused by the
// next install or update. A replacement taken back (a `pack add` that could not activate) puts the
// entry back as it was before, once the old folder and its hcp.lock entry are back.
// A file of a vendored folder is a hand edit when it is neither what hcpx last wrote there (any
// version the record holds) nor what hcp.lock records (restoring it loses nothing); a missing file is
// no loss. No record for a pack (a folder from an older hcpx, one from version control, a record that
// does not read): hcp.lock is the record, so only files the lock explains are replaced without --force.
// The record is untrusted: anything but the exact shape written here reads as no record, never a crash.
// Written only under hcp.lock's edit lock (src/packs/lock.ts openLock), through the door.
import { existsSync, lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import * as z from "zod/mini";
import { writeFile } from "../util/door";
import { readBytes } from "../util/readfile";
import { HcpxError, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { PACK_ID_RE } from "../pack/schema";
import { hashTree, packsRoot } from "../packs/lock";
import { safeRelPath } from "../packs/tar";

/** The record's name, relative to the project root. */
export const RECORD_NAME = ".hcp/vendored.json";

const Files = z.record(z.string(), z.string().check(z.regex(/^sha256-[A-Za-z0-9+/]{43}=$/)));
const EntrySchema = z.strictObject({ files: Files, replacing: z.optional(Files) });
const RecordSchema = z.strictObject({ recordVersion: z.literal(1), packs: z.record(z.string(), EntrySchema) });
export type RecordEntry = z.infer<typeof EntrySchema>;
type Written = z.infer<typeof RecordSchema>;

function recordFile(root: string): string {
  // `.hcp` (and `.hcp/packs`) that is a link is refused here as for the packs themselves
  return join(dirname(packsRoot(root)), "vendored.json");
}

/** The record, or undefined when there is none or it is not exactly what hcpx writes (no record). */
export function readRecord(root: string): Written | undefined {
  try {
    const file = recordFile(root);
    if (!existsSync(file)) return undefined;
    const v = RecordSchema.safeParse(
      JSON.parse(readBytes(file, display(file), 16 << 20, { noFollow: true }).toString("utf8")),
    );
    if (!v.success) return undefined;
    for (const [id, e] of Object.entries(v.data.packs)) {
      if (!PACK_ID_RE.test(id)) return undefined;
      for (const files of [e.files, e.replacing ?? {}])
        for (const f of Object.keys(files)) if (safeRelPath(f) !== f) return undefined;
    }
    return v.data;
  } catch {
    return undefined; // unreadable, not JSON, a link, `.hcp` a link: no record
  }
}

/**
 * Set (or, with `entry` undefined, drop) pack `id`'s entry; a record that does not read is started again.
 * `entry` may be made from the entry it replaces (`was`), read with the record once. Returns that entry
 * (undefined: none, or no record that reads).
 */
function setEntry(
  root: string,
  id: string,
  next: RecordEntry | undefined | ((was: RecordEntry | undefined) => RecordEntry | undefined),
): RecordEntry | undefined {
  const rec = readRecord(root) ?? { recordVersion: 1, packs: {} };
  const was = rec.packs[id];
  const entry = typeof next === "function" ? next(was) : next;
  const had = JSON.stringify(was);
  if (entry) rec.packs[id] = entry;
  else delete rec.packs[id];
  if (JSON.stringify(rec.packs[id]) === had && existsSync(recordFile(root))) return was;
  const packs: Written["packs"] = {};
  for (const k of Object.keys(rec.packs).sort()) packs[k] = rec.packs[k]!;
  writeFile({ dir: root }, recordFile(root), JSON.stringify({ recordVersion: 1, packs }, null, 2) + "\n");
  return was;
}

/** `m` lists file `f` (with hash `h`, when given). */
const has = (m: Record<string, string>, f: string, h?: string): boolean =>
  Object.hasOwn(m, f) && (h === undefined || m[f] === h);

/**
 * Before a folder is replaced: the new files, and (`replacing`) those of the folder's files as they are now
 * (when it reads) that hcpx wrote there or hcp.lock records: a file whose hash is `locked`'s (hcp.lock's entry
 * of the folder being replaced; undefined: none) or that of a version the record's entry holds. A hand edit
 * being replaced (--force) is left out, so that a replacement that does not finish leaves it a hand edit.
 * `look`: what lookAt just found there (its hashes, not read again); without it the folder is hashed here.
 * Returns the entry this replaced (undefined: none), for recordTakenBack.
 */
export function recordReplacing(
  root: string,
  id: string,
  files: Record<string, string>,
  target: string,
  locked: Record<string, string> | undefined,
  look?: FolderLook,
): RecordEntry | undefined {
  let now: Record<string, string> | undefined = look?.now;
  if (!look)
    try {
      now = existsSync(target) ? hashTree(target) : undefined;
    } catch (e) {
      if (!(e instanceof HcpxError)) throw e;
    }
  return setEntry(root, id, (was) => {
    const known = [locked ?? {}, ...(was ? [was.files, was.replacing ?? {}] : [])];
    const ours = ([f, h]: [string, string]) => known.some((k) => has(k, f, h));
    const replacing = Object.fromEntries(Object.entries(now ?? {}).filter(ours));
    return { files, ...(Object.keys(replacing).length ? { replacing } : {}) };
  });
}

/**
 * After a replacement was taken back (the folder that was there is back, or none): the entry as it was
 * before recordReplacing (`was`, what it returned). Not the folder's files: a folder hcpx has no record
 * of writing (or one edited by hand) is not made hcpx's own by an add that did not happen. Only once the
 * folder is back: until then the entry recordReplacing wrote accounts for either version.
 */
export function recordTakenBack(root: string, id: string, was: RecordEntry | undefined): void {
  setEntry(root, id, was);
}

/** After a folder was written (or found to be exactly what hcp.lock records): its files. */
export function recordWritten(root: string, id: string, files: Record<string, string>): void {
  setEntry(root, id, { files });
}

/** After a pack's folder was removed. */
export function forgetWritten(root: string, id: string): void {
  if (readRecord(root)?.packs[id]) setEntry(root, id, undefined);
}

/**
 * What a vendored folder holds against hcp.lock (`locked`) and the record (`rec`); see the top of this file.
 * `now`: the folder's hashes, when it is a folder hcpx could read whole.
 */
export type FolderLook = (
  | { state: "missing" }
  | { state: "unchanged" }
  | { state: "differs"; detail: string[] }
  | { state: "edited"; detail: string[]; edits: string[]; recorded: boolean; unreadable?: string }
) & { now?: Record<string, string> };

export function lookAt(target: string, locked: Record<string, string>, rec: RecordEntry | undefined): FolderLook {
  const st = lstatSync(target, { throwIfNoEntry: false });
  if (!st) return { state: "missing" };
  // a link is replaced as a link (what it points at is kept): nothing of the person's is lost
  if (st.isSymbolicLink()) return { state: "differs", detail: ["a symbolic link, not a folder"] };
  let got: Record<string, string>;
  try {
    got = hashTree(target);
  } catch (e) {
    if (!(e instanceof HcpxError)) throw e;
    // a link, a special file, more than hcpx ever writes: not what hcpx put there, and not readable to tell
    const why = e.problems[0]!.message;
    return { state: "edited", detail: [why], edits: [why], recorded: rec !== undefined, unreadable: why };
  }
  const versions = rec ? [rec.files, ...(rec.replacing ? [rec.replacing] : [])] : [locked];
  const edits: string[] = [];
  const detail: string[] = [];
  for (const f of Object.keys(got).sort()) {
    const h = got[f]!;
    if (has(locked, f, h)) continue;
    detail.push(`${f} (${has(locked, f) ? "changed" : "not in the lock"})`);
    if (!versions.some((v) => has(v, f, h)))
      edits.push(`${f} (${versions.some((v) => has(v, f)) ? "changed" : "added"})`);
  }
  for (const f of Object.keys(locked)) if (!Object.hasOwn(got, f)) detail.push(`${f} (missing)`);
  if (detail.length === 0) return { state: "unchanged", now: got };
  return edits.length
    ? { state: "edited", detail, edits, recorded: rec !== undefined, now: got }
    : { state: "differs", detail, now: got };
}

/**
 * `pack_edited`: the hand edits of pack `id` that replacing its folder (or, for `pack remove`, deleting
 * it) would lose; nothing was written for it (nothing was removed).
 */
export function editedProblem(
  id: string,
  target: string,
  look: Extract<FolderLook, { state: "edited" }>,
  removing = false,
): Problem {
  const n = look.edits.length;
  const list = `${look.edits.slice(0, 10).join(", ")}${n > 10 ? `, … (${n} in all)` : ""}`;
  const nothing = removing ? "nothing was removed" : `nothing was written for pack '${id}'`;
  const message = look.unreadable
    ? `${display(target)} does not match hcp.lock: ${look.unreadable}; hcpx cannot tell what in it is yours, so ${nothing}`
    : look.recorded
      ? `${display(target)} holds ${n} file(s) changed or added by hand since hcpx wrote it: ${list}; ${nothing}`
      : `${display(target)} holds ${n} file(s) hcp.lock does not record, and hcpx has no record of writing them (a folder from an older hcpx or from version control): ${list}; ${nothing}`;
  return {
    code: "pack_edited",
    message,
    file: display(target),
    hint: removing
      ? `copy what you want to keep out of ${display(target)}, then run \`hcpx pack remove ${id} --force\` to delete it with them`
      : `copy what you want to keep out of ${display(target)} (it is replaced whole), then run \`hcpx pack install --force\` to restore what hcp.lock records; to keep a change for good, make it in the pack's source and run \`hcpx pack update ${id}\``,
  };
}
