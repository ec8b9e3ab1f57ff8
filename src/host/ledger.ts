// `.hcp/adopted.json` (user scope: `~/.config/hcp/adopted.json`): what adopt
// wrote, per host, with the sha256 of what it wrote, so a re-run can clean up
// what is no longer projected and never delete what a person changed since.
import { createScanner } from "jsonc-parser/lib/esm/main.js"; // the ESM build (see engine.ts)
import { HcpxError, type Problem } from "../util/errors";
import { guardPath, type Guarded, type TrustBase } from "../util/fsio";
import { sha256 } from "../util/text";
import type { LedgerRender } from "../plan/types";
import { isObj } from "../util/is";
import { remoteShape } from "./remote-shape";

export interface LedgerEntry {
  /** display path: relative to the project root (posix), or `~/…` */
  path: string;
  /** file: a whole file we own; json/toml: one entry at `key`; json-items: our items in the list or object at `key`; markdown-block: the hcp block */
  kind: "file" | "json" | "toml" | "yaml" | "markdown-block" | "json-items";
  key?: string[];
  /** sha256 of what we wrote: the file's bytes, JSON.stringify of the entry value, or the block's content */
  sha256: string;
  /** the file did not exist before adopt (a removal that leaves it empty deletes it) */
  created: boolean;
  /** json: the property we inserted (our key, or the highest ancestor we created) */
  insertedAt?: string[];
  /** json: the whitespace-only text of a file that existed before adopt (a removal restores it) */
  blank?: string;
  /** json: inner text of the object we inserted into when it was empty */
  emptyInner?: string;
  /** toml / markdown: the separator we put before our text when appending it */
  prefix?: string;
  /** json-items: the list items (or object member names) hcpx added; a rule the person wrote is never one */
  items?: string[];
  /** json-items: the list or object as it was written before hcpx added to it (its exact text): a removal that leaves that value puts this text back */
  original?: string;
}

export interface LedgerHost {
  scope: "project" | "user";
  entries: LedgerEntry[];
  /** directories adopt created (display paths) */
  dirs: string[];
  /** the MCP command line given with `--command`: later plans without it (a re-run, --check, doctor) keep it */
  command?: string[];
  /**
   * the team server given with `--url` (and `--token-env`: the variable's name, never its value): later plans
   * without --url (a re-run, --check, doctor) compare with and keep this remote entry. Read back it is the
   * repository's word: compared and shown, never contacted (src/host/remote.ts, docs/remote-hosts.md)
   */
  remote?: { url: string; tokenEnv?: string };
}

export interface Ledger {
  version: 1;
  hosts: Record<string, LedgerHost>;
  /** directories adopt created for the ledger itself (e.g. `.hcp`) */
  dirs?: string[];
}

export function emptyLedger(): Ledger {
  return { version: 1, hosts: {} };
}

export function ledgerKey(e: Pick<LedgerEntry, "path" | "kind" | "key">): string {
  return `${e.path}\u0000${e.kind}\u0000${(e.key ?? []).join("\u0001")}`;
}

export function parseLedger(text: string, file: string): Ledger {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new HcpxError({
      code: "bad_ledger",
      message: `cannot parse the adopt ledger: ${(e as Error).message}`,
      file,
      hint: "restore it from version control, or delete it (hcpx then treats every hcp file as not written by it)",
    });
  }
  const l = v as Ledger;
  if (!l || typeof l !== "object" || l.version !== 1 || typeof l.hosts !== "object" || l.hosts === null) {
    throw new HcpxError({
      code: "bad_ledger",
      message: "not an hcpx adopt ledger (version 1)",
      file,
      hint: "restore it, or delete it",
    });
  }
  for (const [name, h] of Object.entries(l.hosts)) {
    if (!h || typeof h !== "object" || !Array.isArray(h.entries))
      throw new HcpxError({
        code: "bad_ledger",
        message: "ledger host without entries",
        file,
        path: `hosts.${name}`,
        hint: "restore it, or delete it",
      });
    h.dirs ??= [];
  }
  if (l.dirs !== undefined && !Array.isArray(l.dirs))
    throw new HcpxError({
      code: "bad_ledger",
      message: "`dirs` is not a list",
      file,
      path: "dirs",
      hint: "restore it, or delete it",
    });
  return l;
}

const ENTRY_KEYS = new Set([
  "path",
  "kind",
  "key",
  "sha256",
  "created",
  "insertedAt",
  "blank",
  "emptyInner",
  "prefix",
  "items",
  "original",
]);
const HOST_KEYS = new Set(["scope", "entries", "dirs", "command", "remote"]);
/** the separators setBlock / setToml put before appended text */
const PREFIXES = new Set(["", "\n", "\r\n", "\n\n", "\r\n\r\n"]);
const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((w) => typeof w === "string" && w !== "" && !w.includes("\0"));

