// hcpx pack from-mcp [--id <id>] [--out packs/<id>] [--env NAME …] [--force] -- <command …>
// Starts a stdio MCP server, lists its tools with the SDK's Client and writes
// an `mcp` pack: one command per tool, a draft Policy from the annotations,
// a SKILL.md. Nothing is activated or granted: review, lint, then activate.
// Renders the from-mcp use cases (src/app/from-mcp.ts).
import { display } from "../../util/paths";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";
import { fromMcp, updateFromMcp } from "../../app/from-mcp";
import { c, done, makeOut, neutralLine as o, neutralise, printWarnings, sayRaw } from "../output";
import { HcpxError } from "../../util/errors";
import { reviewProblems, updateLines } from "../../mcpimport/update";
import { msOption } from "../options";

/** `hcpx pack from-mcp`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type FromMcpCliOptions = OptionsOf<"pack from-mcp"> & GlobalOpts;

export async function run(command: string[], opts: FromMcpCliOptions): Promise<number> {
  const out = makeOut(opts);
  const timeoutMs = msOption("--timeout", opts.timeout);
  if (opts.update !== undefined) {
    if (command.length)
      throw new HcpxError({
        code: "usage",
        message:
          "--update takes the pack directory, not a server command: the pack's mcp.bin and mcp.args say what runs",
        hint: "hcpx pack from-mcp --update packs/<id> [--yes]",
      });
    return runUpdate(opts.update, opts, timeoutMs);
  }
  const r = await fromMcp(command, {
    id: opts.id,
    out: opts.out,
    env: opts.env,
    url: opts.url,
    header: opts.header,
    force: opts.force,
    timeoutMs,
    config: opts.config,
  });
  const errors = r.lint.filter((p) => p.severity !== "warning");
  // a note quotes the server's tool and argument names: one line each (--json keeps them exact)
  printWarnings(
    r.warnings.map((w) => (w.code === "mcp_import" ? { ...w, message: o(w.message) } : w)),
    out,
  );
  const cmds = r.draft.commands;
  done(
    out,
    {
      id: r.id,
      dir: display(r.dir),
      server: r.draft.server,
      runs: r.runs,
      sandboxBin: r.sandboxBin,
      env: r.draft.env,
      commands: cmds.map((x) => ({
        verb_key: x.verb_key,
        tool: x.tool,
        operation: x.operation,
        land: x.land,
        confirm: x.confirm,
        inferred: x.inferred,
        why: x.why,
      })),
      notes: r.draft.notes,
      lint: { errors: errors.length, warnings: r.lint.length - errors.length, problems: r.lint },
    },
    (col) =>
      [
        // what the server said (its name, version, tools) stays on its line (src/util/neutral.ts neutralLine)
        `${c.green(col, "wrote")} ${display(r.dir)}: surface.json, policy.json, SKILL.md (${cmds.length} commands from ${o(r.draft.server.name ?? "the server")}${r.draft.server.version ? ` ${o(r.draft.server.version)}` : ""})`,
        opts.url !== undefined
          ? `  server: ${o(r.runs.path)}`
          : `  runs: ${o(r.runs.path)} ${r.runs.args.map(o).join(" ")}`.trimEnd(),
        ...(r.sandboxBin?.recorded === "added"
          ? [`${c.green(col, "✓")} sandbox.bins.${o(r.sandboxBin.name)} = ${o(r.sandboxBin.path)}`]
          : []),
        ...(r.draft.env.length ? [`  env from the runtime: ${r.draft.env.map(o).join(", ")}`] : []),
        ...cmds.map(
          (x) =>
            `  ${o(x.verb_key).padEnd(28)} ${x.operation}${x.confirm ? ", confirm" : ""}${x.inferred ? "  (inferred)" : ""}  ← ${o(x.why)}`,
        ),
        `lint: ${errors.length} error(s), ${r.lint.length - errors.length} warning(s)`,
        "next:",
        `  review ${display(r.dir)}/policy.json (the annotations are the server's claims) and remove the inferred marks`,
        `  hcpx lint ${display(r.dir)}; hcpx activate ${display(r.dir)}`,
      ].join("\n"),
  );
  return errors.length ? 1 : 0;
}

/** `--update <pack-dir>`: the server's tools against the pins; --yes pins them as they are now. */
async function runUpdate(dir: string, opts: FromMcpCliOptions, timeoutMs: number | undefined): Promise<number> {
  const out = makeOut(opts);
  const r = await updateFromMcp(dir, { yes: opts.yes, timeoutMs, config: opts.config });
  // tool names, descriptions and schemas are the server's text: neutralised before a person reads them
  const lines = updateLines(r).map((l) => o(l)); // one line each: a newline in a description cannot forge another
  const pending = r.changes.some((x) => x.status !== "unchanged");
  if (pending && !r.written) {
    if (!out.json)
      sayRaw(
        [`pack '${r.id}' (${display(r.dir)}): the server's tools differ from what was reviewed:`, ...lines].join("\n") +
          "\n",
      );
    throw new HcpxError(reviewProblems(r, lines, out.json));
  }
  done(out, { id: r.id, dir: display(r.dir), changes: r.changes, unwrapped: r.unwrapped, written: r.written }, (col) =>
    [
      r.written
        ? `${c.green(col, "✓")} ${r.id}: pinned the tools as the server lists them now (mcp.pins in ${display(r.dir)}/surface.json)`
        : `${c.green(col, "✓")} ${r.id}: every tool matches its pin`,
      ...(r.written ? lines : []),
      ...(r.unwrapped.length
        ? [
            `  tools no command calls: ${neutralise(r.unwrapped.slice(0, 20).join(", "))}${r.unwrapped.length > 20 ? ", …" : ""}`,
          ]
        : []),
    ].join("\n"),
  );
  return 0;
}
