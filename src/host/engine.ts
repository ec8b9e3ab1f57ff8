// The adopt engine: from host descriptors and a projection to a plan of file
// changes, computed entirely in memory (nothing is written here). It knows file
// formats, never hosts: everything host-specific is in hosts/*.json5 and
// templates/. `apply.ts` writes a plan; `diff.ts` shows it.
import { join, relative, dirname } from "node:path";
import { getNodeValue, parseTree, type Node, type ParseError } from "jsonc-parser/lib/esm/main.js"; // the ESM build: the UMD one require()s its parts at run time, which a bundle cannot resolve
import type { Project } from "../pack/model";
import type { Projection } from "../projection/types";
import { HcpxError, type Problem } from "../util/errors";
import { display, home, toPosix, userConfigDir } from "../util/paths";
import { loadDescriptor, type Descriptor, type RuleClasses, type Target } from "./descriptor";
import { accessSync, constants as fsConstants } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { resolveInside, readEntry, missingDirs, staleTemps, guardPath, type Entry, type TrustBase } from "./fsio";
import { parseJsonFor, setJson, removeJson, nodeAt, valueAt, unBom } from "./jsonedit";
import { setBlock, removeBlock, findBlock, blockContent } from "./mdblock";
import { hostTextProblems, unsafeHostText } from "../pack/hosttext";
import { render, type TemplateContext } from "./templates";
import { resolveMcpCommand, type McpCommand } from "./command";
import { sha256, lineCol } from "./text";
import { emptyLedger, ledgerKey, parseJournal, parseLedger, reconcileLedger, sanitizeLedger, serializeLedger, type Ledger, type LedgerEntry, type LedgerHost } from "./ledger";

export type Scope = "project" | "user";

export interface AdoptOptions {
  scope: Scope;
  /** `--command "<cmd> <args…>"` */
  command?: string;
  /** `--use-recorded-command`: write the MCP command the ledger records for a host (an earlier --command) */
  useRecordedCommand?: boolean;
  /** plan the removal of what hcpx wrote for these hosts */
  remove?: boolean;
  /** delete/replace files and entries changed since hcpx wrote them */
  force?: boolean;
  /** $HOME (default: home()) */
  home?: string;
  /** previews: pretend every file is absent and use the portable command */
  preview?: boolean;
  /** false: leave the Skill copies (dir-of-skills targets) out of the plan (generate's host previews) */
  skills?: boolean;
  /** `generate --as`: the bundle's identity (for its manifest template) */
  bundle?: TemplateContext["bundle"];
  /**
   * user scope: the user config the MCP entry serves (`--config <file>` is appended to
   * its command), so that it serves the same packs from any directory and environment
   */
  userConfig?: string;
}

export interface FileChange {
  /** display path: relative to the project root (posix), or `~/…` */
  path: string;
  /** absolute path as planned */
  abs: string;
  /** the file actually written (symlinks inside the base resolved) */
  real: string;
  kind: "create" | "update" | "delete";
  old?: string;
  new?: string;
  hosts: string[];
  notes: string[];
}

export interface AdoptPlan {
  scope: Scope;
  /** project root or $HOME */
  base: string;
  hosts: string[];
  remove: boolean;
  changes: FileChange[];
  /** printed with the plan */
  notes: string[];
  /** things left alone on purpose (changed since we wrote them): drift for --check */
  conflicts: Problem[];
  /**
   * what the plan did not take from the files it read back: ledger or journal
   * entries ignored (a path outside the base, a malformed entry), a recorded
   * MCP command not used. Printed with every plan; drift for --check.
   */
  warnings: Problem[];
  ledgerFile: string;
  /** serialized ledger before and after (undefined = no ledger file) */
  ledgerOld?: string;
  ledgerNew?: string;
  /** the ledger this plan started from: ledgerOld, or the ledger rebuilt from an interrupted run's journal */
  ledgerBase?: string;
  /** the write-ahead journal of apply (`adopt.journal.json` next to the ledger) */
  journalFile: string;
  /** a journal left by an interrupted `adopt --write` was found (and folded into ledgerBase) */
  journalPending: boolean;
  /** temp files left by a killed writer, removed by the next apply */
  staleTemps: string[];
  /** directories to try to remove (when empty) after writing, deepest first */
  rmdirs: string[];
  /** the MCP command line each host's entry runs (as planned; absent with --remove) */
  commands: Record<string, string[]>;
}

/**
 * A projection for one host: `skillsPath` is where that host's Skill copies are (for the
 * prompt block); `shell`: whether the block may advertise `hcpx exec` (hcpx on the host's PATH).
 */
export type ProjectionFor = (skillsPath: string, opts?: { shell?: boolean; shellCommand?: string }) => Projection;

interface VFile {
  abs: string;
  real: string;
  show: string;
  orig: Entry;
  /** current planned text; null = absent */
  cur: string | null;
  hosts: Set<string>;
  notes: string[];
  /** owned-file content planned in this run (to detect two hosts disagreeing) */
  plannedBy?: { host: string; text: string };
  /** markdown: the prefix the first host of this run inserted */
  mdPrefix?: string;
}

function first<T>(x: T | T[]): T {
  return Array.isArray(x) ? x[0]! : x;
}

export function ledgerPath(scope: Scope, project: Project): string {
  return scope === "project" ? join(project.root, ".hcp", "adopted.json") : join(userConfigDir(), "adopted.json");
}

export function journalPath(ledgerFile: string): string {
  return join(dirname(ledgerFile), "adopt.journal.json");
}