/** JSONC text that holds nothing but whitespace and comments. */
function onlyTrivia(text: string): boolean {
  // jsonc-parser's SyntaxKind (a const enum): 12 line comment, 13 block comment, 14 line break, 15 whitespace, 17 EOF
  const sc = createScanner(text, false);
  for (let k: number = sc.scan(); k !== 17; k = sc.scan()) if (k < 12 || k > 15) return false;
  return true;
}

/** JSON(C) text without comments: what a removal may put back of a list the person had (`original`) holds their value and nothing else. */
function noComments(text: string): boolean {
  const sc = createScanner(text, false);
  for (let k: number = sc.scan(); k !== 17; k = sc.scan()) if (k === 12 || k === 13 || k === 16) return false; // comments; 16: unknown
  return true;
}

/** Why a ledger entry is unusable (its path aside), or undefined. */
function entryShape(e: unknown): string | undefined {
  if (!isObj(e)) return "is not an object";
  const extra = Object.keys(e).filter((k) => !ENTRY_KEYS.has(k));
  if (extra.length) return `has unknown key(s) ${extra.join(", ")}`;
  if (!["file", "json", "toml", "yaml", "markdown-block", "json-items"].includes(e.kind as string))
    return `has an unknown kind ${JSON.stringify(e.kind)}`;
  if (typeof e.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(e.sha256)) return "has no sha256 of 64 hex digits";
  if (typeof e.created !== "boolean") return "has no boolean `created`";
  const keyed = e.kind === "json" || e.kind === "toml" || e.kind === "yaml" || e.kind === "json-items";
  if (keyed ? !strings(e.key) : e.key !== undefined)
    return keyed ? "has no key path" : "has a key path, which its kind does not take";
  if (
    e.insertedAt !== undefined &&
    !(
      (e.kind === "json" || e.kind === "json-items" || e.kind === "yaml") &&
      strings(e.insertedAt) &&
      e.insertedAt.every((k, i) => (e.key as string[])[i] === k)
    )
  )
    return "has an `insertedAt` that is not a prefix of its key";
  if (
    e.blank !== undefined &&
    !((e.kind === "json" || e.kind === "json-items") && typeof e.blank === "string" && /^[\s\ufeff]*$/.test(e.blank))
  )
    return "has a `blank` that is not whitespace";
  if (
    e.emptyInner !== undefined &&
    !((e.kind === "json" || e.kind === "json-items") && typeof e.emptyInner === "string" && onlyTrivia(e.emptyInner))
  )
    return "has an `emptyInner` that is not whitespace and comments";
  if (
    e.prefix !== undefined &&
    !(
      (e.kind === "toml" || e.kind === "yaml" || e.kind === "markdown-block") &&
      typeof e.prefix === "string" &&
      PREFIXES.has(e.prefix)
    )
  )
    return "has a `prefix` that is not a line break";
  if (
    e.kind === "json-items"
      ? !(Array.isArray(e.items) && e.items.every((w) => typeof w === "string" && w !== "" && !w.includes("\0")))
      : e.items !== undefined
  )
    return e.kind === "json-items" ? "has no list of `items` (strings)" : "has `items`, which its kind does not take";
  if (
    e.original !== undefined &&
    !(
      e.kind === "json-items" &&
      typeof e.original === "string" &&
      e.original.length <= 1 << 20 &&
      noComments(e.original)
    )
  )
    return "has an `original` that is not plain JSON without comments";
  return undefined;
}

/**
 * The ledger as far as it can be trusted. A ledger is committed and shared:
 * anyone who can push can write it. Each entry, directory and host is checked
 * (its shape; its path through guardPath: inside the project for a project
 * ledger, inside $HOME for the user one; a host recorded under the other scope);
 * what fails is left out — so it is never read, written or deleted — with a
 * warning naming the ledger file and the entry.
 */
