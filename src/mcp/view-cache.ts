// The export view and its tool listing, kept while nothing it was built from
// changed: the view (src/mcp/view.ts) is built at start — or, when the start
// cache (start-cache.ts) vouches for it, only when first needed — and rebuilt
// when a stamp (a file identity) of the config or a pack file changes; each
// rebuild makes the listing, the instructions and the tool-list change key.
// Per call it also hands out the project and the called pack as their files
// are now (stamp.ts). The watches that let a request skip the stat pass are
// watch.ts's (what they cover: watch-plan.ts); they tell this cache through
// setPacksWatched/packsChanged.
// Nothing here decides what may run: the call path (front.ts) goes through
// execute(), which reads the pack's files as they are.
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CONFIG_NAME, findProjectConfig, loadProject, type LoadProjectOptions } from "../pack/load";
import { enclosingConfigs } from "../pack/nested";
import { MAX_ENTRIES, stopValidationCache, useValidationCache } from "../pack/validcache";
import type { Pack, Project } from "../pack/model";
import { HcpxError } from "../util/errors";
import { userConfigDir } from "../util/paths";
import { brokenLines, exportView, type ExportView } from "./view";
import { instructions, toolsFor, type McpToolDef, type Shape } from "./tools";
import { settledBefore, Stamped, stampStat, type StatFn } from "./stamp";
import { readStart, startKey, writeStart, type StartEntry } from "./start-cache";
import { asPrincipal, type FrontOptions, type FrontPrincipal } from "./contract";
import { mcpTool, servedOf } from "./listing";
import { PackMemo } from "./pack-memo";
import { watchPlan, type WatchPlan } from "./watch-plan";

const PACK_FILES = ["surface.json", "policy.json", "SKILL.md"];
/**
 * The most packs whose files (an entry for each of PACK_FILES: the SKILL.md's frontmatter) the server keeps in
 * the validation cache: 128, at most 384 of its 1,024 entries, so that exec's are not crowded out.
 */
const CACHED_PACKS = MAX_ENTRIES / 8;

/** See the file comment. The call path (McpFront, front.ts) extends it. */
export class ViewCache {
  readonly shape: Shape;
  protected readonly loadOpts: LoadProjectOptions;
  protected readonly log: (msg: string) => void;
  private readonly principal?: FrontPrincipal;
  private readonly livePrincipal?: { file: string; get(): FrontPrincipal };
  /** the validation cache is used (FrontOptions.validationCache), within CACHED_PACKS (freshProject) */
  private readonly validationCache: boolean;
  private built = { config: "", packs: "" };
  // The view is built when first needed: a start answered from the start cache
  // has the listing, the instructions and the stamps, and no view until a
  // call, a Skill or a change asks for one.
  private built_?: ExportView;
  private tools_?: McpToolDef[];
  listed: Record<string, unknown>[] = [];
  private instr = "";
  /** the project config the view is built from */
  configFile?: string;
  private packDirs: string[] = [];
  /** the cwd's own hcp.config.json5 (where the config search looks first) */
  private here?: string;
  private readonly around: Record<string, string[]> = Object.create(null); // enclosing()'s, by config
  /** how many packs are served */
  packCount = 0;
  /** the tool-list change key (JSON of the listing and the packs served); from the start cache, made when compared */
  private key: string | (() => string) = "";
  /** the view built late (from the start cache) differs from the listing served: the next refresh() says the list changed */
  private lateChange = false;
  private brokenSaid = "";
  /** refusal() as the last refresh() found it */
  refused?: HcpxError;
  /** the last "config not reloaded" said: once, until the config loads again */
  private notReloadedSaid = "";
  // Watched packs (watch.ts): while every folder of the view's packs (from the
  // config's down, watch-plan.ts) has a live watch, the watches see every
  // change (no link) and none fired, a request skips the pack files' stat
  // pass (3 stats a pack: 60 ms at 5,000 packs). A watch event marks the
  // packs dirty synchronously when it is read; a request read before it (a
  // loaded machine) gets the listing of a moment ago. Calls are never decided
  // on the listing: execute() reads the pack's files as they are.
  private packsWatched = false;
  private packsDirty = true;
  /** Called after a rebuild: the server watches the new view's directories. */
  onInstall?: () => void;
  // Per call (issue 24 §5, issue 29): the project and the called pack as the files are now, loaded
  // again only when a file they come from changed (a stamp: one stat a file, src/mcp/stamp.ts, which
  // never vouches for a file changed within the last seconds); else the ones loaded before.
  private projects = new Stamped<Project>((f) => this.statOnce(f));
  /** This call's stat of the first place the config search looks (nearestConfig), taken by the stamp that follows. */
  private near?: { file: string; st: ReturnType<StatFn> };
  private packMemo = new PackMemo();

