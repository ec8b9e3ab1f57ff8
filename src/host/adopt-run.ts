// One adopt plan in the making (src/host/engine.ts planAdopt): the files as
// read and as planned, the ledger, what is reported. Each target is asked of
// its format's handler (src/host/formats/); nothing is written here.
import { recordedElsewhere, twinFor, type Recorded } from "./twins";
import type { Project } from "../pack/model";
import type { Projection } from "../projection/types";
import { HcpxError, type Problem } from "../util/errors";
import { home, joinIn, relativeTo, toPosix } from "../util/paths";
import { FORMAT_CAPS, loadDescriptor, type Descriptor, type Target } from "./descriptor";
import { isDeepStrictEqual } from "node:util";
import type { Entry, TrustBase } from "../util/fsio";
import { diskFs, type ReadFs } from "../plan/fs";
import { resolveMcpCommand, type McpCommand } from "./command";
import { HANDLERS, handlerForKind, type VFile } from "./formats";
import { followsTools } from "./formats/rules";
import { ledgerKey, type Ledger, type LedgerEntry, type LedgerHost } from "./ledger";
import type { RemoteOptions } from "./remote";
import type { AdoptOptions, AdoptPlan, LedgerState, ProjectionFor, RunView, Scope } from "./adopt-types";
import { readLedgerState } from "./ledger-state";
import { packTextProblems } from "./pack-text";
import { remoteFor, remoteRules } from "./adopt-remote";
import { blockForms, shellCommandOf, shellFor } from "./block-route";
import { targetContext } from "./target-context";
import { finishPlan } from "./finish-plan";
import { canonicalLedgerHosts, first, homeNotes, hostNotes, targetFile, targetShows } from "./adopt-host";
import { homePath } from "./homes";
import type { ProjectionCache } from "./projection-cache";

const shown = (argv: string[]) =>
  "`" + argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w))).join(" ") + "`";

/**
 * One adopt plan in the making: the files as read and as planned (`vfs`), the ledger,
 * what is reported. `adoptHost` asks each target's format handler; nothing is written.
 */
