// The hooks of a host's plugins (descriptor `gate.hooks[].plugins`): Claude Code runs the hooks of each plugin that
// is on as it runs those of its settings files, and a PreToolUse or PermissionRequest hook there may allow a call
// so that it never asks. This module finds them, as data says: which plugins are on (the settings files' map
// `<name>@<marketplace>` → on, the first file that names one deciding; a `false` only in a file hcpx can confirm
// the host reads, ./settings-shape.ts, as it skips a file with an error as a whole), each one's install records
// and marketplace entry, its folders (each recorded install folder; the marketplace's own folder for an entry whose
// source is a path in it), and in each folder its hooks files and its manifest's hooks; a skills folder's plugins
// too. It gives back the event maps it found, each with its plugin and file; src/host/hooks.ts tests them like a
// settings file's.
//
// Fail closed: what hcpx cannot follow — a plugin on with no install record, a marketplace it does not know, a
// record, catalog, hooks file or manifest that cannot be read or does not parse, a `hooks` value of a shape it does
// not know, a path out of the plugin's folder, a hooks module (code) — is given back with why, and counts as a hook
// for every tool (the host's prompt is then not the person's question). Reading more than the host would (every
// install record, the cached copy and the marketplace's folder) only ever counts more hooks. Every file is read
// through the one guarded reader (readEntry, bounded; a FIFO or device is never opened), each at most once a check.
import { dirname, isAbsolute, join, normalize } from "node:path";
import type { Entry } from "../util/fsio";
import { hostValueAt } from "./value-at";
import { isObj } from "../util/is";
import { tildePath, toPosix } from "../util/paths";
import { entriesOf } from "../util/dirents";
import { honours } from "./settings-shape";
import type { Descriptor } from "./descriptor";

type Hook = NonNullable<NonNullable<Descriptor["gate"]>["hooks"]>[number];
export type Plugins = NonNullable<Hook["plugins"]>;

/** What one plugin holds: an event map of hooks (`map`), or why hcpx cannot tell what it holds (`why`). */
export interface PluginHooks {
  /** `<name>@<marketplace>` */
  plugin: string;
  /** the file, as the person names it (the project's relative, `~/…` below the home) */
  file: string;
  map?: unknown;
  why?: string;
  /** an off-value of it that counted for nothing, and why */
  note?: string;
}

/** At most this many plugins are followed, this many folders listed in a skills folder, files named by one manifest. */
const MAX_PLUGINS = 200;
const MAX_LISTED = 2000;
const MAX_NAMED = 50;

interface Reader {
  abs: (p: string) => string;
  read: (file: string) => Entry;
  format: Hook["format"];
}

/**
 * The hooks of every plugin of `p` that is on (`abs` turns a descriptor path into the file, `read` is readEntry or
 * one check's cache of it). A settings file that does not parse throws (as the entry's own files do).
 */
export async function pluginHooks(p: Plugins, r: Reader): Promise<PluginHooks[]> {
  const found = new Found(p, r);
  const decided = await enabledMap(p, r, found);
  const skills = new Set((p.dirs ?? []).map((d) => d.marketplace));
  const ids = [...decided]
    .filter(([id, on]) => on !== false && id.includes("@"))
    .map(([id]) => id)
    .filter((id) => !(p.own ?? []).includes(marketplaceOf(id)) && !skills.has(marketplaceOf(id)));
  if (ids.length > MAX_PLUGINS) {
    const rest = ids.splice(MAX_PLUGINS);
    found.fail(
      rest.join(", "),
      r.abs(p.enabled.path[0]!),
      `and the other files turn on more than ${MAX_PLUGINS} plugins: these are not read`,
    );
  }
  if (ids.length) {
    const records = await valueOf(r, p.installed.path, p.installed.key);
    const known = await valueOf(r, p.marketplaces.path, []);
    for (const id of ids) {
      const folders = new Set([
        ...installFolders(p, r, found, records, id),
        ...(await entryFolders(p, r, found, known, id)),
      ]);
      for (const f of folders) await found.folder(id, f);
    }
  }
  for (const d of p.dirs ?? []) await skillsPlugins(p, r, found, decided, d);
  return found.out;
}

