// What a host reads of a markdown block target beyond the file itself (hosts/<host>.json5:
// a target's `shadowedBy`, `maxBytes`/`maxBytesFrom` and `chain`, the descriptor's `homes`):
// the file it reads instead in the same folder (Codex's AGENTS.override.md), the byte limit
// its own config sets (Codex's project_doc_max_bytes), and the docs of the folders above the
// project it counts against that limit first. Everything is read through the plan's ReadFs
// (the one reader); nothing is written here. The config files and the folders above the
// project are the person's own, outside the base adopt writes in: read, never followed
// into a write.
import { basename, dirname, join } from "node:path";
import type { ReadFs } from "../plan/fs";
import { HcpxError } from "../util/errors";
import { lineCol } from "../util/text";
import type { Descriptor, Target } from "./descriptor";
import { nodeAt, parseJsonFor, valueAt } from "./jsonedit";
import { parseTomlFor, tomlValueAt } from "./tomledit";
import { scanToml } from "./tomlscan";
import { hostPath } from "./host-paths";

/** What the reads need: the disk, where `~/` and the project are, the environment the host starts with. */
export interface ReadsContext {
  fs: ReadFs;
  home: string;
  /** the project root (relative host paths are below it) */
  root: string;
  env: NodeJS.ProcessEnv;
  desc: Descriptor;
}

/** A limit on the bytes the host reads, and the setting it comes from (absent: the host's default). */
export interface ReadLimit {
  bytes: number;
  from?: { file: string; line?: number; key: string };
}

/** The key path as the file's format writes it (`a.b`). */
const keyShown = (key: string[]) => key.map((s) => (/^[A-Za-z0-9_-]+$/.test(s) ? s : JSON.stringify(s))).join(".");

/** The value at `key` in a host config file's text, and its line; a file that does not parse is an HcpxError with its line. */
function settingIn(
  text: string,
  show: string,
  m: NonNullable<Target["maxBytesFrom"]>,
  hostName: string,
): { value: unknown; line?: number } {
  if (m.format === "toml") {
    const value = tomlValueAt(parseTomlFor(text, show), m.key);
    const item = scanToml(text, show).find(
      (i) => i.kind === "keyval" && JSON.stringify([...i.table, ...i.path]) === JSON.stringify(m.key),
    );
    return { value, ...(item ? { line: item.line } : {}) };
  }
  const rules = { comments: m.format === "jsonc", trailingCommas: m.format === "jsonc" };
  const tree = parseJsonFor(text, show, rules, hostName);
  const node = nodeAt(tree, m.key);
  return { value: valueAt(tree, m.key), ...(node ? { line: lineCol(text, node.offset).line } : {}) };
}

/**
 * The bytes the host reads of the target: the value its own setting has in the first of
 * `maxBytesFrom.path` that sets it, else `maxBytes`. A value that is not a whole number ≥ 0
 * is an error naming the file and line (the host refuses to start with it): never the default.
 */
export function readLimit(t: Target, k: ReadsContext): ReadLimit | undefined {
  if (t.maxBytes === undefined) return undefined;
  const m = t.maxBytesFrom;
  if (!m) return { bytes: t.maxBytes };
  const key = keyShown(m.key);
  for (const p of Array.isArray(m.path) ? m.path : [m.path]) {
    const { abs, show } = hostPath(p, k);
    const e = k.fs.entry(abs);
    if (e.kind === "binary")
      throw new HcpxError({
        code: "not_utf8",
        message: `is not UTF-8 text (invalid byte at offset ${e.offset}): hcpx cannot read ${key} in it`,
        file: show,
        hint: `${k.desc.name}'s config is UTF-8 text: fix the file`,
      });
    if (e.kind !== "file") continue;
    const { value, line } = settingIn(e.text, show, m, k.desc.name);
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
      throw new HcpxError({
        code: "bad_host_setting",
        message: `${key} is ${JSON.stringify(value)}: ${k.desc.name} takes a whole number of bytes ≥ 0 here, and does not start with this value`,
        file: show,
        ...(line ? { line } : {}),
        hint: `set ${key} to a number of bytes (${k.desc.name}'s default is ${t.maxBytes}), or remove the line`,
      });
    return { bytes: value, from: { file: show, key, ...(line ? { line } : {}) } };
  }
  return { bytes: t.maxBytes };
}

/** The first of a target's `shadowedBy` files that is a file in `dir`, as the plan sees it (undefined: none). */
export function shadowIn<F extends { orig: { kind: string }; real: string }>(
  t: Target,
  dir: string,
  file: (abs: string) => F,
): F | undefined {
  for (const name of t.shadowedBy?.files ?? []) {
    const f = file(join(dir, name));
    if (f.orig.kind === "file") return f;
  }
  return undefined;
}

/**
 * The docs the host reads before the target's file (its `chain`): from the nearest folder above
 * `dir` holding a marker (the host's project root; none: only `dir` is read) down to `dir`'s
 * parent, in each the first of `shadowedBy` and the target's own name that is a file; a blank
 * one counts nothing (the host skips it).
 */
export function docsAbove(t: Target, dir: string, k: ReadsContext): { bytes: number; files: string[] } {
  const none = { bytes: 0, files: [] as string[] };
  if (!t.chain) return none;
  const marked = (d: string) => t.chain!.markers.some((m) => k.fs.entry(join(d, m)).kind !== "absent");
  const above: string[] = [];
  let top: string | undefined;
  for (let d = dir; ; d = dirname(d)) {
    if (d !== dir) above.unshift(d);
    if (marked(d)) {
      top = d;
      break;
    }
    if (dirname(d) === d) break;
  }
  if (top === undefined) return none;
  const names = [...(t.shadowedBy?.files ?? []), basename(Array.isArray(t.path) ? t.path[0]! : t.path)];
  const out = { bytes: 0, files: [] as string[] };
  for (const d of above) {
    for (const n of names) {
      const e = k.fs.entry(join(d, n));
      if (e.kind !== "file" && e.kind !== "binary") continue;
      if (e.kind === "file" && e.text.trim() !== "") {
        out.bytes += Buffer.byteLength(e.text);
        out.files.push(join(d, n));
      }
      break;
    }
  }
  return out;
}