export function sanitizeLedger(
  l: Ledger,
  scope: "project" | "user",
  base: TrustBase,
  file: string,
  guardOf: (named: unknown, base: TrustBase) => Guarded = guardPath,
): { ledger: Ledger; warnings: Problem[] } {
  const warnings: Problem[] = [];
  const where = scope === "project" ? "the project" : "$HOME";
  const warn = (path: string, what: string) =>
    warnings.push({
      code: "ledger_entry_ignored",
      severity: "warning",
      file,
      path,
      message: `${what}; ignored: hcpx never reads, writes or deletes what it names`,
      hint: "the ledger is written by hcpx adopt; restore it from version control if someone changed it",
    });
  const guard = (p: unknown, path: string, what: string): Guarded => {
    const g = guardOf(p, base);
    if (!g.ok) warn(path, `${what} ${JSON.stringify(p)} ${g.reason} (it must stay inside ${where})`);
    return g;
  };
  const out: Ledger = { version: 1, hosts: {} };
  for (const [name, h] of Object.entries(l.hosts)) {
    const at = `hosts.${name}`;
    if (!/^[a-z][a-z0-9-]*$/.test(name) || !isObj(h)) {
      warn(at, "is not a host record");
      continue;
    }
    const extra = Object.keys(h).filter((k) => !HOST_KEYS.has(k));
    if (extra.length) {
      warn(at, `host ${name} has unknown key(s) ${extra.join(", ")}`);
      continue;
    }
    if (h.scope !== scope) {
      warn(
        `${at}.scope`,
        `host ${name} is recorded with scope ${JSON.stringify(h.scope)} in the ${scope}-scope ledger`,
      );
      continue;
    }
    const entries: LedgerEntry[] = [];
    (h.entries as unknown[]).forEach((e, i) => {
      const why = entryShape(e);
      if (why) return warn(`${at}.entries[${i}]`, `entry ${why}`);
      if (guard((e as LedgerEntry).path, `${at}.entries[${i}].path`, "entry").ok) entries.push(e as LedgerEntry);
    });
    const dirs = (Array.isArray(h.dirs) ? (h.dirs as unknown[]) : []).filter(
      (d, i) => guard(d, `${at}.dirs[${i}]`, "directory").ok,
    ) as string[];
    let command: string[] | undefined;
    if (h.command !== undefined) {
      if (strings(h.command)) command = h.command;
      else warn(`${at}.command`, "the recorded MCP command is not a list of words");
    }
    let remote: LedgerHost["remote"];
    if (h.remote !== undefined) {
      const why = remoteShape(h.remote);
      if (why) warn(`${at}.remote`, `the recorded remote entry ${why}`);
      else remote = h.remote as LedgerHost["remote"];
    }
    out.hosts[name] = { scope, entries, dirs, ...(command ? { command } : {}), ...(remote ? { remote } : {}) };
  }
  const dirs = (Array.isArray(l.dirs) ? (l.dirs as unknown[]) : []).filter(
    (d, i) => guard(d, `dirs[${i}]`, "directory").ok,
  ) as string[];
  if (dirs.length) out.dirs = dirs;
  return { ledger: out, warnings };
}

export function serializeLedger(l: Ledger): string {
  const hosts = Object.fromEntries(
    Object.keys(l.hosts)
      .sort()
      .map((h) => [h, l.hosts[h]!]),
  );
  return JSON.stringify({ version: 1, hosts, ...(l.dirs?.length ? { dirs: l.dirs } : {}) }, null, 2) + "\n";
}

/**
 * The write-ahead journal of `adopt --write` (`adopt.journal.json` next to the
 * ledger), written before the first target file and removed after the ledger:
 * the ledger before and after, and for each file changed its sha256 before and
 * after (null = absent). A run killed in between leaves it; the next run reads
 * which files hold their new bytes and rebuilds the ledger to match the disk.
 */
export interface Journal {
  version: 1;
  ledgerOld?: string;
  ledgerNew?: string;
  files: { path: string; real: string; before: string | null; after: string | null }[];
  /** directories the run meant to remove when empty (absolute) */
  rmdirs?: string[];
}

export function serializeJournal(j: Journal): string {
  return JSON.stringify(j) + "\n";
}

/**
 * What the one applier writes for an adopt plan's record (src/plan/types.ts
 * LedgerRender): the journal and the final ledger, from what the plan decided —
 * the ledger it started from (`base`, its text; `baseDirs`, its directories) and
 * the one it planned (`next`) — and the two facts only the write has: the
 * directories the lock made, and which recorded directories exist once the
 * files are written. Nothing is parsed or chosen here at apply time.
 */
export function ledgerRender(rec: { base?: string; baseDirs: readonly string[]; next?: Ledger }): LedgerRender {
  const dirsOf = (made: string[]): string[] => [...new Set([...rec.baseDirs, ...made])];
  const ledger = (made: string[], exists?: (dir: string) => boolean): string | undefined => {
    if (rec.next === undefined) return undefined;
    const hosts: Record<string, LedgerHost> = {};
    for (const [name, h] of Object.entries(rec.next.hosts))
      hosts[name] = exists ? { ...h, dirs: h.dirs.filter(exists) } : h;
    const dirs = dirsOf(made);
    return serializeLedger({ version: 1, hosts, dirs: dirs.length ? [...dirs].sort() : undefined });
  };
  return {
    dirs: dirsOf,
    ledger,
    journal: (made, changes, rmdirs) =>
      serializeJournal({
        version: 1,
        ledgerOld: rec.base,
        ledgerNew: ledger(made),
        files: changes.map((c) => ({
          path: c.path,
          real: c.real,
          before: c.old === undefined ? null : sha256(c.old),
          after: c.new === undefined ? null : sha256(c.new),
        })),
        rmdirs,
      }),
  };
}
