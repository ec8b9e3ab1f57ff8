// format "dir-of-skills": a directory of Skills, `<dir>/<pack>/SKILL.md`, one owned
// file per pack (ledger kind "file", taken out again by the file handler).
import { join } from "node:path";
import { HcpxError } from "../../util/errors";
import { ownedFile } from "./file";
import type { FormatHandler } from "./types";

const SKILL = /^[a-z0-9]+(-[a-z0-9]+)*\/SKILL\.md$/;

export const dirOfSkillsFormat: FormatHandler = {
  kinds: [],
  fits: (e, _t, paths) =>
    e.kind === "file" && paths.some((d) => e.path.startsWith(d + "/") && SKILL.test(e.path.slice(d.length + 1))),
  async plan(t, abs, ctx) {
    if (ctx.skills === false) return [];
    const dir = ctx.file(abs);
    if (dir.orig.kind === "file" || dir.orig.kind === "other")
      throw new HcpxError({
        code: "not_a_directory",
        message: "is a file, expected the skills directory",
        file: dir.show,
        hint: "move the file away; hcpx writes <pack>/SKILL.md below this directory",
      });
    return ctx.skills.map((s) => ownedFile(ctx, ctx.file(join(abs, s.packId, "SKILL.md")), s.content, t));
  },
  remove() {
    // its entries are kind "file": the file handler takes them out
    return "kept";
  },
};
