// Lint as the config commands and doctor need it: errors and warnings of one
// pack directory (src/pack/lint.ts `lintPackDir`).
import type { Problem } from "../util/errors";
import { lintPackDir } from "../pack/lint";
import type { Project } from "../pack/model";

export interface LintSplit {
  errors: Problem[];
  warnings: Problem[];
}

export async function lintErrors(dir: string, project?: Project): Promise<LintSplit> {
  const r = lintPackDir(dir, project ? { project } : {});
  return {
    errors: r.problems.filter((p) => p.severity !== "warning"),
    warnings: r.problems.filter((p) => p.severity === "warning"),
  };
}