  constructor(opts: FrontOptions) {
    this.shape = opts.shape;
    // a project's entry serves the project's packs alone; the user's own config is served where there is
    // no project (and by the user-scope entry, which names it with --config): the two entries never overlap.
    // What the user config forbids (grants.deny, a stricter confirm, sandbox.enforce "os") holds in both.
    this.loadOpts = { config: opts.config, cwd: opts.cwd ?? process.cwd(), optional: true, user: "restrict" };
    this.log = opts.log ?? (() => {});
    this.principal = opts.principal;
    this.livePrincipal = opts.livePrincipal;
    this.validationCache = opts.validationCache === true;
    // At start a broken config is fatal (the CLI reports it, exit 1).
    const readAt = Date.now();
    this.built.config = this.configStamp();
    const key = opts.startCache && !opts.principal ? startKey(this.shape, this.loadOpts.cwd!, opts.config) : undefined;
    if (key !== undefined && this.fromStartCache(key)) return;
    const project = this.freshProject();
    this.built.packs = this.packsStamp(project.packDirs);
    this.install(exportView(project));
    // kept once the first requests had their turn (a start that misses writes ~0.5 MB at 100 packs per-command)
    if (key !== undefined) setImmediate(() => this.keepStart(key, readAt));
  }

  /** Serve the start cache's entry of `key` when every stamp of it holds now (src/mcp/start-cache.ts). */
  private fromStartCache(key: string): boolean {
    const e = readStart(key);
    if (!e || e.config !== this.built.config || e.packs !== this.packsStamp(e.packDirs)) return false;
    this.fitCache(e.packDirs.length);
    this.built.packs = e.packs;
    this.sayBroken(e.brokenLines);
    this.listed = e.listed;
    this.instr = e.instructions;
    this.configFile = e.configFile;
    this.packDirs = e.packDirs;
    this.packCount = e.served.length;
    this.key = () => JSON.stringify([e.listed, e.served]);
    if (process.env.HCPX_DEBUG) this.log("the tool list from the start cache (nothing it was built from changed)");
    return true;
  }

  /** Keep this start's listing for the next, when no file it was built from changed within RACY_MS of reading it, nor since. */
  private keepStart(key: string, readAt: number): void {
    const v = this.built_!;
    const files = [
      ...(this.configFile ? [this.configFile] : []),
      join(userConfigDir(), "config.json5"),
      ...this.enclosing(this.configFile),
      ...this.packDirs.flatMap((d) => PACK_FILES.map((f) => join(d, f))),
    ];
    if (
      !settledBefore(files, readAt) ||
      this.configStamp() !== this.built.config ||
      this.packsStamp(this.packDirs) !== this.built.packs
    )
      return;
    const entry: StartEntry = {
      key,
      config: this.built.config,
      packs: this.built.packs,
      packDirs: this.packDirs,
      ...(this.configFile ? { configFile: this.configFile } : {}),
      listed: this.listed,
      instructions: this.instr,
      served: servedOf(v.packs),
      brokenLines: brokenLines(v.broken),
    };
    writeStart(entry);
  }

  /** The export view: built now when the start was answered from the start cache. Throws when the config no longer loads. */
  get view(): ExportView {
    if (this.built_) return this.built_;
    const config = this.configStamp();
    const project = this.freshProject();
    const packs = this.packsStamp(project.packDirs);
    const v = exportView(project);
    this.built = { config, packs };
    if (this.install(v)) this.lateChange = true;
    return v;
  }

  /** The tools of the view (the listing is `listed`). */
  get tools(): McpToolDef[] {
    if (!this.tools_) void this.view;
    return this.tools_!;
  }

