// hcpx status: active packs, granted and withheld commands (read/write/confirm),
// hosts adopted and where. A table on a TTY, the envelope with --json.
// Exit 0 when everything loads, 2 with warnings, 1 when a pack does not load (§12.1.7).
// The report is the status use case's (src/app/status.ts); this module renders it.
import { display } from "../../util/paths";
import { neutralLine } from "../../util/neutral";
import type { CommonOpts } from "../../config/common";
import { c, finish, makeOut, unpainted } from "../output";
import { servesLines, status, type StatusReport } from "../../app/status";

export { servesLines, type StatusCommand } from "../../app/status";

export async function run(opts: CommonOpts): Promise<number> {
  const out = makeOut(opts);
  const { data, code, why } = status({ config: opts.config });
  return finish(out, code, data, why, (col) => render(data, col));
}

type Data = StatusReport;

function table(rows: string[][], col: boolean, header: boolean): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => strip(r[i] ?? "").length)));
  return rows.map((r, ri) => {
    const line = r
      .map(neutralLine)
      .map((cell, i) => (i === r.length - 1 ? cell : cell + " ".repeat(w[i]! - strip(cell).length)))
      .join("  ")
      .trimEnd();
    return header && ri === 0 ? c.bold(col, line) : line;
  });
}
const strip = unpainted;

function render(d: Data, col: boolean): string {
  const lines: string[] = [];
  lines.push(`config     ${d.config ? display(d.config) : "(none: run hcpx init)"}`);
  lines.push(`principal  ${d.principal.id} (${d.principal.kind})`);
  lines.push("");
  if (d.packs.length === 0 && d.broken.length === 0)
    lines.push("no active packs — `hcpx activate <pack-dir>` adds one");
  else {
    const rows: string[][] = [["command", "op", "granted"]];
    for (const p of d.packs) {
      if (p.stimuli) {
        rows.push([`${p.id} (sense)`, "-", `stimuli: ${(p.stimuli ?? []).join(", ")}`]);
        continue;
      }
      for (const cmd of p.commands) {
        const op =
          cmd.operation +
          (cmd.land ? `/${cmd.land}` : "") +
          (cmd.confirm ? ", confirm" : "") +
          (cmd.inferred ? ", inferred" : "");
        rows.push([cmd.name, op, cmd.granted ? c.green(col, "yes") : c.dim(col, "withheld")]);
      }
    }
    lines.push(...table(rows, col, true));
    for (const b of d.broken) {
      const p = b.problems.find((x) => x.severity !== "warning") ?? b.problems[0];
      const where = p?.file ? `${p.file}${p.line ? `:${p.line}` : ""}: ` : "";
      // the path and the message quote the config and the pack's files: each kept on this line
      lines.push(
        c.red(col, neutralLine(`✗ ${display(b.dir)}: ${where}${p?.message ?? "does not load"}`)) +
          (b.problems.length > 1 ? ` (+${b.problems.length - 1} more)` : ""),
      );
    }
  }
  lines.push("");
  lines.push(...servesLines(d));
  if (d.hosts.length === 0)
    lines.push("no hosts adopted — `hcpx adopt <host> --write` places the packs where a host reads them");
  else {
    const rows: string[][] = [["host", "scope", "server", "files"]];
    for (const h of d.hosts) rows.push([h.host, h.scope, h.server ?? "?", h.files.join(", ")]);
    lines.push(...table(rows, col, true));
  }
  for (const e of d.ledgerErrors ?? []) lines.push(c.yellow(col, `! ${e.file}: ${e.message}`));
  for (const w of d.warnings)
    lines.push(c.yellow(col, `! ${w.file ? `${w.file}${w.line ? `:${w.line}` : ""} ` : ""}${w.message}`));
  return lines.join("\n");
}
