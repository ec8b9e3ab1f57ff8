// The adopt engine: from host descriptors and a projection to a plan of file
// changes, computed entirely in memory (nothing is written here). It knows
// neither hosts nor formats: everything host-specific is in hosts/*.json5 and
// templates/, every format's reading and editing in src/host/formats/ (one
// handler per format, looked up by the target's `format`). src/host/apply.ts writes
// a plan; src/plan/diff.ts shows it.
import { join, relative, dirname } from "node:path";
import type { Project } from "../pack/model";
import type { BlockOptions, Projection } from "../projection/types";
import { HcpxError, type Problem } from "../util/errors";
import { display, home, toPosix, userConfigDir } from "../util/paths";
import { canonicalHost, FORMAT_CAPS, loadDescriptor, type Descriptor, type Slot, type Target } from "./descriptor";
import { clientHostsOf, namesItsHost } from "./ask-rules";
import { isDeepStrictEqual } from "node:util";
import { guardPath, type Entry, type Guarded, type TrustBase } from "../util/fsio";
import { diskFs, type ReadFs } from "../plan/fs";
import { gitignoreChange } from "./gitignore";
import type { FileChange, FilePlan, LedgerRecord } from "../plan/types";
import { hostTextProblems, unsafeHostText } from "../pack/hosttext";
import { render, type TemplateContext } from "./templates";
import { resolveMcpCommand, type McpCommand } from "./command";
import { mcpTarget, remoteEntryValue, type RemoteOptions, type RemoteProbe } from "./remote";
import { isObj } from "../util/is";
import { sha256 } from "../util/text";
import { HANDLERS, handlerForKind, type CommandClass, type TargetContext, type VFile } from "./formats";
import { expandItems, followsTools } from "./formats/rules";
import { requireFileOrAbsent } from "./formats/common";
import { emptyLedger, ledgerKey, ledgerRender, parseJournal, parseLedger, reconcileLedger, sanitizeLedger, serializeLedger, type Ledger, type LedgerEntry, type LedgerHost } from "./ledger";

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
  /** `--approve`: write the person's approval of the server where the descriptor has one (a target marked `approval`) */
  approve?: boolean;
  /** $HOME (default: home()) */
  home?: string;
  /** previews: pretend every file is absent and use the portable command */
  preview?: boolean;
  /** false: leave the Skill copies (dir-of-skills targets) out of the plan (generate's host previews) */
  skills?: boolean;
  /** `generate --as`: the bundle's identity (for its manifest template) */
  bundle?: TemplateContext["bundle"];
  /** the disk as the plan reads it (src/plan/fs.ts); default: the real one. Planning never writes. */
  fs?: ReadFs;
  /**
   * The project's .gitignore block (src/host/gitignore.ts), for adopt itself: true
   * (`--gitignore`) plans it; false keeps it up to date once it is there; absent
   * (doctor, bundles, previews) leaves .gitignore out of the plan.
   */
  gitignore?: boolean;
  /** the hcpx bin an entry without --command runs (default: this process's, process.argv[1]); the library names its package's bin */
  selfEntry?: string;
  /**
   * user scope: the user config the MCP entry serves (`--config <file>` is appended to
   * its command), so that it serves the same packs from any directory and environment
   */
  userConfig?: string;
  /** `--url` (and `--token-env`): each host's remote entry for that server instead of the local command (src/host/remote.ts) */
  remote?: RemoteOptions;
  /**
   * what a URL the person gave listed (`--url`, `doctor --url`: src/host/remote.ts probeRemote): the approval
   * rules of a remote entry that names that URL are written from its tools (remoteRules)
   */
  probe?: RemoteProbe;
}

export type { FileChange };

/** An adopt plan: the FilePlan (src/plan/types.ts) of the host files, with its ledger and journal as the record. */
export interface AdoptPlan extends FilePlan {
  scope: Scope;
  /** project root or $HOME */
  base: string;
  hosts: string[];
  remove: boolean;
  /** printed with the plan */
  notes: string[];
  /**
   * what the plan did not take from the files it read back: ledger or journal
   * entries ignored (a path outside the base, a malformed entry), a recorded
   * MCP command not used. Printed with every plan; drift for --check.
   */
  warnings: Problem[];
  record: LedgerRecord;
  /** the MCP command line each host's entry runs (as planned; absent with --remove) */
  commands: Record<string, string[]>;
  /** the hosts whose entry is a remote one (--url, or recorded by an earlier --url), and its URL and token variable */
  remotes: Record<string, RemoteOptions>;
}

/** A remote entry's approval rules (AdoptRun.remoteRules): the listed tools' classes, "kept", or undefined for a local entry. */
type RemoteRules = CommandClass[] | "kept" | undefined;

/**
 * A projection for one host: `skillsPath` is where that host's Skill copies are (for the
 * prompt block); `shell`: whether the block may advertise `hcpx exec` (hcpx on the host's PATH).
 */
export type ProjectionFor = (skillsPath: string, opts?: BlockOptions) => Projection;


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
  // a host's old id (descriptor `aliases`: windsurf → devin) is the host itself
  const run = new AdoptRun(project, [...new Set(hosts.map(canonicalHost))], opts);
  for (const desc of run.descriptors) {
    if (opts.remove) run.removeHost(desc);
    else await run.adoptHost(desc, projectionFor);
  }
  const plan = run.plan();
  // the .gitignore block (--gitignore, or kept up to date once it is there): one more file of the plan
  const gi = opts.gitignore === undefined || opts.preview ? undefined : gitignoreChange(plan, opts.gitignore, opts.fs);
  if (gi) {
    plan.changes.push(gi);
    plan.changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  return plan;
}

/** What one ledger file says, and what an interrupted run's journal left (the ledger rebuilt from it). */
interface LedgerState {
  ledgerFile: string;
  show: string;
  ledger: Ledger;
  ledgerOld?: string;
  ledgerBase?: string;
  journalFile: string;
  journalPending: boolean;
  temps: Set<string>;
  journalRmdirs: string[];
}