export class AdoptRun implements RunView {
  readonly scope: Scope;
  readonly homeDir: string;
  /** where the hosts' home variables are read (descriptor `homes`) */
  readonly env: NodeJS.ProcessEnv;
  readonly base: string;
  readonly problems: Problem[] = [];
  readonly conflicts: Problem[] = [];
  readonly warnings: Problem[] = [];
  readonly unread: Problem[] = [];
  readonly notes: string[] = [];
  readonly vfs = new Map<string, VFile>();
  private recorded?: Recorded[]; // the other hosts' parts, resolved once (twins.ts)
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
    this.env = opts.env ?? process.env;
    this.base = opts.preview ? "/" : this.scope === "project" ? project.root : this.homeDir;
    // every path the ledger, the journal or a lock names must stay inside this base
    const trust: TrustBase = { dir: this.base, prefix: this.scope === "user" ? "~/" : "" };
    this.state = readLedgerState(
      this.fs,
      this.scope,
      project,
      this.base,
      this.homeDir,
      trust,
      opts.preview === true,
      this.problems,
      this.warnings,
    );
    this.ledger = this.state.ledger;
    // a ledger that recorded a host under an id it has left (descriptor `aliases`) is read as the host's
    canonicalLedgerHosts(this.ledger);
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
    // a host home moved by a variable: where, said; one hcpx cannot use (not absolute; out of $HOME at user scope), refused
    if (!opts.preview) for (const d of this.descriptors) homeNotes(this, d);
    if (this.problems.length) throw new HcpxError(this.problems);
    this.dropForeignEntries();
  }

  // joinIn, relativeTo: path's answers without its loop for normal paths (src/util/paths.ts; test/adopt/paths-fast.test.ts)
  absOf(p: string): string {
    return p.startsWith("~/") ? joinIn(this.homeDir, p.slice(2)) : joinIn(this.base, p);
  }
  pathOf(d: Descriptor, p: string): string {
    if (this.opts.preview || !d.homes) return this.absOf(p);
    return homePath(d, p, this.homeDir, this.env)?.abs ?? joinIn(this.base, p);
  }
  showOf(abs: string): string {
    return this.scope === "user" ? "~/" + toPosix(relativeTo(this.homeDir, abs)) : toPosix(relativeTo(this.base, abs));
  }
  allLedgerEntries(): LedgerEntry[] {
    return Object.values(this.ledger.hosts).flatMap((h) => h.entries);
  }
  claimedByOthers(host: string, e: LedgerEntry): boolean {
    return Object.entries(this.ledger.hosts).some(
      ([h, lh]) => h !== host && !this.removing.has(h) && lh.entries.some((x) => ledgerKey(x) === ledgerKey(e)),
    );
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
        throw new HcpxError({
          code: "not_utf8",
          message: `is not UTF-8 text (invalid byte at offset ${orig.offset}); left untouched`,
          file: show,
          hint: "hcpx edits UTF-8 text only: convert the file to UTF-8, or move it away",
        });
      }
    }
    const f: VFile = {
      abs,
      real,
      show,
      orig,
      cur: orig.kind === "file" ? orig.text : null,
      hosts: new Set(),
      notes: [],
      ...(this.opts.preview ? {} : twinFor((this.recorded ??= recordedElsewhere(this)), real, show)),
    };
    this.vfs.set(abs, f);
    return f;
  }

  /** The path of a target: the first of its alternatives that exists (or is planned), else the first. */
  targetPath(t: Target, d: Descriptor): string {
    const paths = Array.isArray(t.path) ? t.path : [t.path];
    if (!this.opts.preview) {
      for (const p of paths) {
        const f = this.file(this.pathOf(d, p));
        if (f.orig.kind !== "absent" || f.cur !== null) return this.pathOf(d, p);
      }
    }
    return this.pathOf(d, paths[0]!);
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
      const fits = (e: LedgerEntry) => targets.some((t) => HANDLERS[t.format].fits(e, t, targetShows(this, desc, t)));
      lh.entries = lh.entries.filter((e, i) => {
        if (fits(e)) return true;
        this.warnings.push({
          code: "ledger_entry_ignored",
          severity: "warning",
          file: this.state.show,
          path: `hosts.${desc.host}.entries[${i}]`,
          message: `entry ${JSON.stringify(e.path)} (${e.kind}) is not a file hcpx writes for ${desc.name}; ignored: hcpx never reads, writes or deletes what it names`,
          hint: "the ledger is written by hcpx adopt; restore it from version control if someone changed it",
        });
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
    if (opts.command === undefined && recorded && opts.useRecordedCommand)
      this.notes.push(
        `${host}: the MCP command recorded in ${this.state.show}, ${shown(recorded)}, is used (--use-recorded-command)`,
      );
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
    if (mcp.machineSpecific && !remoteFor(this, host) && !this.notes.includes(mcp.machineSpecific))
      this.notes.push(mcp.machineSpecific);
    return mcp;
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
      r = handlerForKind(e.kind).remove(e, f, f.cur, {
        host,
        force: this.opts.force === true,
        conflicts: this.conflicts,
        initialOf: (path) => this.initialOf(host, path),
        targetOf: (x) => this.targetOf(host, x),
      });
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
    return d && d.scopes[this.scope]?.targets.find((t) => HANDLERS[t.format].fits(e, t, targetShows(this, d, t)));
  }

  /** the `initial` skeleton of the json target of `host` at display path `path` */
  initialOf(host: string, path: string): Record<string, unknown> | undefined {
    const d = this.descriptors.find((x) => x.host === host);
    for (const t of d?.scopes[this.scope]?.targets ?? []) {
      if (
        t.initial &&
        (Array.isArray(t.path) ? t.path : [t.path]).some((p) => this.showOf(this.pathOf(d!, p)) === path)
      )
        return t.initial;
    }
    return undefined;
  }

  /** --remove: take out what the ledger records for this host (what another host still claims stays). */
  removeHost(desc: Descriptor): void {
    const host = desc.host;
    const old = this.ledger.hosts[host];
    if (!old) {
      this.notes.push(
        `${desc.name}: nothing recorded in ${this.state.show} for ${this.scope} scope, nothing to remove`,
      );
      return;
    }
    const kept = old.entries.filter((e) => !this.claimedByOthers(host, e) && this.removeEntry(host, e) === "kept");
    for (const d of old.dirs) this.rmdirCandidates.add(this.absOf(d));
    if (kept.length)
      this.newHosts[host] = {
        scope: this.scope,
        entries: kept,
        dirs: old.dirs,
        ...(old.command ? { command: old.command } : {}),
        ...(old.remote ? { remote: old.remote } : {}),
      };
  }

  /** Plan one host: each target of its descriptor, asked of the target format's handler; then what is no longer projected goes. */
  async adoptHost(desc: Descriptor, source: ProjectionFor | ProjectionCache): Promise<void> {
    const { opts, scope } = this;
    const host = desc.host;
    const old = this.ledger.hosts[host];
    const spec = desc.scopes[scope];
    if (!spec) {
      this.problems.push({
        code: "no_scope",
        message: `${desc.name} has no ${scope}-scope configuration in hcpx`,
        hint: `use --scope ${scope === "user" ? "project" : "user"}`,
      });
      return;
    }
    hostNotes(this, desc, spec);
    const skillsTarget = spec.targets.find((t) => t.format === "dir-of-skills");
    const mcp = this.mcpFor(host);
    let projection: Projection;
    try {
      const shell = shellFor(this, desc);
      // the Skills folder as the model finds it: where the host reads it (a moved home: `~/…` of the folder it is in)
      const skillsPath = skillsTarget
        ? this.showOf(this.pathOf(desc, first(skillsTarget.path)))
        : ".hcp/generated/skills";
      const block = {
        shell,
        ...(shell ? { shellCommand: shellCommandOf(this, desc) } : {}),
        ...blockForms(this, desc),
      };
      projection = typeof source === "function" ? source(skillsPath, block) : source.forHost(skillsPath, block);
    } catch (err) {
      if (err instanceof HcpxError) return void this.problems.push(...err.problems);
      throw err;
    }
    const unsafe = packTextProblems(projection, this.textChecked);
    if (unsafe.length) return void this.problems.push(...unsafe);
    const entries: LedgerEntry[] = [];
    const dirs = new Set<string>(old?.dirs ?? []);
    const rules = remoteRules(this, desc);
    const ctx = targetContext(this, desc, projection, mcp, dirs, rules);
    for (const t of spec.targets) {
      try {
        // a remote entry without a listing: the rules an earlier --url wrote stay as they are (nothing hcpx did not see is allowed)
        if (rules === "kept" && followsTools(t)) {
          entries.push(
            ...(old?.entries ?? []).filter((e) => HANDLERS[t.format].fits(e, t, targetShows(this, desc, t))),
          );
          continue;
        }
        const abs = this.targetPath(t, desc);
        const caps = FORMAT_CAPS[t.format];
        if (caps.keyed || caps.prose) targetFile(this.file(abs), t, desc, mcp);
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
    const remote = remoteFor(this, host);
    this.newHosts[host] = {
      scope,
      entries: [...entries, ...kept],
      dirs: [...dirs].sort(),
      ...(command && !opts.preview ? { command } : {}),
      ...(remote && !opts.preview ? { remote } : {}),
    };
  }

  /** The plan: every file that changes, the new ledger (src/host/finish-plan.ts). */
  plan(): AdoptPlan {
    return finishPlan(this);
  }
}
