// The packs hcpx mcp keeps for its calls (the view cache's currentPack and currentPacks): loaded
// again only when a file they come from changed, one stat a file (src/util/stamp.ts, which never
// vouches for a file changed within the last seconds), else the ones loaded before. Made anew for
// another project (a config changed).
// - The called pack: what decides which pack an id is (findPack) is every active pack's surface.json
//   (the id each declares; two that declare it are refused) and, for the pack found, its policy.json.
//   The other packs' policy.json decide nothing of it, so a call stats N + 1 files, not 2N (at 1,000
//   packs the stat pass was most of a call's own time).
// - All of them (a confined write's kept programs, packBins): every pack's two files.
import { join } from "node:path";
import { findPack } from "../pack/load";
import type { Pack, Project } from "../pack/model";
import { loadablePacks } from "../runtime/pack-bins";
import { Stamped, type StatFn } from "./stamp";

export class PackMemo {
  /** `clock`: now, for the stamps (a test's clock ages the files); `stat`: the stamps' stat (a test counts them). */
  constructor(
    private readonly clock: () => number = Date.now,
    private readonly stat?: StatFn,
  ) {}
  private project?: Project;
  /** every active pack's surface.json, then every one's policy.json */
  private files: string[] = [];
  private byId = new Map<string, Stamped<Pack>>();
  private all?: Stamped<Pack[]>;

  /**
   * The pack `id` of `project` as its files say now, or undefined when it does not load (execute()
   * then reads it and says why). findPack refuses an id that two activated packs declare.
   */
  pack(project: Project, id: string): Pack | undefined {
    this.of(project);
    const s = this.byId.get(id) ?? new Stamped<Pack>(this.stat, this.clock);
    const surfaces = this.files.length / 2;
    try {
      // stamped before the load, both files of every pack (which pack declares `id` is known after it);
      // kept: the surfaces and the found pack's policy.json (none found among them, not expected: all)
      const pack = s.get(
        this.files,
        () => findPack(project, id),
        (p) => {
          const own = this.files.indexOf(p.policyFile, surfaces);
          return own < 0 ? undefined : (_, i) => i < surfaces || i === own;
        },
      );
      this.byId.set(id, s);
      return pack;
    } catch {
      this.byId.delete(id);
      return undefined;
    }
  }

  /** The project's active packs that load, as their files are now (a confined write's kept programs, packBins). */
  packs(project: Project): readonly Pack[] {
    this.of(project);
    return (this.all ??= new Stamped<Pack[]>(this.stat, this.clock)).get(this.files, () => loadablePacks(project));
  }

  private of(project: Project): void {
    if (this.project === project) return;
    this.project = project;
    const dirs = project.packDirs;
    this.files = [...dirs.map((d) => join(d, "surface.json")), ...dirs.map((d) => join(d, "policy.json"))];
    this.byId = new Map();
    this.all = undefined;
  }
}