function readLedgerState(fs: ReadFs, scope: Scope, project: Project, base: string, homeDir: string, trust: TrustBase, preview: boolean, problems: Problem[], warnings: Problem[]): LedgerState {
  const ledgerFile = ledgerPath(scope, project);
  const showLedger = scope === "user" ? "~/" + toPosix(relative(homeDir, ledgerFile)) : toPosix(relative(project.root, ledgerFile));
  let ledgerOld: string | undefined;
  let ledger: Ledger = emptyLedger();
  const journalFile = journalPath(ledgerFile);
  let journalPending = false;
  const temps = new Set<string>();
  const journalRmdirs: string[] = [];
  if (!preview) {
    if (scope === "project") ledgerInside(ledgerFile, base, fs.guard);
    const e = fs.entry(ledgerFile);
    if (e.kind === "file") {
      ledgerOld = e.text;
      ledger = parseLedger(e.text, showLedger);
    } else if (e.kind !== "absent") problems.push({ code: "not_a_file", message: "is not a file", file: showLedger });
    // An `adopt --write` killed mid-way left its journal: rebuild the ledger from
    // what is on disk now (each file changed is either its old or its new bytes).
    const j = fs.entry(journalFile);
    if (j.kind === "file") {
      const journal = parseJournal(j.text);
      if (journal) {
        journalPending = true;
        const showJournal = toPosix(relative(base, journalFile));
        const ignored = (path: string, what: string) =>
          warnings.push({ code: "journal_entry_ignored", severity: "warning", file: (scope === "user" ? "~/" : "") + showJournal, path, message: `${what}; ignored: hcpx never reads, writes or deletes what it names`, hint: "the journal is written by an interrupted hcpx adopt --write; delete it if someone else wrote it" });
        for (const [i, d] of (Array.isArray(journal.rmdirs) ? journal.rmdirs : []).entries()) {
          const g = fs.guard(d, trust, "absolute");
          if (g.ok) journalRmdirs.push(g.abs);
          else ignored(`rmdirs[${i}]`, `directory ${JSON.stringify(d)} ${g.reason}`);
        }
        const state = new Map<string, "old" | "new">();
        const hash = (v: unknown) => v === null || (typeof v === "string" && /^[0-9a-f]{64}$/.test(v));
        for (const [i, f] of journal.files.entries()) {
          const g = fs.guard(f?.path, trust);
          if (!g.ok) {
            ignored(`files[${i}].path`, `file ${JSON.stringify(f?.path)} ${g.reason}`);
            continue;
          }
          if (g.real !== f.real || !hash(f.before) || !hash(f.after)) {
            ignored(`files[${i}]`, `file ${JSON.stringify(f.path)} does not match what hcpx records (its real path or hashes)`);
            continue;
          }
          const now = fs.entry(g.real);
          const h = now.kind === "file" ? sha256(now.text) : now.kind === "absent" ? null : "?";
          state.set(f.path, h === f.after ? "new" : h === f.before ? "old" : "new");
          for (const t of fs.staleTemps(dirname(g.real))) temps.add(t);
        }
        const parse = (t: string | undefined) => (t === undefined ? emptyLedger() : parseLedger(t, (scope === "user" ? "~/" : "") + showJournal));
        ledger = reconcileLedger(parse(journal.ledgerOld), parse(journal.ledgerNew), (p) => state.get(p));
      }
    }
    for (const t of fs.staleTemps(dirname(ledgerFile))) if (!t.endsWith(".lock.tmp")) temps.add(t);
  }
  // What the ledger names is trusted only as far as guardPath lets it (ledger.ts).
  const sane = sanitizeLedger(ledger, scope, trust, showLedger, fs.guard);
  warnings.push(...sane.warnings);
  ledger = sane.ledger;
  const ledgerBase = journalPending || sane.warnings.length ? (Object.keys(ledger.hosts).length || ledger.dirs?.length ? serializeLedger(ledger) : undefined) : ledgerOld;
  return { ledgerFile, show: showLedger, ledger, ledgerOld, ledgerBase, journalFile, journalPending, temps, journalRmdirs };
}

/** Pack text that would break the files it lands in (a marker, a control character): refused, naming the pack file. */
function packTextProblems(projection: Projection, checked: Set<string>): Problem[] {
  const problems: Problem[] = [];
  // each pack's Skill copy by id, the first one as find() took it (a find() per pack was quadratic in the packs)
  const copies = new Map<string, string>();
  for (const k of projection.skills) if (!copies.has(k.packId)) copies.set(k.packId, k.content);
  for (const p of projection.packs) {
    if (checked.has(p.pack.dir)) continue;
    checked.add(p.pack.dir);
    // what lands is the Skill copy, the leads and the surface's texts: checked in memory; the pack's files are read for positions only when something is found
    const copy = copies.get(p.pack.id) ?? "";
    const texts = [copy, p.description, ...p.leads, p.pack.surface.description, ...(p.pack.surface.commands ?? []).flatMap((c) => [c.summary, c.description ?? ""])];
    if (!texts.some((t) => typeof t === "string" && unsafeHostText(t))) continue;
    const found = hostTextProblems(p.pack, undefined, { leads: p.leads, description: p.description });
    const bad = found.length ? found : [{ code: "host_text_unsafe" as const, severity: "error" as const, message: "the Skill copy holds a block marker or a control character", file: display(p.pack.skillFile), hint: "run hcpx lint on the pack" }];
    problems.push(...bad.map((x) => ({ ...x, hint: `${x.hint}; hcpx adopts nothing while a pack holds it` })));
  }
  return problems;
}

const shown = (argv: string[]) => "`" + argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w))).join(" ") + "`";

/**
 * One adopt plan in the making: the files as read and as planned (`vfs`), the ledger,
 * what is reported. `adoptHost` asks each target's format handler; nothing is written.
 */