  freshProject(): Project {
    // the validated files come from the validation cache (src/pack/validcache.ts, keyed on each file's
    // identity, ctime included), as for hcpx exec: the config files, and the packs' files unless they would
    // crowd the cache's entries (exec's among them) out (CACHED_PACKS): the config says how many there are
    if (this.validationCache) useValidationCache();
    const p = loadProject(this.loadOpts);
    this.fitCache(p.packDirs.length);
    const who = this.livePrincipal ? this.livePrincipal.get() : this.principal;
    return who ? asPrincipal(p, who) : p;
  }

  /** The validation cache for the packs' files: on for `packs` packs up to CACHED_PACKS, off past them. */
  private fitCache(packs: number): void {
    if (!this.validationCache) return;
    if (packs > CACHED_PACKS) stopValidationCache();
    else useValidationCache();
  }

  /** The project as its config files say now (see above). */
  currentProject(): Project {
    const config = this.configPath(true);
    const files = [config, join(userConfigDir(), "config.json5"), this.livePrincipal?.file, ...this.enclosing(config)];
    return this.projects.get(files, () => this.freshProject());
  }

  /** The configs of projects enclosing `config` (src/pack/nested.ts: whether it is used depends on them too). */
  private enclosing(config: string | undefined): string[] {
    return config === undefined ? [] : (this.around[config] ??= enclosingConfigs(config, CONFIG_NAME));
  }

  /** The stamp's stat: the one nearestConfig took of that file in this call, else a stat now. */
  private statOnce(file: string): ReturnType<StatFn> {
    const n = this.near;
    this.near = undefined;
    return n && n.file === file ? n.st : stampStat(file);
  }

  /**
   * findProjectConfig(cwd) with one stat where it looks first (the cwd's own config, the usual
   * case) instead of an access(2) there and a stat for the stamp: the stat is kept for the stamp.
   * The cwd has none: the search goes on above, as findProjectConfig's.
   */
  private nearestConfig(): string | undefined {
    const here = (this.here ??= join(resolve(this.loadOpts.cwd!), CONFIG_NAME));
    const st = stampStat(here);
    this.near = { file: here, st };
    if (st) return here;
    const dir = dirname(here);
    const up = dirname(dir);
    return up === dir ? undefined : findProjectConfig(up);
  }

  /** The pack `id` of `project` as its files say now, or undefined when it does not load (pack-memo.ts). */
  protected currentPack(project: Project, id: string): Pack | undefined {
    return this.packMemo.pack(project, id);
  }

  /** The project's active packs that load, as their files are now: a confined write's kept programs (packBins). */
  protected currentPacks(project: Project): readonly Pack[] {
    return this.packMemo.packs(project);
  }

  /** The project config's path as it is named now (the upward search for hcp.config.json5 included; `perCall`: nearestConfig's). */
  private configPath(perCall = false): string | undefined {
    const o = this.loadOpts;
    return o.config
      ? resolve(o.cwd!, o.config)
      : process.env.HCP_CONFIG
        ? resolve(o.cwd!, process.env.HCP_CONFIG)
        : perCall
          ? this.nearestConfig()
          : findProjectConfig(o.cwd!);
  }

  /** No config at all: the instructions say so; a principal served nothing now (refusal()): why. */
  get instructions(): string {
    const no = this.refusal();
    return no ? `Nothing is served: ${no.problems[0]!.message}` : this.instr;
  }

  /** --http: why this principal is served nothing now (removed from the server config, which may not load); its last view is kept, unserved. */
  refusal(): HcpxError | undefined {
    try {
      this.livePrincipal?.get();
      return undefined;
    } catch (e) {
      if (e instanceof HcpxError) return e;
      throw e;
    }
  }

