// The packs hcpx mcp keeps for its calls (the view cache's currentPack and currentPacks): loaded
// again only when a file they come from changed — every activated pack's surface.json and
// policy.json, one stat a file (src/util/stamp.ts, which never vouches for a file changed within the
// last seconds) — else the ones loaded before. Made anew for another project (a config changed).
import { join } from "node:path";
import { findPack } from "../pack/load";
import type { Pack, Project } from "../pack/model";
import { loadablePacks } from "../runtime/pack-bins";
import { Stamped } from "./stamp";

export class PackMemo {
  /** `clock`: now, for the stamps (a test's clock ages the files). */
  constructor(private readonly clock: () => number = Date.now) {}
  private project?: Project;
  private files: string[] = [];
  private byId = new Map<string, Stamped<Pack>>();
  private all?: Stamped<Pack[]>;

  /**
   * The pack `id` of `project` as its files say now, or undefined when it does not load (execute()
   * then reads it and says why). findPack refuses an id that two activated packs declare.
   */
  pack(project: Project, id: string): Pack | undefined {
    this.of(project);
    const s = this.byId.get(id) ?? new Stamped<Pack>(undefined, this.clock);
    try {
      const pack = s.get(this.files, () => findPack(project, id));
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
    return (this.all ??= new Stamped<Pack[]>(undefined, this.clock)).get(this.files, () => loadablePacks(project));
  }

  private of(project: Project): void {
    if (this.project === project) return;
    this.project = project;
    this.files = project.packDirs.flatMap((d) => [join(d, "surface.json"), join(d, "policy.json")]);
    this.byId = new Map();
    this.all = undefined;
  }
}