class AdoptRun {
  readonly scope: Scope;
  readonly homeDir: string;
  readonly base: string;
  readonly problems: Problem[] = [];
  readonly conflicts: Problem[] = [];
  readonly warnings: Problem[] = [];
  readonly notes: string[] = [];
  readonly vfs = new Map<string, VFile>();
  readonly state: LedgerState;
  readonly ledger: Ledger;
  readonly descriptors: Descriptor[] = [];
  readonly newHosts: Record<string, LedgerHost> = {};
  /** the MCP command line each host's entry runs (AdoptPlan.commands) */
  readonly commands: Record<string, string[]> = {};
  /** AdoptPlan.remotes */
  readonly remotes: Record<string, RemoteOptions> = {};
  readonly rmdirCandidates: Set<string>;
  readonly removing: Set<string>;
  readonly textChecked = new Set<string>();
  readonly fs: ReadFs;

  constructor(
    readonly project: Project,
    readonly hosts: string[],
    readonly opts: AdoptOptions,
  ) {
    this.scope = opts.scope;
    this.fs = opts.fs ?? diskFs;
    this.homeDir = opts.home ?? home();
    this.base = opts.preview ? "/" : this.scope === "project" ? project.root : this.homeDir;
    // every path the ledger, the journal or a lock names must stay inside this base
    const trust: TrustBase = { dir: this.base, prefix: this.scope === "user" ? "~/" : "" };
    this.state = readLedgerState(this.fs, this.scope, project, this.base, this.homeDir, trust, opts.preview === true, this.problems, this.warnings);
    this.ledger = this.state.ledger;
    // a ledger that recorded a host under an id it has left (descriptor `aliases`) is read as the host's
    for (const k of Object.keys(this.ledger.hosts)) {
      const id = canonicalHost(k);
      if (id === k) continue;
      const old = this.ledger.hosts[k]!;
      const now = this.ledger.hosts[id];
      this.ledger.hosts[id] = now && now.scope === old.scope ? { ...now, entries: [...now.entries, ...old.entries.filter((e) => !now.entries.some((x) => ledgerKey(x) === ledgerKey(e)))], dirs: [...new Set([...now.dirs, ...old.dirs])].sort() } : (now ?? old);
      delete this.ledger.hosts[k];
    }
    this.rmdirCandidates = new Set(this.state.journalRmdirs);
    this.removing = new Set(opts.remove ? hosts : []);
    for (const host of hosts) {
      try {
        this.descriptors.push(loadDescriptor(host));
      } catch (err) {
        if (err instanceof HcpxError) this.problems.push(...err.problems);
        else throw err;
      }
    }
    if (this.problems.length) throw new HcpxError(this.problems);
    this.dropForeignEntries();
  }

  absOf(p: string): string {
    return p.startsWith("~/") ? join(this.homeDir, p.slice(2)) : join(this.base, p);
  }
  showOf(abs: string): string {
    return this.scope === "user" ? "~/" + toPosix(relative(this.homeDir, abs)) : toPosix(relative(this.base, abs));
  }
  allLedgerEntries(): LedgerEntry[] {
    return Object.values(this.ledger.hosts).flatMap((h) => h.entries);
  }
  claimedByOthers(host: string, e: LedgerEntry): boolean {
    return Object.entries(this.ledger.hosts).some(([h, lh]) => h !== host && !this.removing.has(h) && lh.entries.some((x) => ledgerKey(x) === ledgerKey(e)));
  }

  /** The file at `abs` as the plan sees it (read once; resolved inside the base). */
  file(abs: string): VFile {
    const show = this.showOf(abs);
    const hit = this.vfs.get(abs);
    if (hit) return hit;
    let real = abs;
    let orig: Entry = { kind: "absent" };
    if (!this.opts.preview) {
      real = this.fs.resolve(abs, this.base, show);
      orig = this.fs.entry(real);
      if (orig.kind === "binary") {
        throw new HcpxError({ code: "not_utf8", message: `is not UTF-8 text (invalid byte at offset ${orig.offset}); left untouched`, file: show, hint: "hcpx edits UTF-8 text only: convert the file to UTF-8, or move it away" });
      }
    }
    const f: VFile = { abs, real, show, orig, cur: orig.kind === "file" ? orig.text : null, hosts: new Set(), notes: [] };
    this.vfs.set(abs, f);
    return f;
  }

  /** The path of a target: the first of its alternatives that exists (or is planned), else the first. */
  targetPath(t: Target): string {
    const paths = Array.isArray(t.path) ? t.path : [t.path];
    if (!this.opts.preview) {
      for (const p of paths) {
        const f = this.file(this.absOf(p));
        if (f.orig.kind !== "absent" || f.cur !== null) return this.absOf(p);
      }
    }
    return this.absOf(paths[0]!);
  }

  /**
   * A ledger entry is acted on only when it is one this host's descriptor can
   * produce (its format's handler says: a target path with its kind and key, or
   * `<skills dir>/<name>/SKILL.md`). Anything else (a hand-made entry naming
   * README.md, say) is ignored with a warning.
   */
  private dropForeignEntries(): void {
    for (const desc of this.descriptors) {
      const lh = this.ledger.hosts[desc.host];
      if (!lh) continue;
      const targets = desc.scopes[this.scope]?.targets ?? [];
      const fits = (e: LedgerEntry) => targets.some((t) => HANDLERS[t.format].fits(e, t, (Array.isArray(t.path) ? t.path : [t.path]).map((p) => this.showOf(this.absOf(p)))));
      lh.entries = lh.entries.filter((e, i) => {
        if (fits(e)) return true;
        this.warnings.push({ code: "ledger_entry_ignored", severity: "warning", file: this.state.show, path: `hosts.${desc.host}.entries[${i}]`, message: `entry ${JSON.stringify(e.path)} (${e.kind}) is not a file hcpx writes for ${desc.name}; ignored: hcpx never reads, writes or deletes what it names`, hint: "the ledger is written by hcpx adopt; restore it from version control if someone changed it" });
        return false;
      });
    }
  }