export async function planAdopt(project: Project, hosts: string[], projectionFor: ProjectionFor, opts: AdoptOptions): Promise<AdoptPlan> {
  const scope = opts.scope;
  const homeDir = opts.home ?? home();
  const base = opts.preview ? "/" : scope === "project" ? project.root : homeDir;
  const problems: Problem[] = [];
  const conflicts: Problem[] = [];
  const warnings: Problem[] = [];
  const notes: string[] = [];
  // every path the ledger, the journal or a lock names must stay inside this base
  const trust: TrustBase = { dir: base, prefix: scope === "user" ? "~/" : "" };
  const vfs = new Map<string, VFile>();

  const absOf = (p: string) => (p.startsWith("~/") ? join(homeDir, p.slice(2)) : join(base, p));
  const showOf = (abs: string) => (scope === "user" ? "~/" + toPosix(relative(homeDir, abs)) : toPosix(relative(base, abs)));

  function file(abs: string): VFile {
    const show = showOf(abs);
    const hit = vfs.get(abs);
    if (hit) return hit;
    let real = abs;
    let orig: Entry = { kind: "absent" };
    if (!opts.preview) {
      real = resolveInside(abs, base, show).real;
      orig = readEntry(real);
      if (orig.kind === "binary") {
        throw new HcpxError({ code: "not_utf8", message: `is not UTF-8 text (invalid byte at offset ${orig.offset}); left untouched`, file: show, hint: "hcpx edits UTF-8 text only: convert the file to UTF-8, or move it away" });
      }
    }
    const f: VFile = { abs, real, show, orig, cur: orig.kind === "file" ? orig.text : null, hosts: new Set(), notes: [] };
    vfs.set(abs, f);
    return f;
  }
  function requireFileOrAbsent(f: VFile): void {
    if (f.orig.kind === "dir") throw new HcpxError({ code: "not_a_file", message: "is a directory, expected a file", file: f.show, hint: "move the directory away; hcpx writes a file here" });
    if (f.orig.kind === "other") throw new HcpxError({ code: "not_a_file", message: "is not a regular file", file: f.show });
  }

  // ---- ledger ----
  const ledgerFile = ledgerPath(scope, project);
  let ledgerOld: string | undefined;
  let ledger: Ledger = emptyLedger();
  const journalFile = journalPath(ledgerFile);
  let journalPending = false;
  const temps = new Set<string>();
  const journalRmdirs: string[] = [];
  if (!opts.preview) {
    if (scope === "project") ledgerInside(ledgerFile, base);
    const e = readEntry(ledgerFile);
    if (e.kind === "file") {
      ledgerOld = e.text;
      ledger = parseLedger(e.text, showLedger());
    } else if (e.kind !== "absent") problems.push({ code: "not_a_file", message: "is not a file", file: showLedger() });
    // An `adopt --write` killed mid-way left its journal: rebuild the ledger from
    // what is on disk now (each file changed is either its old or its new bytes).
    const j = readEntry(journalFile);
    if (j.kind === "file") {
      const journal = parseJournal(j.text);
      if (journal) {
        journalPending = true;
        const showJournal = toPosix(relative(base, journalFile));
        const ignored = (path: string, what: string) =>
          warnings.push({ code: "journal_entry_ignored", severity: "warning", file: (scope === "user" ? "~/" : "") + showJournal, path, message: `${what}; ignored: hcpx never reads, writes or deletes what it names`, hint: "the journal is written by an interrupted hcpx adopt --write; delete it if someone else wrote it" });
        for (const [i, d] of (Array.isArray(journal.rmdirs) ? journal.rmdirs : []).entries()) {
          const g = guardPath(d, trust, "absolute");
          if (g.ok) journalRmdirs.push(g.abs);
          else ignored(`rmdirs[${i}]`, `directory ${JSON.stringify(d)} ${g.reason}`);
        }
        const state = new Map<string, "old" | "new">();
        const hash = (v: unknown) => v === null || (typeof v === "string" && /^[0-9a-f]{64}$/.test(v));
        for (const [i, f] of journal.files.entries()) {
          const g = guardPath(f?.path, trust);
          if (!g.ok) {
            ignored(`files[${i}].path`, `file ${JSON.stringify(f?.path)} ${g.reason}`);
            continue;
          }
          if (g.real !== f.real || !hash(f.before) || !hash(f.after)) {
            ignored(`files[${i}]`, `file ${JSON.stringify(f.path)} does not match what hcpx records (its real path or hashes)`);
            continue;
          }
          const now = readEntry(g.real);
          const h = now.kind === "file" ? sha256(now.text) : now.kind === "absent" ? null : "?";
          state.set(f.path, h === f.after ? "new" : h === f.before ? "old" : "new");
          for (const t of staleTemps(dirname(g.real))) temps.add(t);
        }
        const parse = (t: string | undefined) => (t === undefined ? emptyLedger() : parseLedger(t, (scope === "user" ? "~/" : "") + showJournal));
        ledger = reconcileLedger(parse(journal.ledgerOld), parse(journal.ledgerNew), (p) => state.get(p));
      }
    }
    for (const t of staleTemps(dirname(ledgerFile))) if (!t.endsWith(".lock.tmp")) temps.add(t);
  }
  // What the ledger names is trusted only as far as guardPath lets it (ledger.ts).
  const sane = sanitizeLedger(ledger, scope, trust, showLedger());
  ledger = sane.ledger;
  warnings.push(...sane.warnings);
  const ledgerBase = journalPending || sane.warnings.length ? (Object.keys(ledger.hosts).length || ledger.dirs?.length ? serializeLedger(ledger) : undefined) : ledgerOld;
  function showLedger(): string {
    return scope === "user" ? "~/" + toPosix(relative(homeDir, ledgerFile)) : toPosix(relative(project.root, ledgerFile));
  }
  const claimedByOthers = (host: string, e: LedgerEntry, removing: Set<string>) =>
    Object.entries(ledger.hosts).some(([h, lh]) => h !== host && !removing.has(h) && lh.entries.some((x) => ledgerKey(x) === ledgerKey(e)));
  const allLedgerEntries = (): LedgerEntry[] => Object.values(ledger.hosts).flatMap((h) => h.entries);
  const newHosts: Record<string, LedgerHost> = {};
  const commandsOut: Record<string, string[]> = {};
  const rmdirCandidates = new Set<string>(journalRmdirs);

  // ---- the MCP command: --command, else hcpx's own (derived from this invocation) ----
  // A command the ledger records (an earlier --command) is a value from a shared
  // file: it is written only with --use-recorded-command, and shown either way.
  const shown = (argv: string[]) => "`" + argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w))).join(" ") + "`";
  function mcpOf(host: string): McpCommand {
    if (opts.preview && opts.command === undefined) return { argv: ["hcpx", "mcp"] };
    const recorded = ledger.hosts[host]?.command;
    if (opts.command === undefined && opts.useRecordedCommand && recorded) return { argv: recorded };
    return resolveMcpCommand(opts.command);
  }
  function mcpFor(host: string): McpCommand {
    const mcp = mcpOf(host);
    const recorded = opts.preview ? undefined : ledger.hosts[host]?.command;
    if (opts.command === undefined && recorded && opts.useRecordedCommand) notes.push(`${host}: the MCP command recorded in ${showLedger()}, ${shown(recorded)}, is used (--use-recorded-command)`);
    else if (opts.command === undefined && recorded && !isDeepStrictEqual(recorded, mcp.argv)) {
      warnings.push({
        code: "recorded_command",
        severity: "warning",
        file: showLedger(),
        path: `hosts.${host}.command`,
        message: `records the MCP command ${shown(recorded)} for ${host} (an earlier --command); this plan writes ${shown(mcp.argv)} instead`,
        hint: `review the recorded command; to keep it, rerun with --use-recorded-command (or --command "…")`,
      });
    }
    if (mcp.machineSpecific && !notes.includes(mcp.machineSpecific)) notes.push(mcp.machineSpecific);
    return mcp;
  }

  // ---- the shell route: may a host's prompt block advertise `hcpx exec …`? ----
  // Where the host's shell can run it: the MCP entry runs a bare `hcpx` (found on PATH),
  // and the descriptor does not say its shell tool cannot (`shellRoute: false`). A file
  // two hosts read (AGENTS.md: Codex and opencode) holds one block, so it advertises the
  // route only if every host that reads it (adopted in this run, or recorded) can run it.
  // The route is the MCP command without its last word `mcp`: `hcpx` when hcpx is on PATH,
  // else what the entry runs (absolute node + hcpx), named so that the block says how to run it.
  function shellCommandOf(d: Descriptor): string | undefined {
    const argv = mcpOf(d.host).argv;
    if (d.shellRoute === false || argv.length < 2 || argv[argv.length - 1] !== "mcp") return undefined;
    return argv.slice(0, -1).map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : "'" + w.replaceAll("'", "'\\''") + "'")).join(" ");
  }
  function shellFor(desc: Descriptor, inRun: Descriptor[]): boolean {
    const can = (d: Descriptor) => shellCommandOf(d) !== undefined;
    const blocks = (d: Descriptor) => new Set((d.scopes[scope]?.targets ?? []).filter((t) => t.format === "markdown-block").map((t) => absOf(first(t.path))));
    if (!can(desc)) return false;
    const mine = blocks(desc);
    const others = new Map(inRun.map((d) => [d.host, d]));
    for (const h of Object.keys(ledger.hosts)) {
      if (others.has(h) || ledger.hosts[h]!.scope !== scope) continue;
      try {
        others.set(h, loadDescriptor(h));
      } catch {
        // a host hcpx no longer knows: its own plan reports it
      }
    }
    for (const d of others.values()) if (d.host !== desc.host && [...blocks(d)].some((p) => mine.has(p)) && !can(d)) return false;
    return true;
  }

  // ---- removal of one ledger entry (stale or --remove) ----
  function removeEntry(host: string, e: LedgerEntry): "removed" | "kept" {
    const abs = absOf(e.path);
    let f: VFile;
    try {
      f = file(abs);
    } catch (err) {
      if (err instanceof HcpxError) problems.push(...err.problems);
      else throw err;
      return "kept";
    }
    if (f.cur === null) return "removed";
    if (f.orig.kind !== "file" && f.orig.kind !== "absent") return "kept";
    const text = f.cur;
    /** true when the recorded hash differs and we must leave it (no --force) */
    const changed = (h: string): boolean => {
      if (h === e.sha256) return false;
      if (opts.force) {
        f.notes.push(`${describe(e)} was changed since hcpx wrote it; removed anyway (--force)`);
        return false;
      }
      conflicts.push({ code: "changed_since_adopt", message: `${describe(e)} was changed since hcpx wrote it: left in place`, file: f.show, hint: "review it; rerun with --force to remove it anyway", severity: "warning" });
      return true;
    };
    try {
      /** What a json file is after hcpx's part is taken out: gone (only `{}` or the host's skeleton left in a file hcpx created), the whitespace it had before, or the text. */
      const jsonLeft = (next: string, e: LedgerEntry): string | null => {
        const after = lenientJson(next, f.show);
        const emptied = after !== undefined && after.type === "object" && (after.children ?? []).length === 0 && next.replace(/^\ufeff/, "").trim() === "{}";
        // only the host's skeleton left (ours, or the host added it to the file we created); getNodeValue makes null-prototype objects
        const initial = initialOf(host, e.path);
        const skeleton = !emptied && e.created && initial !== undefined && after !== undefined && isDeepStrictEqual(JSON.parse(JSON.stringify(getNodeValue(after))), initial);
        return (emptied || skeleton) && e.created ? null : emptied && e.blank !== undefined ? e.blank : next;
      };
      switch (e.kind) {
        case "file": {
          const h = sha256(text);
          if (changed(h)) return "kept";
          f.cur = null;
          break;
        }
        case "json": {
          const tree = lenientJson(text, f.show);
          const v = valueAt(tree, e.key!);
          if (v === undefined) return "removed";
          const h = sha256(JSON.stringify(v));
          if (changed(h)) return "kept";
          // comments the ledger says were in the object before: restored only when they are in the file now
          if (e.emptyInner?.trim() && !text.includes(e.emptyInner.trim())) {
            conflicts.push({ code: "changed_since_adopt", message: `${describe(e)}: the comments hcpx recorded around it are not in the file; left in place`, file: f.show, hint: "remove the entry by hand", severity: "warning" });
            return "kept";
          }
          const at = e.insertedAt ?? e.key!;
          let next: string;
          if (at.length < e.key!.length && onlyChain(nodeAt(tree, at), e.key!.slice(at.length))) next = removeJson(text, tree, at, e.emptyInner);
          else next = removeJson(text, tree, e.key!, at.length === e.key!.length ? e.emptyInner : undefined);
          f.cur = jsonLeft(next, e);
          break;
        }
        case "json-items": {
          const tree = lenientJson(text, f.show);
          const ours = new Set(e.items ?? []);
          const next = withoutItems(text, tree, e, ours, f.show);
          if (next === undefined) return "removed"; // none of hcpx's items is there (any more)
          f.cur = jsonLeft(next, e);
          break;
        }
        case "toml": {
          const parsed = parseTomlFor(text, f.show);
          const v = tomlValueAt(parsed, e.key!);
          if (v === undefined) return "removed";
          const h = sha256(JSON.stringify(v));
          if (changed(h)) return "kept";
          const next = removeToml(text, e.key!, e.prefix);
          parseTomlFor(next, f.show);
          f.cur = e.created && next.trim() === "" ? null : next;
          break;
        }
        case "markdown-block": {
          const span = findBlock(text, f.show);
          if (!span) return "removed";
          const h = sha256(blockContent(span.inner));
          if (changed(h)) return "kept";
          const next = removeBlock(text, f.show, e.prefix);
          f.cur = e.created && next === "" ? null : next;
          break;
        }
      }
    } catch (err) {
      if (err instanceof HcpxError) {
        problems.push(...err.problems);
        return "kept";
      }
      throw err;
    }
    f.hosts.add(host);
    return "removed";
  }

  /** the `initial` skeleton of the json target of `host` at display path `path` */
  function initialOf(host: string, path: string): Record<string, unknown> | undefined {
    const d = descriptors.find((x) => x.host === host);
    for (const t of d?.scopes[scope]?.targets ?? []) {
      if (t.initial && (Array.isArray(t.path) ? t.path : [t.path]).some((p) => showOf(absOf(p)) === path)) return t.initial;
    }
    return undefined;
  }

  const removing = new Set(opts.remove ? hosts : []);
  const textChecked = new Set<string>();
  const descriptors: Descriptor[] = [];
  for (const host of hosts) {
    try {
      descriptors.push(loadDescriptor(host));
    } catch (err) {
      if (err instanceof HcpxError) problems.push(...err.problems);
      else throw err;
    }
  }
  if (problems.length) throw new HcpxError(problems);
  // smol-toml only when a TOML file is involved
  const needToml = descriptors.some((d) => Object.values(d.scopes).some((sc) => sc?.targets.some((t) => t.format === "toml"))) || allLedgerEntries().some((e) => e.kind === "toml");
  const tomlMod = needToml ? await import("./tomledit") : undefined;
  const { parseTomlFor, setToml, removeToml, tomlValueAt } = tomlMod ?? ({} as typeof import("./tomledit"));

  // A ledger entry is acted on only when it is one this host's descriptor can
  // produce: a target path with its kind (and key), or `<skills dir>/<name>/SKILL.md`.
  // Anything else (a hand-made entry naming README.md, say) is ignored with a warning.
  for (const desc of descriptors) {
    const lh = ledger.hosts[desc.host];
    if (!lh) continue;
    const targets = desc.scopes[scope]?.targets ?? [];
    const fits = (e: LedgerEntry) =>
      targets.some((t) => {
        const paths = (Array.isArray(t.path) ? t.path : [t.path]).map((p) => showOf(absOf(p)));
        if (t.format === "dir-of-skills") return e.kind === "file" && paths.some((d) => e.path.startsWith(d + "/") && /^[a-z0-9]+(-[a-z0-9]+)*\/SKILL\.md$/.test(e.path.slice(d.length + 1)));
        const kind = t.items || t.members ? "json-items" : t.format === "jsonc" ? "json" : t.format;
        return kind === e.kind && paths.includes(e.path) && isDeepStrictEqual(e.key, t.key);
      });
    lh.entries = lh.entries.filter((e, i) => {
      if (fits(e)) return true;
      warnings.push({ code: "ledger_entry_ignored", severity: "warning", file: showLedger(), path: `hosts.${desc.host}.entries[${i}]`, message: `entry ${JSON.stringify(e.path)} (${e.kind}) is not a file hcpx writes for ${desc.name}; ignored: hcpx never reads, writes or deletes what it names`, hint: "the ledger is written by hcpx adopt; restore it from version control if someone changed it" });
      return false;
    });
  }

  for (const desc of descriptors) {
    const host = desc.host;
    const old = ledger.hosts[host];
    if (opts.remove) {
      if (!old) {
        notes.push(`${desc.name}: nothing recorded in ${showLedger()} for ${scope} scope, nothing to remove`);
        continue;
      }
      const kept: LedgerEntry[] = [];
      for (const e of old.entries) {
        if (claimedByOthers(host, e, removing)) continue;
        if (removeEntry(host, e) === "kept") kept.push(e);
      }
      for (const d of old.dirs) rmdirCandidates.add(absOf(d));
      if (kept.length) newHosts[host] = { scope, entries: kept, dirs: old.dirs, ...(old.command ? { command: old.command } : {}) };
      continue;
    }
    const spec = desc.scopes[scope];
    if (!spec) {
      problems.push({ code: "no_scope", message: `${desc.name} has no ${scope}-scope configuration in hcpx`, hint: `use --scope ${scope === "user" ? "project" : "user"}` });
      continue;
    }
    for (const n of spec.notes ?? []) notes.push(`${desc.name}: ${n}`);
    const skillsTarget = spec.targets.find((t) => t.format === "dir-of-skills");
    const mcp = mcpFor(host);
    let projection: Projection;
    try {
      const shell = shellFor(desc, descriptors);
      projection = projectionFor(skillsTarget ? first(skillsTarget.path) : ".hcp/generated/skills", { shell, ...(shell ? { shellCommand: shellCommandOf(desc) } : {}) });
    } catch (err) {
      if (err instanceof HcpxError) {
        problems.push(...err.problems);
        continue;
      }
      throw err;
    }
    // pack text that would break the files it lands in (a marker, a control character): refused, naming the pack file
    let unsafe = false;
    for (const p of projection.packs) {
      if (textChecked.has(p.pack.dir)) continue;
      textChecked.add(p.pack.dir);
      // what lands is the Skill copy, the leads and the surface's texts: checked in memory; the pack's files are read for positions only when something is found
      const copy = projection.skills.find((k) => k.packId === p.pack.id)?.content ?? "";
      const texts = [copy, p.description, ...p.leads, p.pack.surface.description, ...(p.pack.surface.commands ?? []).flatMap((c) => [c.summary, c.description ?? ""])];
      if (!texts.some((t) => typeof t === "string" && unsafeHostText(t))) continue;
      const found = hostTextProblems(p.pack, undefined, { leads: p.leads, description: p.description });
      const bad = found.length ? found : [{ code: "host_text_unsafe", severity: "error" as const, message: "the Skill copy holds a block marker or a control character", file: display(p.pack.skillFile), hint: "run hcpx lint on the pack" }];
      if (bad.length) unsafe = true;
      problems.push(...bad.map((x) => ({ ...x, hint: `${x.hint}; hcpx adopts nothing while a pack holds it` })));
    }
    if (unsafe) continue;
    const command = opts.command !== undefined ? mcp.argv : opts.useRecordedCommand ? old?.command : undefined;
    // the host's tool shape (descriptor `tools`): per-command lets its approval tell reads from gated writes
    const shaped = desc.tools === "per-command" ? [...mcp.argv, "--shape", "per-command"] : mcp.argv;
    // user scope: the entry serves the user config, whatever directory and environment the host starts it in
    const served = scope === "user" && opts.userConfig && !opts.preview ? [...shaped, "--config", opts.userConfig] : shaped;
    commandsOut[host] = served;
    const classes = commandClasses(projection, desc);
    const ctx: TemplateContext = {
      command: served[0]!,
      args: served.slice(1),
      argv: served,
      envVars: [...new Set(projection.packs.flatMap((p) => p.pack.surface.binding?.env ?? []))].sort(),
      promptBlock: projection.promptBlock,
      hash: projection.hash,
      packs: projection.packs.map((p) => p.pack.id),
      host,
      hostName: desc.name,
      bundle: opts.bundle,
      ...(desc.toolApprovals ? { toolApprovals: toolApprovals(desc.toolApprovals, classes) } : {}),
    };
    const entries: LedgerEntry[] = [];
    const dirs = new Set<string>(old?.dirs ?? []);
    // A file or block another host's adopt wrote (AGENTS.md and .agents/skills for Codex and
    // opencode) is shared: this host takes over what that entry knows (created, prefix…), so
    // that whichever host is removed last restores what was there before.
    const oldEntry = (e: Pick<LedgerEntry, "path" | "kind" | "key">) => old?.entries.find((x) => ledgerKey(x) === ledgerKey(e as LedgerEntry)) ?? allLedgerEntries().find((x) => ledgerKey(x) === ledgerKey(e as LedgerEntry));
    const ownedBefore = (e: Pick<LedgerEntry, "path" | "kind" | "key">) => allLedgerEntries().some((x) => ledgerKey(x) === ledgerKey(e as LedgerEntry));
    const noteDirs = (f: VFile) => {
      if (opts.preview) return;
      for (const d of missingDirs(dirname(f.real), base)) dirs.add(showOf(d));
      // directories another host's adopt created for this same file are shared too
      for (const [h, lh] of Object.entries(ledger.hosts)) if (h !== host && lh.entries.some((x) => x.path === f.show)) for (const d of lh.dirs) if (f.show.startsWith(d + "/")) dirs.add(d);
    };

    for (const t of spec.targets) {
      try {
        const paths = Array.isArray(t.path) ? t.path : [t.path];
        let abs = absOf(paths[0]!);
        if (!opts.preview) {
          for (const p of paths) {
            const f = file(absOf(p));
            if (f.orig.kind !== "absent" || f.cur !== null) {
              abs = absOf(p);
              break;
            }
          }
        }
        if (t.format === "dir-of-skills") {
          if (opts.skills === false) continue;
          const dir = file(abs);
          if (dir.orig.kind === "file" || dir.orig.kind === "other") throw new HcpxError({ code: "not_a_directory", message: "is a file, expected the skills directory", file: dir.show, hint: "move the file away; hcpx writes <pack>/SKILL.md below this directory" });
          for (const s of projection.skills) {
            const f = file(join(abs, s.packId, "SKILL.md"));
            const e = ownedFile(host, f, s.content, t, oldEntry, ownedBefore);
            entries.push(e);
            noteDirs(f);
          }
          continue;
        }
        const f = file(abs);
        requireFileOrAbsent(f);
        // the host expands its variable syntax (hosts/<host>.json5 `vars`) in what we write: no host has an escape, so refuse
        if (t.vars) {
          const re = new RegExp(t.vars.pattern, "u");
          const w = mcp.argv.find((x) => re.test(x));
          if (w !== undefined) {
            throw new HcpxError({ code: "host_variable", message: `the MCP command word ${JSON.stringify(w)} holds ${JSON.stringify(re.exec(w)![0])}, which ${desc.name} expands as a variable here (${t.vars.syntax}); it has no escape for it, so hcpx writes nothing`, file: f.show, hint: "install or run hcpx from a path without that text, or pass --command with a command line without it" });
          }
        }
        if (t.note) f.notes.push(t.note);
        if (t.items || t.members) {
          const e = itemsTarget(host, f, t, desc, classes, oldEntry);
          if (!e) continue; // an allow-list that is not there (ifPresent): nothing to add to
          entries.push(e);
          noteDirs(f);
          continue;
        }
        const envRefs = t.envSyntax ? Object.fromEntries(ctx.envVars.map((n) => [n, t.envSyntax!.replaceAll("VAR", n)])) : undefined;
        const rendered = await render(host, t.template!, envRefs ? { ...ctx, envRefs } : ctx);
        let e: LedgerEntry;
        if (t.format === "file") e = ownedFile(host, f, rendered, t, oldEntry, ownedBefore);
        else if (t.format === "markdown-block") e = mdTarget(host, f, rendered, t, oldEntry);
        else if (t.format === "toml") e = tomlTarget(host, f, rendered, t, desc, oldEntry, ownedBefore);
        else e = jsonTarget(host, f, rendered, t, desc, oldEntry, ownedBefore);
        if ((t.format === "json" || t.format === "jsonc" || t.format === "toml") && mcp.machineSpecific) f.notes.push("machine-specific MCP command (absolute paths)");
        entries.push(e);
        noteDirs(f);
      } catch (err) {
        if (err instanceof HcpxError) problems.push(...err.problems);
        else throw err;
      }
    }
    // Stale: recorded before, no longer projected.
    const now = new Set(entries.map(ledgerKey));
    const kept: LedgerEntry[] = [];
    for (const e of old?.entries ?? []) {
      if (now.has(ledgerKey(e))) continue;
      if (claimedByOthers(host, e, removing)) continue;
      if (removeEntry(host, e) === "kept") kept.push(e);
      else for (const d of dirs) rmdirCandidates.add(absOf(d));
    }
    newHosts[host] = { scope, entries: [...entries, ...kept], dirs: [...dirs].sort(), ...(command && !opts.preview ? { command } : {}) };
  }
  if (problems.length) throw new HcpxError(problems);

  // ---- the new ledger ----
  const next: Ledger = { ...ledger, hosts: { ...ledger.hosts } };
  for (const h of hosts) delete next.hosts[h];
  Object.assign(next.hosts, newHosts);
  const ledgerNew = Object.keys(next.hosts).length ? serializeLedger(next) : undefined;

  const changes: FileChange[] = [];
  for (const f of vfs.values()) {
    const origText = f.orig.kind === "file" ? f.orig.text : null;
    if (f.cur === origText) continue;
    changes.push({
      path: f.show,
      abs: f.abs,
      real: f.real,
      kind: origText === null ? "create" : f.cur === null ? "delete" : "update",
      old: origText ?? undefined,
      new: f.cur ?? undefined,
      hosts: [...f.hosts].sort(),
      notes: [...new Set(f.notes)],
    });
  }
  changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Refuse, before anything is written, what the write would fail on half-way
  // (or should not do): a read-only file, a directory we cannot write in.
  if (!opts.preview) {
    for (const ch of changes) {
      const f = vfs.get(ch.abs)!;
      if (f.orig.kind === "file" && (f.orig.mode & 0o200) === 0) {
        problems.push({ code: "read_only", message: `is read-only (mode ${f.orig.mode.toString(8)}); left untouched`, file: ch.path, hint: "make it writable (chmod u+w) if hcpx should edit it, or leave this host out" });
        continue;
      }
      let d = dirname(ch.real);
      while (!readEntry(d).kind.startsWith("dir") && dirname(d) !== d) d = dirname(d);
      try {
        accessSync(d, fsConstants.W_OK);
      } catch {
        problems.push({ code: "read_only", message: `cannot write in ${showOf(d) || "."}: permission denied; nothing written`, file: ch.path, hint: "make the directory writable, or leave this host out" });
      }
    }
    if (problems.length) throw new HcpxError(problems);
  }
  const rmdirs = [...rmdirCandidates].sort((a, b) => b.length - a.length);
  return { scope, base, hosts, remove: opts.remove === true, changes, notes, conflicts, warnings, ledgerFile, ledgerOld, ledgerNew: ledgerNew === ledgerOld ? ledgerOld : ledgerNew, ledgerBase, journalFile, journalPending, staleTemps: [...temps].sort(), rmdirs, commands: commandsOut };

  // ---- format handlers ----
  function ownedFile(host: string, f: VFile, content: string, t: Target, oldEntry: (e: LedgerEntry) => LedgerEntry | undefined, ownedBefore: (e: LedgerEntry) => boolean): LedgerEntry {
    requireFileOrAbsent(f);
    if (t.maxChars !== undefined && content.length > t.maxChars) {
      throw new HcpxError({ code: "too_large", message: `would be ${content.length} characters; the host ignores text beyond ${t.maxChars}`, file: f.show, hint: "activate fewer packs, or shorten their leads" });
    }
    const key: LedgerEntry = { path: showPath(f), kind: "file", sha256: sha256(content), created: true };
    const prev = oldEntry(key);
    if (f.plannedBy && f.plannedBy.text !== content) {
      throw new HcpxError({ code: "host_conflict", message: `${f.plannedBy.host} and ${host} would write different content here`, file: f.show, hint: "adopt these hosts one at a time, or give them different paths" });
    }
    if (f.cur !== null && f.cur !== content && !f.plannedBy && !prev && !ownedBefore(key) && !opts.force) {
      throw new HcpxError({ code: "not_ours", message: "exists and was not written by hcpx", file: f.show, hint: "move it away, or rerun with --force to replace it" });
    }
    const created = prev ? prev.created : f.plannedBy ? true : f.orig.kind === "absent";
    if (f.cur !== null && f.cur !== content && prev && sha256(f.cur) !== prev.sha256) f.notes.push("was edited since hcpx wrote it; replaced by the projection");
    f.cur = content;
    f.plannedBy ??= { host, text: content };
    f.hosts.add(host);
    return { ...key, created };
  }

  function mdTarget(host: string, f: VFile, content: string, t: Target, oldEntry: (e: LedgerEntry) => LedgerEntry | undefined): LedgerEntry {
    if (t.maxChars !== undefined && content.length > t.maxChars) {
      throw new HcpxError({ code: "too_large", message: `the hcp block would be ${content.length} characters; the host ignores text beyond ${t.maxChars}`, file: f.show, hint: "activate fewer packs, or shorten their leads" });
    }
    const key: LedgerEntry = { path: showPath(f), kind: "markdown-block", sha256: sha256(blockContent(content)), created: false };
    const prev = oldEntry(key);
    const before = f.cur ?? undefined;
    const existing = before !== undefined ? findBlock(before, f.show) : undefined;
    if (f.plannedBy && existing && blockContent(existing.inner) !== blockContent(content)) {
      throw new HcpxError({ code: "host_conflict", message: `${f.plannedBy.host} and ${host} would write different hcp blocks here`, file: f.show, hint: "adopt these hosts one at a time" });
    }
    const r = setBlock(before, content, f.show);
    if (t.maxBytes !== undefined && Buffer.byteLength(r.text) > t.maxBytes) {
      throw new HcpxError({ code: "too_large", message: `would be ${Buffer.byteLength(r.text)} bytes; the host reads at most ${t.maxBytes}`, file: f.show, hint: "shorten the file, or activate fewer packs" });
    }
    f.cur = r.text;
    f.plannedBy ??= { host, text: r.text };
    f.hosts.add(host);
    const sameRun = f.plannedBy.host !== host;
    if (prev && existing) return { ...key, created: prev.created, prefix: prev.prefix };
    if (!sameRun) f.mdPrefix = r.prefix;
    return { ...key, created: f.orig.kind === "absent", prefix: sameRun ? f.mdPrefix : r.prefix };
  }

  function tomlTarget(host: string, f: VFile, snippet: string, _t: Target, desc: Descriptor, oldEntry: (e: LedgerEntry) => LedgerEntry | undefined, ownedBefore: (e: LedgerEntry) => boolean): LedgerEntry {
    const keyPath = _t.key!;
    const text = f.cur ?? "";
    const parsed = parseTomlFor(text, f.show);
    const want = tomlValueAt(parseTomlFor(snippet, `templates/${host}/${_t.template}`), keyPath);
    if (want === undefined) throw new HcpxError({ code: "bad_descriptor", message: `template does not define [${keyPath.join(".")}]`, file: `templates/${host}/${_t.template}` });
    const key: LedgerEntry = { path: showPath(f), kind: "toml", key: keyPath, sha256: sha256(JSON.stringify(want)), created: false };
    const prev = oldEntry(key);
    const have = tomlValueAt(parsed, keyPath);
    if (have !== undefined && !prev && !ownedBefore(key) && JSON.stringify(have) !== JSON.stringify(want) && !opts.force) {
      throw new HcpxError({ code: "not_ours", message: `an MCP server [${keyPath.join(".")}] already exists and was not written by hcpx`, file: f.show, hint: `remove or rename it, or rerun with --force to replace it (${desc.name})` });
    }
    const r = setToml(text, parsed, keyPath, snippet, f.show);
    const check = parseTomlFor(r.text, f.show);
    if (JSON.stringify(tomlValueAt(check, keyPath)) !== JSON.stringify(want)) {
      throw new HcpxError({ code: "toml_unsupported", message: `cannot place [${keyPath.join(".")}] in this file without changing other tables`, file: f.show, hint: "move the existing entry to its own table at the end of the file" });
    }
    if (have !== undefined && prev && sha256(JSON.stringify(have)) !== prev.sha256 && JSON.stringify(have) !== JSON.stringify(want)) f.notes.push("the hcp entry was edited since hcpx wrote it; replaced");
    f.cur = r.text;
    f.hosts.add(host);
    if (prev && have !== undefined) return { ...key, created: prev.created, prefix: prev.prefix };
    return { ...key, created: f.orig.kind === "absent", prefix: have === undefined ? r.prefix : undefined };
  }

  function jsonTarget(host: string, f: VFile, rendered: string, t: Target, desc: Descriptor, oldEntry: (e: LedgerEntry) => LedgerEntry | undefined, ownedBefore: (e: LedgerEntry) => boolean): LedgerEntry {
    const keyPath = t.key!;
    let value: unknown;
    try {
      value = JSON.parse(rendered);
    } catch (err) {
      throw new HcpxError({ code: "bad_template", message: `template did not render JSON: ${(err as Error).message}`, file: `templates/${host}/${t.template}`, hint: "this is a bug in the host's template" });
    }
    const rules = { comments: t.format === "jsonc", trailingCommas: t.format === "jsonc" && t.trailingCommas !== false };
    const text = f.cur ?? (t.initial ? JSON.stringify(t.initial, null, 2) + "\n" : "");
    const tree = parseJsonFor(text, f.show, rules, desc.name);
    const key: LedgerEntry = { path: showPath(f), kind: "json", key: keyPath, sha256: sha256(JSON.stringify(value)), created: false };
    const prev = oldEntry(key);
    const have = valueAt(tree, keyPath);
    if (have !== undefined && !prev && !ownedBefore(key) && JSON.stringify(have) !== JSON.stringify(value) && !opts.force) {
      const n = nodeAt(tree, keyPath)!;
      throw new HcpxError({ code: "not_ours", message: `an MCP server \`${keyPath.join(".")}\` already exists and was not written by hcpx`, file: f.show, ...lineCol(text, n.offset), hint: "remove or rename it, or rerun with --force to replace it" });
    }
    if (have !== undefined && JSON.stringify(have) === JSON.stringify(value)) {
      // already as projected: no edit (keeps its formatting)
      f.hosts.add(host);
      return prev ? { ...key, created: prev.created, blank: prev.blank, insertedAt: prev.insertedAt, emptyInner: prev.emptyInner } : { ...key, insertedAt: keyPath };
    }
    const r = setJson(text, tree, keyPath, value, f.show);
    // the host must be able to read what we write
    parseJsonFor(r.text, f.show, rules, desc.name);
    if (have !== undefined && prev && sha256(JSON.stringify(have)) !== prev.sha256) f.notes.push("the hcp entry was edited since hcpx wrote it; replaced");
    f.cur = r.text;
    f.hosts.add(host);
    if (prev && have !== undefined) return { ...key, created: prev.created, blank: prev.blank, insertedAt: prev.insertedAt, emptyInner: prev.emptyInner };
    const blank = f.orig.kind === "file" && !tree ? text : undefined;
    return { ...key, created: f.orig.kind === "absent", ...(blank !== undefined ? { blank } : {}), insertedAt: r.insert?.insertedAt ?? keyPath, emptyInner: r.insert?.emptyInner };
  }

  /**
   * A rules target: hcpx's items in the host's list (`items`: Claude Code's
   * permissions.allow) or object (`members`: opencode's permission map) at `key`.
   * What the person wrote there stays: an item already present before hcpx
   * added it is theirs and is never recorded, so `--remove` keeps it.
   */
  function itemsTarget(host: string, f: VFile, t: Target, desc: Descriptor, classes: CommandClass[], oldEntry: (e: LedgerEntry) => LedgerEntry | undefined): LedgerEntry | undefined {
    const keyPath = t.key!;
    const rules = { comments: t.format === "jsonc", trailingCommas: t.format === "jsonc" && t.trailingCommas !== false };
    const text = f.cur ?? (t.initial ? JSON.stringify(t.initial, null, 2) + "\n" : "");
    const tree = parseJsonFor(text, f.show, rules, desc.name);
    const base: LedgerEntry = { path: showPath(f), kind: "json-items", key: keyPath, sha256: "", created: false };
    const prev = oldEntry(base);
    const before = new Set(prev?.items ?? []);
    const have = valueAt(tree, keyPath);
    if (t.ifPresent && have === undefined) return undefined;
    const where = () => {
      const n = nodeAt(tree, keyPath);
      return n ? lineCol(text, n.offset) : {};
    };
    let next: unknown;
    let ours: string[];
    if (t.items) {
      if (have !== undefined && !Array.isArray(have)) throw new HcpxError({ code: "not_a_list", message: `\`${keyPath.join(".")}\` is not a list; hcpx adds its permission rules to that list`, file: f.show, ...where(), hint: `make it a list (${desc.name}'s format), or leave this host out` });
      const want = expandItems(t.items, classes);
      const current = (have as unknown[] | undefined) ?? [];
      const theirs = new Set(current.filter((x): x is string => typeof x === "string" && !before.has(x)));
      const kept = current.filter((x) => !(typeof x === "string" && before.has(x) && !want.includes(x)));
      for (const w of want) if (!kept.includes(w)) kept.push(w);
      next = kept;
      ours = want.filter((w) => !theirs.has(w));
    } else {
      const m = t.members!;
      if (have !== undefined && (have === null || typeof have !== "object" || Array.isArray(have))) throw new HcpxError({ code: "not_an_object", message: `\`${keyPath.join(".")}\` is not an object of rules; hcpx adds its permission rules there`, file: f.show, ...where(), hint: `make it an object (${desc.name}'s format), or leave this host out` });
      const want = expandMembers(m, classes);
      const current = { ...((have as Record<string, unknown> | undefined) ?? {}) };
      const theirs = new Set(Object.keys(current).filter((k) => !before.has(k)));
      for (const k of before) if (!(k in want) && !theirs.has(k)) delete current[k];
      for (const [k, v] of Object.entries(want)) {
        if (theirs.has(k) && current[k] !== v && !opts.force) {
          throw new HcpxError({ code: "not_ours", message: `a rule \`${keyPath.join(".")}.${k}\` already exists (${JSON.stringify(current[k])}) and was not written by hcpx`, file: f.show, ...where(), hint: `hcpx would set it to ${JSON.stringify(v)}: remove your rule, or rerun with --force to replace it` });
        }
        current[k] = v;
      }
      next = current;
      ours = Object.keys(want).filter((k) => !theirs.has(k) || opts.force);
    }
    const entry: LedgerEntry = { ...base, sha256: sha256(JSON.stringify(ours)), items: ours, created: prev ? prev.created : f.orig.kind === "absent" };
    // a whitespace-only file before hcpx: a removal that empties it gives that text back
    const blank = prev ? prev.blank : f.orig.kind === "file" && f.orig.text.replace(/^\ufeff/, "").trim() === "" ? f.orig.text : undefined;
    if (blank !== undefined) entry.blank = blank;
    // the person's list as they wrote it, so that --remove gives it back byte for byte
    const n = nodeAt(tree, keyPath);
    const original = prev ? prev.original : n ? text.slice(n.offset, n.offset + n.length) : undefined;
    if (original !== undefined) entry.original = original;
    // no rule to add and no list there: nothing is written (no empty `ask: []`)
    const nothing = have === undefined && (Array.isArray(next) ? next.length === 0 : Object.keys(next as object).length === 0);
    if (!nothing && JSON.stringify(next) !== JSON.stringify(have)) {
      const r = setJson(text, tree, keyPath, next, f.show);
      parseJsonFor(r.text, f.show, rules, desc.name);
      f.cur = r.text;
      const insertedAt = prev?.insertedAt ?? (have === undefined ? highestMissing(f, keyPath) : undefined);
      if (insertedAt) entry.insertedAt = insertedAt;
    } else if (prev?.insertedAt) entry.insertedAt = prev.insertedAt;
    f.hosts.add(host);
    return entry;
  }

  /** The highest ancestor of `keyPath` that the file did not have before this run (what a removal may take out again). */
  function highestMissing(f: VFile, keyPath: string[]): string[] {
    const orig = f.orig.kind === "file" ? lenientJson(f.orig.text, f.show) : undefined;
    for (let i = 1; i <= keyPath.length; i++) if (valueAt(orig, keyPath.slice(0, i)) === undefined) return keyPath.slice(0, i);
    return keyPath;
  }

  function showPath(f: VFile): string {
    return f.show;
  }
}

