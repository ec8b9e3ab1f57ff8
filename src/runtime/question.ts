// The question a person answers before a confirm-gated write runs: exactly
// what will run (pack, verb, every validated arg in full, where it lands).
// Every way of asking takes this text (hcpx mcp's elicitation in either era,
// the library's confirm callback), so it is made safe here, once: the args are
// the model's text, and each goes through the one neutraliser
// (src/util/neutral.ts neutralLine), so a U+2028, a bidi override or a
// zero-width character in an arg is shown as an escape and cannot add a line
// to the question, reorder it or hide a part of it. Nothing is cut: a yes to a
// cut question would run args the person was not shown, so a question longer
// than QUESTION_MAX is not asked at all (execute.ts askPerson: bad_args).
import { neutralise, neutralLine } from "../util/neutral";

/**
 * The most characters a question may have (16 KiB). Ordinary gated writes
 * ask far less: a transfer or a deploy a few hundred characters, a message,
 * an issue or a commit body of a few pages (~2,500 words) still fits, shown
 * in full, each value as long as it is. Past it, the text is more than a
 * person reads in a dialog before saying yes, and the call is refused rather
 * than asked with a part of it.
 */
export const QUESTION_MAX = 16_384;

/** The question a person sees: exactly what will run, and where it lands. */
export function confirmMessage(
  pack: string,
  verb: string,
  args: Record<string, unknown> | string[],
  land: string | undefined,
): string {
  const a = Array.isArray(args) ? args.map((x) => JSON.stringify(x) ?? String(x)).join(" ") : JSON.stringify(args);
  const where =
    land === "local"
      ? " (this machine)"
      : land === "remote"
        ? " (a service of yours)"
        : land === "external"
          ? " (the outside world: others see it)"
          : "";
  // each field on its own line (neutralLine); the whole through neutralise, as every text hcpx shows
  return neutralise(
    [
      `An agent asks to run a write that needs your yes:`,
      `  pack: ${neutralLine(pack)}`,
      `  verb: ${neutralLine(verb)}`,
      `  args: ${neutralLine(a)}`,
      `  lands: ${neutralLine(land ?? "(not declared)")}${where}`,
      `Accept runs it once. Decline or cancel runs nothing.`,
    ].join("\n"),
  );
}