  // ---- the MCP command: --command, else hcpx's own (derived from this invocation) ----
  // A command the ledger records (an earlier --command) is a value from a shared
  // file: it is written only with --use-recorded-command, and shown either way.
  mcpOf(host: string): McpCommand {
    const opts = this.opts;
    if (opts.preview && opts.command === undefined) return { argv: ["hcpx", "mcp"] };
    const recorded = this.ledger.hosts[host]?.command;
    if (opts.command === undefined && opts.useRecordedCommand && recorded) return { argv: recorded };
    return resolveMcpCommand(opts.command, opts.selfEntry);
  }
  mcpFor(host: string): McpCommand {
    const opts = this.opts;
    const mcp = this.mcpOf(host);
    const recorded = opts.preview ? undefined : this.ledger.hosts[host]?.command;
    if (opts.command === undefined && recorded && opts.useRecordedCommand) this.notes.push(`${host}: the MCP command recorded in ${this.state.show}, ${shown(recorded)}, is used (--use-recorded-command)`);
    else if (opts.command === undefined && recorded && !isDeepStrictEqual(recorded, mcp.argv)) {
      this.warnings.push({
        code: "recorded_command",
        severity: "warning",
        file: this.state.show,
        path: `hosts.${host}.command`,
        message: `records the MCP command ${shown(recorded)} for ${host} (an earlier --command); this plan writes ${shown(mcp.argv)} instead`,
        hint: `review the recorded command; to keep it, rerun with --use-recorded-command (or --command "…")`,
      });
    }
    // a remote entry runs no local command: nothing machine-specific is written for it
    if (mcp.machineSpecific && !this.remoteFor(host) && !this.notes.includes(mcp.machineSpecific)) this.notes.push(mcp.machineSpecific);
    return mcp;
  }

  // ---- the remote entry: --url, else the one the ledger records (an earlier --url) ----
  // A recorded remote is what the host's file already names: a plan without --url
  // or --command compares with it and keeps it (so --check, a re-run and doctor
  // agree), saying so. It is never contacted from here: hcpx reaches only a URL on
  // its own command line (remote.ts probeRemote, docs/remote-hosts.md).
  remoteFor(host: string): RemoteOptions | undefined {
    const opts = this.opts;
    if (opts.remote) return opts.remote;
    if (opts.command !== undefined || opts.preview || opts.remove) return undefined;
    const recorded = this.ledger.hosts[host]?.remote;
    // the ledger is a file of the repository: its URL is kept only while the host's own file names
    // that URL in hcpx's entry (what an earlier --url wrote); else it is never written (a planted
    // ledger must not make adopt send a token variable to a URL the person never named)
    return recorded && this.hostFileNames(host, recorded.url) ? recorded : undefined;
  }