/** The project's ledger, journal and lock live in `.hcp/`: refused when a symlink leads that directory out of the project. */
export function ledgerInside(ledgerFile: string, root: string): void {
  const g = guardPath(toPosix(relative(root, ledgerFile)), { dir: root, prefix: "" });
  if (!g.ok) throw new HcpxError({ code: "symlink_refused", message: `the adopt ledger ${g.reason}`, file: toPosix(relative(root, ledgerFile)), hint: "replace the .hcp symlink with a directory of the project's own" });
}

/** A granted command as a host's rules see it. */
interface CommandClass {
  cls: "read" | "write" | "confirm";
  vars: Record<string, string>;
}

function commandClasses(projection: Projection, desc: Descriptor): CommandClass[] {
  const server = desc.server ?? "hcp";
  return projection.packs.flatMap((p) =>
    p.commands.map((c) => ({
      cls: c.command.policy.operation === "read" ? ("read" as const) : c.command.policy.confirm ? ("confirm" as const) : ("write" as const),
      vars: { tool: c.toolName, pack: p.pack.id, verb: c.command.verb_key, server },
    })),
  );
}

const fill = (pattern: string, vars: Record<string, string>) => pattern.replace(/\{(tool|pack|verb|server)\}/g, (_m, k: string) => vars[k]!);

