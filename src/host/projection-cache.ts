// The projection an adopt plan renders, built once, when the plan first needs
// it (never with --remove): each host then re-renders only its prompt block for
// where its Skill copies are. The use case hands the engine this value (its
// project and packs), not a function of its own: the plan calls down into
// src/projection/, never back up into the use case (scripts/walk.mjs).
import type { Pack, Project } from "../pack/model";
import { buildProjection, withSkillsPath } from "../projection/build";
import type { BlockOptions, Projection } from "../projection/types";

export class ProjectionCache {
  private built?: Projection;

  constructor(
    readonly project: Project,
    readonly packs: Pack[],
  ) {}

  /** The projection of every pack (built on the first call). */
  get(): Projection {
    return (this.built ??= buildProjection(this.project, this.packs));
  }

  /** The projection for one host: its prompt block names `skillsPath` (src/host/adopt-types.ts ProjectionFor). */
  forHost(skillsPath: string, opts?: BlockOptions): Projection {
    return withSkillsPath(this.get(), skillsPath, opts);
  }
}
