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
import { Marks, type StatFn } from "./stamp";

type Kept<T> = { marks: Marks; value: T };

export class PackMemo {
  /** `clock`: now, for the stamps (a test's clock ages the files); `stat`: the stamps' stat (a test counts them). */
  constructor(
    private readonly clock: () => number = Date.now,
    private readonly stat?: StatFn,
  ) {}
  private project?: Project;
  /** every active pack's surface.json, then every one's policy.json */
  private files: string[] = [];
  private byId = new Map<string, Kept<Pack>>();
  private all?: Kept<Pack[]>;

  /**
   * The pack `id` of `project` as its files say now, or undefined when it does not load (execute()
   * then reads it and says why). findPack refuses an id that two activated packs declare.
   */
  pack(project: Project, id: string): Pack | undefined {
    this.of(project);
    const kept = this.byId.get(id);
    if (kept && kept.marks.holds(this.stat)) return kept.value;
    this.byId.delete(id);
    // taken before the load, of both files of every pack: which pack declares `id` is known after it
    const marks = Marks.take(this.files, this.clock(), this.stat);
    let pack: Pack;
    try {
      pack = findPack(project, id);
    } catch {
      return undefined;
    }
    if (marks) {
      const surfaces = this.files.length / 2;
      const own = this.files.indexOf(pack.policyFile, surfaces);
      // a pack found where no policy.json was stamped (not expected): every file stays in its stamp
      const keep = own < 0 ? marks : marks.only((_, i) => i < surfaces || i === own);
      this.byId.set(id, { marks: keep, value: pack });
    }
    return pack;
  }

  /** The project's active packs that load, as their files are now (a confined write's kept programs, packBins). */
  packs(project: Project): readonly Pack[] {
    this.of(project);
    const kept = this.all;
    if (kept && kept.marks.holds(this.stat)) return kept.value;
    this.all = undefined;
    const marks = Marks.take(this.files, this.clock(), this.stat);
    const value = loadablePacks(project);
    if (marks) this.all = { marks, value };
    return value;
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