/** What has been found, each plugin folder read once. */
class Found {
  readonly out: PluginHooks[] = [];
  private readonly home: string;
  private readonly root: string;
  private readonly seen = new Set<string>();
  private readonly notes = new Map<string, string>();
  constructor(
    private readonly p: Plugins,
    private readonly r: Reader,
  ) {
    this.home = r.abs("~");
    this.root = r.abs(".");
  }

  /** The file as the person names it: the project's relative, the home's `~/…`, else absolute. */
  shown(file: string): string {
    return file.startsWith(this.root + "/") ? toPosix(file.slice(this.root.length + 1)) : tildePath(file, this.home);
  }

  hooks(plugin: string, file: string, map: unknown): void {
    this.out.push({ plugin, file: this.shown(file), map, ...this.noted(plugin) });
  }

  /** hcpx cannot tell what `plugin` holds: counted, for every tool. */
  fail(plugin: string, file: string, why: string): void {
    this.out.push({ plugin, file: this.shown(file), why, ...this.noted(plugin) });
  }

  /** `plugin` is off in `file`, which hcpx cannot confirm the host reads: the off counts for nothing. */
  unheard(plugin: string, file: string): void {
    if (!this.notes.has(plugin))
      this.notes.set(
        plugin,
        `Its false in ${this.shown(file)} counts for nothing: the host skips a settings file with an error as a ` +
          `whole, and hcpx counts a false only in a file of plain JSON holding only keys it checks`,
      );
  }

  private noted(plugin: string): { note?: string } {
    const note = this.notes.get(plugin);
    return note === undefined ? {} : { note };
  }

  /** The hooks in one folder of a plugin: its hooks files, its manifest's hooks. */
  async folder(id: string, folder: string): Promise<void> {
    if (this.seen.has(`${id}\0${folder}`)) return;
    this.seen.add(`${id}\0${folder}`);
    for (const f of this.p.files) await this.file(id, join(folder, f.path), f);
    const path = join(folder, this.p.manifest.path);
    const e = this.r.read(path);
    if (e.kind === "absent") return;
    if (e.kind !== "file") return this.fail(id, path, "is not a file hcpx can read");
    let v: unknown;
    try {
      v = await hostValueAt(e.text, this.r.format, this.p.manifest.key, path);
    } catch {
      return this.fail(id, path, "does not parse");
    }
    if (v === undefined) return;
    const items = Array.isArray(v) ? v : [v];
    if (items.length > MAX_NAMED) return this.fail(id, path, `names more than ${MAX_NAMED} hooks: not read`);
    const at = this.p.manifest.key.join(".");
    for (const item of items) {
      if (isObj(item)) this.hooks(id, path, item);
      else if (typeof item !== "string")
        this.fail(id, path, `has ${JSON.stringify(item)} in its ${at}: hcpx does not know what the host does with it`);
      else {
        const inside = plainInside(item);
        if (inside === undefined || inside === "")
          this.fail(id, path, `names the hooks file ${JSON.stringify(item)}, not a file of the plugin's folder`);
        else await this.file(id, join(folder, inside), this.p.manifest.named);
      }
    }
  }

  /** One hooks file: its event map, or why not (a hooks module is code: counted). Not there: no hooks. */
  private async file(id: string, path: string, shape: { key: string[]; code?: string[] }): Promise<void> {
    const e = this.r.read(path);
    if (e.kind === "absent") return;
    if (e.kind !== "file") return this.fail(id, path, "is not a file hcpx can read");
    let map: unknown;
    const code: string[] = [];
    try {
      map = await hostValueAt(e.text, this.r.format, shape.key, path);
      for (const k of shape.code ?? []) if (!empty(await hostValueAt(e.text, this.r.format, [k], path))) code.push(k);
    } catch {
      return this.fail(id, path, "does not parse");
    }
    if (code.length) this.fail(id, path, `names a hooks module (${code.join(", ")}): code hcpx cannot read`);
    if (map !== undefined) this.hooks(id, path, map);
  }
}