  /**
   * The approval rules of `desc`'s remote entry (undefined: a local entry, whose rules are the packs'):
   *   - the URL was listed in this run (`--url`, `doctor --url`): its tools, by the server's annotations;
   *   - not listed, and the ledger records this URL for the host (an earlier --url wrote the rules): "kept",
   *     the rules stay as the file holds them (a recorded URL is never contacted, and a ledger is the
   *     repository's word: nothing it says is turned into an allow);
   *   - else none: no per-tool rule, the host asks before every tool of the server.
   */
  private remoteRules(desc: Descriptor): RemoteRules {
    const remote = this.remoteFor(desc.host);
    if (!remote || this.opts.remove) return undefined;
    const probe = this.opts.probe;
    const server = desc.servers?.[this.scope] ?? desc.server ?? "hcp";
    const again = `\`hcpx adopt ${desc.host}${this.scope === "user" ? " --scope user" : ""} --url ${remote.url}${remote.tokenEnv ? ` --token-env ${remote.tokenEnv}` : ""} --write\``;
    if (probe?.url === remote.url && probe.classes) {
      const listed = Object.entries(probe.classes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const n = (c: string) => listed.filter(([, x]) => x === c).length;
      const skipped = (probe.tools?.length ?? 0) - listed.length;
      this.notes.push(`${desc.name}: approval rules from the ${listed.length} tool(s) ${remote.url} lists ${probe.tokenFrom ? `with the token from $${probe.tokenFrom}` : "without a token"}: ${n("read")} read-only allowed, ${n("confirm")} asked (gated, or not marked read-only and non-destructive), ${n("write")} left to ${desc.name}'s own default${skipped > 0 ? `; ${skipped} tool name(s) no rule may hold as is get none` : ""}`);
      return listed.map(([tool, cls]) => ({ cls, vars: { tool, server } }));
    }
    const why = probe?.url === remote.url ? ` (${probe.error ?? "nothing listed"})` : "";
    if (this.ledger.hosts[desc.host]?.remote?.url === remote.url) {
      this.notes.push(`${desc.name}: its approval rules for ${remote.url} are kept as the last --url wrote them: without a listing${why} hcpx does not know the server's tools (a recorded URL is never contacted); ${again} lists them again`);
      return "kept";
    }
    this.notes.push(`${desc.name}: hcpx could not list the tools of ${remote.url}${why}, so it writes no per-tool rule for that server (hcpx's own hcp__read_skill aside): ${desc.name} asks before each of its tools; ${again} with the server reachable writes them`);
    return [];
  }

  /**
   * A field of the remote entry that holds approval rules (Codex's per-tool `tools`), as the host's file holds
   * it, while the entry is exactly what hcpx recorded writing (its ledger hash); else undefined (the rules
   * are then written as for no listed tool). Keeps the rules of a remote entry without a listing.
   */
  private keptField(desc: Descriptor, t: Target, field: string): unknown {
    if (!t.key || !t.entry?.remoteFields) return undefined;
    const fmt = HANDLERS[t.format].doc;
    const f = this.file(this.targetPath(t));
    if (!fmt || f.orig.kind !== "file") return undefined;
    try {
      const have = fmt.get(fmt.read(f.orig.text, f.show, t, desc.name), t.key, t);
      if (!isObj(have) || !Object.hasOwn(have, field)) return undefined;
      const ours = Object.fromEntries(Object.keys(t.entry.remoteFields).filter((k) => Object.hasOwn(have, k)).map((k) => [k, have[k]]));
      const rec = this.ledger.hosts[desc.host]?.entries.find((e) => e.kind === fmt.kind && e.path === f.show && JSON.stringify(e.key) === JSON.stringify(t.key));
      return rec && fmt.hash(ours) === rec.sha256 ? have[field] : undefined;
    } catch {
      return undefined; // a file the format cannot read: its own error comes from the plan
    }
  }

  /** Whether `host`'s MCP entry, as its file holds it now, names `url` in the descriptor's URL field. */
  private hostFileNames(host: string, url: string): boolean {
    const desc = this.descriptors.find((d) => d.host === host);
    const t = desc && mcpTarget(desc, this.scope);
    const field = t?.entry?.remoteFields && Object.entries(t.entry.remoteFields).find(([, v]) => v === "url")?.[0];
    if (!desc || !t?.key || !field) return false;
    const f = this.file(this.targetPath(t));
    if (f.orig.kind !== "file") return false;
    try {
      const fmt = HANDLERS[t.format].doc!;
      const entry = fmt.get(fmt.read(f.orig.text, f.show, t, desc.name), t.key, t);
      return isObj(entry) && entry[field] === url;
    } catch {
      return false; // a file the format cannot read: its own error comes from the plan
    }
  }

  // ---- the shell route: may a host's prompt block advertise `hcpx exec …`? ----
  // Where the host's shell can run it: the MCP entry runs a bare `hcpx` (found on PATH),
  // and the descriptor does not say its shell tool cannot (`shellRoute: false`). A file
  // two hosts read (AGENTS.md: Codex and opencode) holds one block, so it advertises the
  // route only if every host that reads it (adopted in this run, or recorded) can run it;
  // a target with alternatives counts as reading each of them.
  // The route is the MCP command without its last word `mcp`: `hcpx` when hcpx is on PATH,
  // else what the entry runs (absolute node + hcpx), named so that the block says how to run it.
  shellCommandOf(d: Descriptor): string | undefined {
    const argv = this.mcpOf(d.host).argv;
    // a remote entry runs no local command: the route would run this machine's packs, not the server's
    if (this.isRemote(d.host)) return undefined;
    if (d.shellRoute === false || argv.length < 2 || argv[argv.length - 1] !== "mcp") return undefined;
    return argv.slice(0, -1).map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : "'" + w.replaceAll("'", "'\\''") + "'")).join(" ");
  }
  shellFor(desc: Descriptor): boolean {
    const can = (d: Descriptor) => this.shellCommandOf(d) !== undefined;
    return can(desc) && this.blockReaders(desc).every(can);
  }

  /**
   * The other hosts (adopted in this run, or recorded at this scope) whose prompt block lands in
   * a file `desc`'s block lands in: one block serves them all, so it names only what each serves.
   */
  blockReaders(desc: Descriptor): Descriptor[] {
    // every file a block may land in: a target with alternatives (Zed's first existing rules file) counts with all of them
    const blocks = (d: Descriptor) => new Set((d.scopes[this.scope]?.targets ?? []).filter((t) => t.format === "markdown-block").flatMap((t) => (Array.isArray(t.path) ? t.path : [t.path]).map((p) => this.absOf(p))));
    const mine = blocks(desc);
    const others = new Map(this.descriptors.map((d) => [d.host, d]));
    for (const h of Object.keys(this.ledger.hosts)) {
      if (others.has(h) || this.ledger.hosts[h]!.scope !== this.scope) continue;
      try {
        others.set(h, loadDescriptor(h));
      } catch {
        // a host hcpx no longer knows: its own plan reports it
      }
    }
    return [...others.values()].filter((d) => d.host !== desc.host && [...blocks(d)].some((p) => mine.has(p)));
  }

  /** What the prompt block tells the model about the tools and the gate: what every host reading it is served (descriptor `tools`, `gate.model`). */
  blockForms(desc: Descriptor): { tools: "single" | "per-command" | "mixed"; gate?: string; server: string; remote?: boolean } {
    const all = [desc, ...this.blockReaders(desc)];
    const shapes = new Set(all.map((d) => d.tools ?? "single"));
    const gates = new Set(all.map((d) => d.gate?.model));
    const gate = gates.size === 1 ? [...gates][0] : undefined;
    // the server name the model sees in this scope (descriptor `servers`); hosts reading one block with different names: both
    const server = [...new Set(all.map((d) => d.servers?.[this.scope] ?? d.server ?? "hcp"))].sort().join("/");
    // a remote entry among them: the server's own shape, named only as its tool list gives it
    const remote = all.some((d) => this.isRemote(d.host));
    return { tools: shapes.size === 1 && !remote ? [...shapes][0]! : "mixed", ...(gate ? { gate } : {}), server, ...(remote ? { remote } : {}) };
  }

  /** Whether `host`'s entry is a remote one: this run's (--url, or kept from the ledger), else what the ledger records. */
  isRemote(host: string): boolean {
    return this.descriptors.some((d) => d.host === host) ? this.remoteFor(host) !== undefined : this.ledger.hosts[host]?.remote !== undefined;
  }

  /** The removal of one ledger entry (stale, or --remove): its format's handler. */
  removeEntry(host: string, e: LedgerEntry): "removed" | "kept" {
    let f: VFile;
    try {
      f = this.file(this.absOf(e.path));
    } catch (err) {
      if (err instanceof HcpxError) this.problems.push(...err.problems);
      else throw err;
      return "kept";
    }
    if (f.cur === null) return "removed";
    if (f.orig.kind !== "file" && f.orig.kind !== "absent") return "kept";
    let r: "removed" | "kept" | "gone";
    try {
      r = handlerForKind(e.kind).remove(e, f, f.cur, { host, force: this.opts.force === true, conflicts: this.conflicts, initialOf: (path) => this.initialOf(host, path), targetOf: (x) => this.targetOf(host, x) });
    } catch (err) {
      if (err instanceof HcpxError) {
        this.problems.push(...err.problems);
        return "kept";
      }
      throw err;
    }
    if (r === "kept") return "kept";
    if (r === "removed") f.hosts.add(host);
    return "removed";
  }

  /** the target of `host`'s descriptor that recorded the ledger entry `e` */
  targetOf(host: string, e: LedgerEntry): Target | undefined {
    const d = this.descriptors.find((x) => x.host === host);
    return d?.scopes[this.scope]?.targets.find((t) => HANDLERS[t.format].fits(e, t, (Array.isArray(t.path) ? t.path : [t.path]).map((p) => this.showOf(this.absOf(p)))));
  }

  /** the `initial` skeleton of the json target of `host` at display path `path` */
  initialOf(host: string, path: string): Record<string, unknown> | undefined {
    const d = this.descriptors.find((x) => x.host === host);
    for (const t of d?.scopes[this.scope]?.targets ?? []) {
      if (t.initial && (Array.isArray(t.path) ? t.path : [t.path]).some((p) => this.showOf(this.absOf(p)) === path)) return t.initial;
    }
    return undefined;
  }

  /** --remove: take out what the ledger records for this host (what another host still claims stays). */
  removeHost(desc: Descriptor): void {
    const host = desc.host;
    const old = this.ledger.hosts[host];
    if (!old) {
      this.notes.push(`${desc.name}: nothing recorded in ${this.state.show} for ${this.scope} scope, nothing to remove`);
      return;
    }
    const kept = old.entries.filter((e) => !this.claimedByOthers(host, e) && this.removeEntry(host, e) === "kept");
    for (const d of old.dirs) this.rmdirCandidates.add(this.absOf(d));
    if (kept.length) this.newHosts[host] = { scope: this.scope, entries: kept, dirs: old.dirs, ...(old.command ? { command: old.command } : {}), ...(old.remote ? { remote: old.remote } : {}) };
  }

  /** Plan one host: each target of its descriptor, asked of the target format's handler; then what is no longer projected goes. */
  async adoptHost(desc: Descriptor, projectionFor: ProjectionFor): Promise<void> {
    const { opts, scope } = this;
    const host = desc.host;
    const old = this.ledger.hosts[host];
    const spec = desc.scopes[scope];
    if (!spec) {
      this.problems.push({ code: "no_scope", message: `${desc.name} has no ${scope}-scope configuration in hcpx`, hint: `use --scope ${scope === "user" ? "project" : "user"}` });
      return;
    }
    for (const n of spec.notes ?? []) this.notes.push(`${desc.name}: ${n}`);
    if (desc.endOfLife) this.notes.push(`${desc.name}: end of life since ${desc.endOfLife.since}: ${desc.endOfLife.note}; adopt keeps working for people who still run it`);
    // how the person approves the server here, or what a gated write relies on (descriptor gate.person)
    const gate = desc.gate?.person?.[scope];
    if (gate && !opts.preview) this.notes.push(`${desc.name}: ${gate}`);
    // the person's approval: written with --approve where the descriptor has a place for it; else where they approve
    const approval = spec.targets.find((t) => t.approval);
    if (!opts.preview && !opts.remove) {
      const where = approval ? first(approval.path) : undefined;
      if (approval && !opts.approve) this.notes.push(`${desc.name}: \`hcpx adopt ${host}${scope === "user" ? " --scope user" : ""} --approve --write\` writes your approval of the server to ${where} (your own file${scope === "project" ? ", kept out of git" : ""})`);
      else if (approval) this.notes.push(`${desc.name}: --approve: your approval of the server is in ${where} (\`${approval.key!.join(".")}\`)`);
      else if (opts.approve) this.notes.push(`${desc.name}: --approve: hcpx writes no approval for this host (it keeps it in its own records); ${gate ?? "nothing to approve here"}`);
    }
    const skillsTarget = spec.targets.find((t) => t.format === "dir-of-skills");
    const mcp = this.mcpFor(host);
    let projection: Projection;
    try {
      const shell = this.shellFor(desc);
      projection = projectionFor(skillsTarget ? first(skillsTarget.path) : ".hcp/generated/skills", { shell, ...(shell ? { shellCommand: this.shellCommandOf(desc) } : {}), ...this.blockForms(desc) });
    } catch (err) {
      if (err instanceof HcpxError) return void this.problems.push(...err.problems);
      throw err;
    }
    const unsafe = packTextProblems(projection, this.textChecked);
    if (unsafe.length) return void this.problems.push(...unsafe);
    const entries: LedgerEntry[] = [];
    const dirs = new Set<string>(old?.dirs ?? []);
    const rules = this.remoteRules(desc);
    const ctx = this.targetContext(desc, projection, mcp, dirs, rules);
    for (const t of spec.targets) {
      try {
        // a remote entry without a listing: the rules an earlier --url wrote stay as they are (nothing hcpx did not see is allowed)
        if (rules === "kept" && followsTools(t)) {
          const paths = (Array.isArray(t.path) ? t.path : [t.path]).map((x) => this.showOf(this.absOf(x)));
          entries.push(...(old?.entries ?? []).filter((e) => HANDLERS[t.format].fits(e, t, paths)));
          continue;
        }
        const abs = this.targetPath(t);
        const caps = FORMAT_CAPS[t.format];
        if (caps.keyed || caps.prose) this.targetFile(this.file(abs), t, desc, mcp);
        entries.push(...(await HANDLERS[t.format].plan(t, abs, ctx)));
        // a rule the person wrote next to hcpx's that lets a gated write run without asking: said, never changed
        const audit = HANDLERS[t.format].audit;
        if (t.widens && audit && !opts.remove) this.warnings.push(...audit(t, this.file(abs), ctx));
      } catch (err) {
        if (err instanceof HcpxError) this.problems.push(...err.problems);
        else throw err;
      }
    }
    // Stale: recorded before, no longer projected.
    const now = new Set(entries.map(ledgerKey));
    const kept: LedgerEntry[] = [];
    for (const e of old?.entries ?? []) {
      if (now.has(ledgerKey(e)) || this.claimedByOthers(host, e)) continue;
      if (this.removeEntry(host, e) === "kept") kept.push(e);
      else for (const d of dirs) this.rmdirCandidates.add(this.absOf(d));
    }
    const command = opts.command !== undefined ? mcp.argv : opts.useRecordedCommand ? old?.command : undefined;
    const remote = this.remoteFor(host);
    this.newHosts[host] = { scope, entries: [...entries, ...kept], dirs: [...dirs].sort(), ...(command && !opts.preview ? { command } : {}), ...(remote && !opts.preview ? { remote } : {}) };
  }

  /** What a format handler gets for one host: the files, the ledger, the rendered prose and the MCP entry. */
  private targetContext(desc: Descriptor, projection: Projection, mcp: McpCommand, dirs: Set<string>, rules: RemoteRules): TargetContext {
    const host = desc.host;
    const old = this.ledger.hosts[host];
    // the host's tool shape (descriptor `tools`): per-command lets its approval tell reads from gated writes
    const shapedOnly = desc.tools === "per-command" ? [...mcp.argv, "--shape", "per-command"] : mcp.argv;
    // a host with ask rules hcpx writes, alone in reading this entry: the server knows which host's rules guard it
    // (`--host`, src/host/approval.ts), so that under confirm "host" the host's prompt is the person's one question
    // an entry several hosts read: the hosts whose rule may count when the client's clientInfo names them (--client-host)
    const clientHosts = this.opts.preview ? [] : clientHostsOf(desc, this.scope);
    const shaped = !this.opts.preview && namesItsHost(desc, this.scope) ? [...shapedOnly, "--host", desc.host] : clientHosts.length ? [...shapedOnly, "--client-host", clientHosts.join(",")] : shapedOnly;
    // user scope: the entry serves the user config, whatever directory and environment the host starts it in
    const served = this.scope === "user" && this.opts.userConfig && !this.opts.preview ? [...shaped, "--config", this.opts.userConfig] : shaped;
    // a remote entry runs no local command: nothing for the health checks to find on PATH
    const remote = this.remoteFor(host);
    this.commands[desc.host] = remote ? [] : served;
    if (remote) this.remotes[desc.host] = remote;
    if (remote && !this.opts.remote) this.notes.push(`${desc.name}: the remote entry recorded in ${this.state.show} (an earlier --url) is kept: ${remote.url}${remote.tokenEnv ? `, the token from $${remote.tokenEnv}` : ""}; a recorded URL is compared, not contacted (\`hcpx adopt ${host}${this.scope === "user" ? " --scope user" : ""} --check --url <url> [--token-env NAME]\` reaches it); --url replaces it, --command writes the local entry instead`);
    // a remote entry's rules: the tools its server listed (never this checkout's packs, grants or shell route)
    const classes = rules === undefined ? commandClasses(projection, desc, this.scope) : rules === "kept" ? [] : rules;
    const envVars = [...new Set(projection.packs.flatMap((p) => p.pack.surface.binding?.env ?? []))].sort();
    const tctx: TemplateContext = {
      command: served[0]!,
      args: served.slice(1),
      argv: served,
      envVars,
      promptBlock: projection.promptBlock,
      hash: projection.hash,
      packs: projection.packs.map((p) => p.pack.id),
      host,
      hostName: desc.name,
      bundle: this.opts.bundle,
    };
    // A file or block another host's adopt wrote (AGENTS.md and .agents/skills for Codex and
    // opencode) is shared: this host takes over what that entry knows (created, prefix…), so
    // that whichever host is removed last restores what was there before.
    const same = (e: Pick<LedgerEntry, "path" | "kind" | "key">) => (x: LedgerEntry) => ledgerKey(x) === ledgerKey(e as LedgerEntry);
    return {
      host,
      desc,
      force: this.opts.force === true,
      approve: this.opts.approve === true,
      conflicts: this.conflicts,
      classes,
      skills: this.opts.skills === false ? false : projection.skills,
      machineSpecific: remote ? undefined : mcp.machineSpecific,
      oldEntry: (e) => old?.entries.find(same(e)) ?? this.allLedgerEntries().find(same(e)),
      ownedBefore: (e) => this.allLedgerEntries().some(same(e)),
      ownerOf: (e, sha) => Object.entries(this.ledger.hosts).find(([h, lh]) => h !== host && !this.hosts.includes(h) && lh.scope === this.scope && lh.entries.some((x) => same(e)(x) && x.sha256 === sha))?.[0],
      render: (t) => render(host, t.template!, tctx),
      entryValue: (t) => (remote ? remoteEntryValue(t, remote, desc, (v, field) => (rules === "kept" ? this.keptField(desc, t, field) : undefined) ?? (v === "toolApprovals" ? (desc.toolApprovals ? toolApprovals(desc.toolApprovals, classes) : undefined) : expandItems((v as { items: Parameters<typeof expandItems>[0] }).items, classes))) : entryValue(t, served, envVars, desc, classes)),
      file: (abs) => this.file(abs),
      touched: (f) => {
        if (this.opts.preview) return;
        for (const d of this.fs.missingDirs(dirname(f.real), this.base)) dirs.add(this.showOf(d));
        // directories another host's adopt created for this same file are shared too
        for (const [h, lh] of Object.entries(this.ledger.hosts)) if (h !== host && lh.entries.some((x) => x.path === f.show)) for (const d of lh.dirs) if (f.show.startsWith(d + "/")) dirs.add(d);
      },
    };
  }

  /** The checks on a target's own file: a file (or absent), no host variable in the command, the target's note. */
  private targetFile(f: VFile, t: Target, desc: Descriptor, mcp: McpCommand): void {
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
  }

  /** The plan: every file that changes, the new ledger; refused before anything is written when a write would fail half-way. */
  plan(): AdoptPlan {
    const { problems, opts, state } = this;
    if (problems.length) throw new HcpxError(problems);
    const next: Ledger = { ...this.ledger, hosts: { ...this.ledger.hosts } };
    for (const h of this.hosts) delete next.hosts[h];
    Object.assign(next.hosts, this.newHosts);
    // A shared file holds one hcp block (AGENTS.md: Droid, Kilo, Qoder, Auggie…): when this run
    // rewrites it (another host joined whose shell cannot run `hcpx exec`), the block the other
    // hosts recorded is now this one. Their entries record its new hash, else their own
    // --check/--remove would take the block for a hand edit and leave it in place.
    const blocks = new Map(Object.values(this.newHosts).flatMap((h) => h.entries.filter((e) => e.kind === "markdown-block").map((e) => [ledgerKey(e), e.sha256] as const)));
    for (const [h, lh] of Object.entries(next.hosts)) {
      if (this.hosts.includes(h) || lh.scope !== this.scope || !lh.entries.some((e) => blocks.has(ledgerKey(e)) && blocks.get(ledgerKey(e)) !== e.sha256)) continue;
      next.hosts[h] = { ...lh, entries: lh.entries.map((e) => (blocks.has(ledgerKey(e)) ? { ...e, sha256: blocks.get(ledgerKey(e))! } : e)) };
    }
    const ledgerNew = Object.keys(next.hosts).length ? serializeLedger(next) : undefined;
    const vfs = this.vfs;
    const showOf = (abs: string) => this.showOf(abs);
    const changes: FileChange[] = [];
    const partsOf = (show: string) => Object.values(this.newHosts).flatMap((h) => h.entries.filter((e) => e.path === show).map((e) => ({ kind: e.kind, ...(e.key ? { key: e.key } : {}) })));
    for (const f of vfs.values()) {
      const origText = f.orig.kind === "file" ? f.orig.text : null;
      if (f.cur === origText) continue;
      changes.push({
        parts: f.cur === null ? [] : [...new Map(partsOf(f.show).map((x) => [JSON.stringify(x), x])).values()],
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
        while (this.fs.entry(d).kind !== "dir" && dirname(d) !== d) d = dirname(d);
        if (!this.fs.writable(d)) {
          problems.push({ code: "read_only", message: `cannot write in ${showOf(d) || "."}: permission denied; nothing written`, file: ch.path, hint: "make the directory writable, or leave this host out" });
        }
      }
      if (problems.length) throw new HcpxError(problems);
    }
    const rmdirs = [...this.rmdirCandidates].sort((a, b) => b.length - a.length);
    const recNew = ledgerNew === state.ledgerOld ? state.ledgerOld : ledgerNew;
    const render = ledgerRender({ file: state.ledgerFile, base: state.ledgerBase, new: recNew });
    const record: LedgerRecord = { kind: "ledger", file: state.ledgerFile, old: state.ledgerOld, new: recNew, base: state.ledgerBase, journal: state.journalFile, journalPending: state.journalPending, render };
    return { scope: this.scope, base: this.base, hosts: this.hosts, remove: opts.remove === true, changes, notes: this.notes, conflicts: this.conflicts, warnings: this.warnings, staleTemps: [...state.temps].sort(), rmdirs, record, commands: this.commands, remotes: this.remotes };
  }
}

