// What the CLI does with an error that reached its entry: a user mistake
// (HcpxError) is reported as one (--json: an envelope); anything else is a bug,
// exit 70, and its stack only with HCPX_DEBUG — except a file-system condition
// of the machine (read-only, full disk, permission: src/util/ioerror.ts), which
// is the user's error to act on, exit 1. Loaded only on failure.
import { HcpxError } from "../util/errors";
import { ioProblem } from "../util/ioerror";
import { failure, makeOut, reportError, sayErr, writeJson } from "./output";

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