/** The folders a plugin's install records name (none: counted). */
function installFolders(
  p: Plugins,
  r: Reader,
  found: Found,
  records: { value: unknown } | { why: string },
  id: string,
): string[] {
  const file = r.abs(p.installed.path);
  if ("why" in records) {
    found.fail(id, file, records.why);
    return [];
  }
  const list = isObj(records.value) && Object.hasOwn(records.value, id) ? records.value[id] : undefined;
  const recs = list === undefined ? [] : Array.isArray(list) ? list : [list];
  if (!recs.length) found.fail(id, file, "has no install record of it, so hcpx cannot tell which files of it are read");
  const out: string[] = [];
  for (const rec of recs) {
    const at = isObj(rec) ? rec[p.installed.folder] : undefined;
    if (typeof at !== "string" || !isAbsolute(at) || at.includes("\0"))
      found.fail(id, file, `records it with a ${p.installed.folder} that is not an absolute path`);
    else if (r.read(normalize(at)).kind !== "dir")
      found.fail(id, normalize(at), "is not a folder, where its install record says it is installed");
    else out.push(normalize(at));
  }
  return out;
}

/** A plugin's marketplace entry: its own hooks (found), and its folder in the marketplace when its source is a path. */
async function entryFolders(
  p: Plugins,
  r: Reader,
  found: Found,
  known: { value: unknown } | { why: string },
  id: string,
): Promise<string[]> {
  const m = p.marketplaces;
  const entries = await catalogEntries(p, r, known, marketplaceOf(id));
  if ("why" in entries) {
    found.fail(id, entries.file, entries.why);
    return [];
  }
  const name = id.slice(0, id.lastIndexOf("@"));
  const mine = entries.list.filter((e): e is Record<string, unknown> => isObj(e) && e[m.name] === name);
  if (!mine.length) found.fail(id, entries.file, "does not list it, so hcpx cannot tell which files of it are read");
  const out: string[] = [];
  for (const e of mine) {
    const hooks = e[m.hooks];
    if (isObj(hooks)) found.hooks(id, entries.file, hooks);
    else if (hooks !== undefined)
      found.fail(id, entries.file, `has a ${m.hooks} in its entry that is not a map of events: hcpx cannot read it`);
    const source = e[m.source];
    if (typeof source !== "string") continue;
    const at = sourceFolder(entries.dir, source, entries.root);
    if (at !== undefined) out.push(at);
    else
      found.fail(
        id,
        entries.file,
        `gives it the ${m.source} ${JSON.stringify(source)}: no folder of the marketplace hcpx can follow`,
      );
  }
  return out;
}