  private install(next: ExportView): boolean {
    this.sayBroken(brokenLines(next.broken));
    const tools = toolsFor(this.shape, next);
    const all = next.packs.flatMap((p) => p.commands.map((c) => c.command));
    this.built_ = next;
    this.configFile = next.project.configFile;
    this.packDirs = next.project.packDirs;
    this.packCount = next.packs.length;
    this.packsWatched = false;
    this.onInstall?.();
    this.tools_ = tools;
    this.listed = tools.map((t) => {
      const hit = next.byTool.get(t.name);
      return mcpTool(t, hit?.command, hit?.pack, all);
    });
    const p = next.project;
    const none = p.configFile === undefined && p.userConfigFile === undefined;
    this.instr =
      (none
        ? `No hcp.config.json5 in ${this.loadOpts.cwd} or above, and no user config: no packs are served. Run \`hcpx init\` in the project, or start the host there.\n`
        : "") + instructions(next.packs, this.shape, next.broken);
    // the prompts (src/mcp/prompts.ts) change with the commands' prompt declarations
    const key = JSON.stringify([this.listed, servedOf(next.packs)]);
    const changed = key !== (typeof this.key === "function" ? this.key() : this.key);
    this.key = key;
    return changed;
  }

  private sayBroken(lines: string[]): void {
    const said = lines.join("\n");
    if (said === this.brokenSaid) return;
    this.brokenSaid = said;
    if (lines.length) this.log(`not serving ${lines.length} broken pack(s):\n${lines.map((l) => `  ${l}`).join("\n")}`);
    else this.log("every activated pack loads again");
  }

  // What a view was built from, as file identities: while none has changed,
  // the view already built is served (a rebuild at 100 packs is 32–41 ms; the
  // stat pass ~1 ms). The stamp is taken before the read.
  private configStamp(): string {
    const file = this.configPath();
    return `${file ?? "-"}=${identity(file)}|${identity(join(userConfigDir(), "config.json5"))}|${identity(this.livePrincipal?.file)}|${this.enclosing(file).map(identity).join(",")}`;
  }

  private packsStamp(packDirs: string[]): string {
    return packDirs.map((d) => PACK_FILES.map((f) => identity(join(d, f))).join(",")).join("|");
  }

  /** Rebuild the view when a file it was built from changed; true when the tool list changed (or refused began or ended). Keeps the last good view when the config cannot be read. */
  refresh(): boolean {
    const late = this.lateChange;
    this.lateChange = false;
    const was = this.refused !== undefined;
    this.refused = this.refusal();
    if (this.refused) return this.notReloaded(this.refused) || !was || late;
    const config = this.configStamp();
    // undefined: the config did not change (its project is the view's, built or not yet)
    let project: Project | undefined;
    const notReloaded = (e: unknown) => this.notReloaded(e) || was || late;
    if (config !== this.built.config) {
      try {
        project = this.freshProject();
      } catch (e) {
        return notReloaded(e);
      }
    }
    const skip = this.packsWatched && !this.packsDirty && project === undefined;
    this.packsDirty = false;
    const packs = skip ? this.built.packs : this.packsStamp(project?.packDirs ?? this.packDirs);
    if (config === this.built.config && packs === this.built.packs) return was || late;
    let next: ExportView;
    try {
      next = exportView(project ?? this.built_?.project ?? this.freshProject());
    } catch (e) {
      return notReloaded(e);
    }
    this.built = { config, packs };
    this.notReloadedSaid = "";
    return this.install(next) || was || late;
  }

  /** The log says why the config was not reloaded once per reason, not on every request (false: no change). */
  private notReloaded(e: unknown): false {
    const why = e instanceof HcpxError ? e.problems[0]!.message : (e as Error).message;
    if (why !== this.notReloadedSaid) this.log(`config not reloaded: ${(this.notReloadedSaid = why)}`);
    return false;
  }

  /** What to watch for changes, and whether those watches may stand in for the stat pass (watch-plan.ts). */
  watched(): WatchPlan {
    return watchPlan(this.configFile, this.livePrincipal?.file, this.packDirs, PACK_FILES);
  }

  /** watch.ts: whether every folder of the packs has a live watch now, and they see every change (watch-plan.ts). A newly set watch may have missed a change: one stat pass follows. */
  setPacksWatched(live: boolean): void {
    this.packsWatched = live;
    this.packsDirty = true;
  }

  /** server.ts, synchronously from a watch event on a pack file or directory. */
  packsChanged(): void {
    this.packsDirty = true;
  }
}

function identity(file: string | undefined): string {
  if (!file) return "-";
  try {
    // numbers, not bigints (half the cost); mtimeMs/ctimeMs keep sub-µs precision
    const st = statSync(file);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return "-";
  }
}
