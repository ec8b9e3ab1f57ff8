// What the CLI does with an error that reached its entry: a user mistake
// (HcpxError) is reported as one (--json: an envelope); anything else is a bug,
// exit 70, and its stack only with HCPX_DEBUG — except a file-system condition
// of the machine (read-only, full disk, permission: src/util/ioerror.ts), which
// is the user's error to act on, exit 1. Loaded only on failure.
import { HcpxError } from "../util/errors";
import { ioProblem } from "../util/ioerror";
import { failure, makeOut, reportError, sayErr, writeJson } from "./output";
import { answeredCode, strayOf } from "../runtime/stray";

export function reportFailure(e: unknown, argv: readonly string[]): number {
  const json = argv.includes("--json");
  if (e instanceof HcpxError) return reportError(e, makeOut({ json }));
  // a read-only file system, a full disk, a permission: the machine's condition, not a bug
  const io = ioProblem(e);
  if (io) return reportError(new HcpxError(io), makeOut({ json }));
  const err = e as Error;
  const message = `internal error: ${err?.message ?? String(e)}`;
  const hint = "this is a bug in hcpx; rerun with HCPX_DEBUG=1 for details and report it";
  if (json) writeJson(failure("internal", message, { hint }));
  else sayErr(`${message}\n  hint: ${hint}`);
  if (process.env.HCPX_DEBUG) sayErr(`${err?.stack ?? ""}`);
  return 70;
}

/** How many stray errors a process reports (a pack's timer that throws again and again says it once, then this many). */
const STRAY_REPORTS = 10;

/**
 * An error nothing caught, that Node would end the process with, printing it raw (src/cli/main.ts listens for
 * them): a composite pack's code that threw where no call awaits it (src/runtime/stray.ts strayOf) is reported
 * through the one exit, a line on stderr, and the process goes on (hcpx mcp keeps serving; a call of that pack
 * still running is answered composite_error), except hcpx exec after its answer, which ends with the answer's
 * code. Anything else is hcpx's own: reported as an internal error, and the process ends (exit 70).
 */
export function onStray(e: unknown, argv: readonly string[]): void {
  const stray = strayOf(e);
  if (!stray) {
    // after exec's one envelope: the error is told on stderr, and the process ends with the answer's code
    const code = answeredCode();
    if (code === undefined) process.exit(reportFailure(e, argv));
    reportFailure(
      e,
      argv.filter((a) => a !== "--json"),
    );
    process.exit(code);
  }
  const who = stray.pack ? `pack ${stray.pack}'s code` : "a composite pack's code";
  const answered = stray.failed ? ` (its running call answered composite_error)` : "";
  if (stray.reported < STRAY_REPORTS)
    sayErr(`hcpx: ${who} threw where no call awaited it${answered}: ${stray.message}`);
  else if (stray.reported === STRAY_REPORTS) sayErr(`hcpx: more errors of composite packs' code are not shown`);
  if (stray.answeredCode !== undefined) process.exit(stray.answeredCode);
}