/** The project's ledger, journal and lock live in `.hcp/`: refused when a symlink leads that directory out of the project. */
export function ledgerInside(ledgerFile: string, root: string, guard: (named: unknown, base: TrustBase) => Guarded = guardPath): void {
  const g = guard(toPosix(relative(root, ledgerFile)), { dir: root, prefix: "" });
  if (!g.ok) throw new HcpxError({ code: "symlink_refused", message: `the adopt ledger ${g.reason}`, file: toPosix(relative(root, ledgerFile)), hint: "replace the .hcp symlink with a directory of the project's own" });
}


function commandClasses(projection: Projection, desc: Descriptor, scope: "project" | "user"): CommandClass[] {
  const server = desc.servers?.[scope] ?? desc.server ?? "hcp";
  return projection.packs.flatMap((p) =>
    p.commands.map((c) => ({
      cls: c.command.policy.operation === "read" ? ("read" as const) : c.command.policy.confirm ? ("confirm" as const) : ("write" as const),
      vars: { tool: c.toolName, pack: p.pack.id, verb: c.command.verb_key, server },
    })),
  );
}


/** The MCP entry a target's `entry` describes: its fields in order, each slot filled (an empty one left out). */
function entryValue(t: Target, served: string[], envVars: string[], desc: Descriptor, classes: CommandClass[]): Record<string, unknown> {
  const slots: Record<Slot, () => unknown> = {
    command: () => served[0]!,
    args: () => served.slice(1),
    argv: () => served,
    env: () => (envVars.length ? Object.fromEntries(envVars.map((n) => [n, t.envSyntax!.replaceAll("VAR", n)])) : undefined),
    envNames: () => (envVars.length ? envVars : undefined),
    toolApprovals: () => (desc.toolApprovals ? toolApprovals(desc.toolApprovals, classes) : undefined),
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(t.entry!.fields)) {
    const value = typeof v === "string" ? slots[v]() : "items" in v ? expandItems(v.items, classes) : v.value;
    if (value !== undefined) out[k] = value;
  }
  return out;
}


/** Descriptor `toolApprovals` → { <tool>: { <field>: value } } for every served tool (hcp__read_skill is a read). */
function toolApprovals(spec: NonNullable<Descriptor["toolApprovals"]>, classes: CommandClass[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const c of classes) out[c.vars.tool!] = { [spec.field]: spec[c.cls] };
  out[READ_SKILL] ??= { [spec.field]: spec.read }; // a remote server that lists it otherwise is taken at its word
  return out;
}
const READ_SKILL = "hcp__read_skill";


export { emptyLedger };
