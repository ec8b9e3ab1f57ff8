// hcpx pack add-verb <pack-dir> [--verb spec…] [--write spec…] [--land l] [--confirm]
// Adds commands to an existing wrap pack (surface.json, policy.json and
// SKILL.md in one step). The use case is src/app/add-verb.ts; this renders its
// report.
import { policyRow } from "../../scaffold/pack";
import { addVerbs } from "../../app/add-verb";
import { c, done, makeOut, printWarnings } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx pack add-verb`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type AddVerbOpts = OptionsOf<"pack add-verb"> & GlobalOpts;

export async function run(dirArg: string, opts: AddVerbOpts): Promise<number> {
  const out = makeOut(opts);
  const r = addVerbs({ dir: dirArg, verb: opts.verb, write: opts.write, land: opts.land, confirm: opts.confirm });
  const { cmds, files, warnings: problems } = r;
  const pack = { id: r.id, dir: r.dir };
  printWarnings(problems, out);
  done(
    out,
    {
      id: pack.id,
      dir: pack.dir,
      added: cmds.map((x) => ({ verb: x.verb, ...policyRow(x) })),
      files,
      warnings: problems,
    },
    (col) =>
      [
        ...cmds.map(
          (x) =>
            `${c.green(col, "✓")} added ${x.operation} '${pack.id}.${x.verb}'${x.operation === "write" ? ` (land: ${x.land}${x.confirm ? ", confirm" : ""})` : ""} to ${files.join(", ")}`,
        ),
        ...(cmds.some((x) => x.operation === "write")
          ? [
              "next: a write is never granted by activate:",
              ...cmds.filter((x) => x.operation === "write").map((x) => `  hcpx grant ${pack.id}.${x.verb}`),
            ]
          : [`next: hcpx grant ${pack.id}.${cmds[0]!.verb}   (if the pack's reads are not granted by a pattern)`]),
      ].join("\n"),
  );
  return 0;
}