/** The plugins of a skills folder: each subfolder with a manifest, on unless turned off (`<name>@<marketplace>`: false). */
async function skillsPlugins(
  p: Plugins,
  r: Reader,
  found: Found,
  decided: Map<string, unknown>,
  d: NonNullable<Plugins["dirs"]>[number],
): Promise<void> {
  const dir = r.abs(d.path);
  const names: string[] = [];
  try {
    // one entry at a time, up to the bound (a folder of a million names is not read to its end)
    for (const e of entriesOf(dir)) {
      if (names.length === MAX_LISTED)
        return found.fail(`*@${d.marketplace}`, dir, `holds more than ${MAX_LISTED} entries: not read`);
      names.push(e.name);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") found.fail(`*@${d.marketplace}`, dir, `cannot be listed (${code})`);
    return;
  }
  for (const n of names.sort()) {
    const at = join(dir, n);
    const manifest = join(at, p.manifest.path);
    const m = r.read(manifest);
    if (m.kind === "absent") continue;
    let named: unknown;
    try {
      if (m.kind !== "file") throw new Error("not a file");
      named = await hostValueAt(m.text, r.format, [p.manifest.name], manifest);
    } catch {
      found.fail(
        `${n}@${d.marketplace}`,
        manifest,
        m.kind === "file" ? "does not parse" : "is not a file hcpx can read",
      );
      continue;
    }
    const id = `${typeof named === "string" && named !== "" ? named : n}@${d.marketplace}`;
    if (decided.get(id) !== false) await found.folder(id, at);
  }
}

function marketplaceOf(id: string): string {
  return id.slice(id.lastIndexOf("@") + 1);
}

/**
 * The plugin → on map of the settings files: the first file that names a plugin decides. An off-value (`false`)
 * decides only in a file hcpx can confirm the host reads (`enabled.honoured`); in any other it counts for nothing
 * (the host may skip that file as a whole) and is noted on what is found of the plugin.
 */
async function enabledMap(p: Plugins, r: Reader, found: Found): Promise<Map<string, unknown>> {
  const decided = new Map<string, unknown>();
  for (const path of p.enabled.path) {
    const e = r.read(r.abs(path));
    if (e.kind === "absent") continue;
    if (e.kind !== "file") throw new Error(`${path} cannot be read`); // a folder, a file hcpx may not read
    const v = await hostValueAt(e.text, r.format, p.enabled.key, path);
    if (v === undefined) continue;
    if (!isObj(v)) {
      found.fail(
        "*",
        r.abs(path),
        `has a ${p.enabled.key.join(".")} that is not a map of plugins: hcpx cannot tell which are on`,
      );
      continue;
    }
    const sure = honours(e.text, p.enabled.honoured);
    for (const [id, on] of Object.entries(v)) {
      if (decided.has(id)) continue;
      if (on !== false || sure) decided.set(id, on);
      else found.unheard(id, r.abs(path));
    }
  }
  return decided;
}

/** The value at `key` of a descriptor file (absent: `{}`), or why hcpx cannot tell. */
async function valueOf(r: Reader, path: string, key: readonly string[]): Promise<{ value: unknown } | { why: string }> {
  const e = r.read(r.abs(path));
  if (e.kind === "absent") return { value: {} };
  if (e.kind !== "file") return { why: "cannot be read" };
  try {
    return { value: await hostValueAt(e.text, r.format, key, path) };
  } catch {
    return { why: "does not parse" };
  }
}

/** A marketplace's catalog: its plugin entries, its folder, the folder bare names are below; or why not. */
async function catalogEntries(
  p: Plugins,
  r: Reader,
  known: { value: unknown } | { why: string },
  mkt: string,
): Promise<{ list: unknown[]; file: string; dir: string; root: unknown } | { why: string; file: string }> {
  const m = p.marketplaces;
  const file = r.abs(m.path);
  if ("why" in known) return { why: known.why, file };
  const k = isObj(known.value) && Object.hasOwn(known.value, mkt) ? known.value[mkt] : undefined;
  if (!isObj(k)) return { why: `does not know its marketplace ${mkt}`, file };
  const at = k[m.folder];
  if (typeof at !== "string" || !isAbsolute(at) || at.includes("\0"))
    return { why: `gives its marketplace ${mkt} a ${m.folder} that is not an absolute path`, file };
  const loc = normalize(at);
  const isFile = r.read(loc).kind === "file";
  const catalog = isFile ? loc : join(loc, m.catalog);
  const dir = isFile ? dirname(loc) : loc;
  const e = r.read(catalog);
  if (e.kind !== "file")
    return { why: `the catalog of its marketplace ${mkt} is not a file hcpx can read`, file: catalog };
  let list: unknown;
  let root: unknown;
  try {
    list = await hostValueAt(e.text, r.format, m.entries, catalog);
    root = await hostValueAt(e.text, r.format, m.root, catalog);
  } catch {
    return { why: "does not parse", file: catalog };
  }
  if (!Array.isArray(list)) return { why: `its ${m.entries.join(".")} is not a list of plugins`, file: catalog };
  return { list, file: catalog, dir, root };
}

/**
 * The folder of a marketplace entry whose source is a path: `./x` (or `../`-free `x/y` below the folder `root`
 * names, for a bare name) inside the marketplace's folder; undefined when it is not one hcpx can follow (absolute,
 * going up, a NUL or backslash, a bare name without a root).
 */
function sourceFolder(dir: string, source: string, root: unknown): string | undefined {
  const rel =
    source.startsWith("./") || source === "." ? source : typeof root === "string" ? `${root}/${source}` : undefined;
  if (rel === undefined) return undefined;
  const inside = plainInside(rel);
  return inside === undefined ? undefined : inside === "" ? dir : join(dir, inside);
}

/** `rel` as a path below a folder ("" for the folder itself), or undefined when it is absolute, goes up or is odd. */
function plainInside(rel: string): string | undefined {
  if (rel.includes("\0") || rel.includes("\\") || rel.startsWith("/")) return undefined;
  const parts = rel.split("/").filter((s) => s !== "" && s !== ".");
  if (parts.includes("..")) return undefined;
  return parts.join("/");
}

function empty(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0);
}
