// The draft Policy row of an imported operation (src/openapi/render.ts writes every row `inferred: true`:
// a person reviews it): GET/HEAD → read, others → write, DELETE → write + confirm; a GET/HEAD whose own
// words say it destroys something → write + confirm; a write whose effect the document says others see
// → external + confirm. A note says which words decided a row.
import { destructiveWords } from "../pack/destructive";
import { externalWords } from "./names";
import type { ImportedCommand, ImportResult, Json } from "./types";

/** The operation's draft Policy row, by the rules above; a note (with its hint) in `run` says which words decided it. */
export function draftRow(
  run: Pick<ImportResult, "notes" | "hints">,
  at: { source: string; verb: string; method: string; path: string; operationId: string | undefined },
  op: Json,
): Pick<ImportedCommand, "operation" | "land" | "confirm"> {
  const { source, verb, method, operationId } = at;
  const say = (msg: string, what: string) => {
    run.notes.push(msg);
    run.hints[msg] =
      `review its row in policy.json (${what}), then \`hcpx pack sync <dir>\` carries the review into the Skill`;
  };
  const quoted = (words: string[]) => words.map((w) => `"${w}"`).join(", ");
  const safe = method === "get" || method === "head";
  // the path's own words, not its parameters' names
  const path = at.path.replace(/\{[^}]*\}/g, " ");
  const destroys = safe ? destructiveWords([operationId, path, op.summary, op.description]) : undefined;
  if (destroys)
    say(
      `${source} (${verb}): drafted write + confirm, not read: the document says ${quoted(destroys)} (a ${method.toUpperCase()} that destroys something)`,
      "operation, land, confirm",
    );
  const operation = safe && !destroys ? "read" : "write";
  const seen =
    operation === "write"
      ? externalWords({ operationId, summary: op.summary, description: op.description })
      : undefined;
  if (seen)
    say(
      `${source} (${verb}): drafted external + confirm: the document says ${quoted(seen)} (others see its effect)`,
      "land, confirm",
    );
  return {
    operation,
    ...(operation === "write" ? { land: seen ? ("external" as const) : ("remote" as const) } : {}),
    confirm: method === "delete" || seen !== undefined || destroys !== undefined,
  };
}