function expandItems(spec: RuleClasses, classes: CommandClass[]): string[] {
  const out: string[] = [];
  const add = (s: string) => {
    if (!out.includes(s)) out.push(s);
  };
  for (const a of spec.always ?? []) add(a);
  for (const c of classes) for (const p of spec[c.cls] ?? []) add(fill(p, c.vars));
  return out;
}

function expandMembers(spec: NonNullable<Target["members"]>, classes: CommandClass[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (spec.read !== undefined) for (const a of spec.always ?? []) out[a] = spec.read;
  for (const c of classes) {
    const v = spec[c.cls];
    if (v !== undefined) out[fill(spec.pattern, c.vars)] = v;
  }
  return out;
}

/** Descriptor `toolApprovals` → { <tool>: { <field>: value } } for every served tool (hcp__read_skill is a read). */
function toolApprovals(spec: NonNullable<Descriptor["toolApprovals"]>, classes: CommandClass[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const c of classes) out[c.vars.tool!] = { [spec.field]: spec[c.cls] };
  out[READ_SKILL] = { [spec.field]: spec.read };
  return out;
}
const READ_SKILL = "hcp__read_skill";

/**
 * The text without hcpx's items at e.key (undefined: none of them is there).
 * A list or object hcpx created that is left empty goes, with the ancestors it
 * created (e.insertedAt) that are left empty too.
 */
function withoutItems(text: string, tree: Node | undefined, e: LedgerEntry, ours: Set<string>, show: string): string | undefined {
  const key = e.key!;
  const v = valueAt(tree, key);
  let rest: unknown;
  let empty: boolean;
  if (Array.isArray(v)) {
    const r = v.filter((x) => !(typeof x === "string" && ours.has(x)));
    if (r.length === v.length) return undefined;
    rest = r;
    empty = r.length === 0;
  } else if (v !== null && typeof v === "object") {
    const r = Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([k]) => !ours.has(k)));
    if (Object.keys(r).length === Object.keys(v).length) return undefined;
    rest = r;
    empty = Object.keys(r).length === 0;
  } else return undefined;
  if (e.original !== undefined) {
    // what is left is exactly what the person had: their text, byte for byte
    const n = nodeAt(tree, key)!;
    const was = lenientJson(e.original, show);
    if (was !== undefined && isDeepStrictEqual(JSON.parse(JSON.stringify(getNodeValue(was))), JSON.parse(JSON.stringify(rest)))) return text.slice(0, n.offset) + e.original + text.slice(n.offset + n.length);
  }
  if (!empty || !e.insertedAt) return setJson(text, tree, key, rest, show).text;
  let next = removeJson(text, tree, key);
  for (let i = key.length - 1; i >= e.insertedAt.length; i--) {
    const t2 = lenientJson(next, show);
    const n = nodeAt(t2, key.slice(0, i));
    if (!n || n.type !== "object" || (n.children ?? []).length > 0) break;
    next = removeJson(next, t2, key.slice(0, i));
  }
  return next;
}

function describe(e: LedgerEntry): string {
  if (e.kind === "file") return "this file";
  if (e.kind === "markdown-block") return "the hcp block";
  return `the entry \`${e.key!.join(".")}\``;
}

function lenientJson(text: string, show: string): Node | undefined {
  if (text.trim() === "") return undefined;
  const errors: ParseError[] = [];
  const tree = parseTree(unBom(text), errors, { allowTrailingComma: true, allowEmptyContent: true });
  if (errors.length) throw new HcpxError({ code: "bad_json", message: "cannot parse JSON", file: show, ...lineCol(text, errors[0]!.offset), hint: "fix the syntax; hcpx leaves a file it cannot parse untouched" });
  return tree;
}

/** True when the object `n` holds nothing but the chain `rest` (e.g. {hcp: …}). */
function onlyChain(n: Node | undefined, rest: string[]): boolean {
  if (!n || n.type !== "object") return false;
  const kids = n.children ?? [];
  if (kids.length !== 1 || kids[0]!.children![0]!.value !== rest[0]) return false;
  return rest.length === 1 ? true : onlyChain(kids[0]!.children![1], rest.slice(1));
}

export { emptyLedger };
