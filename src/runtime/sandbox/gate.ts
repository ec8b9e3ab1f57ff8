// The spawn sites' door to the kernel sandbox (src/runtime/sandbox/index.ts).
// With sandbox.enforce off or unset (the default) a call is the same spawn and
// the sandbox module is never loaded: `hcpx exec` pays nothing for it (node:os,
// its tables and patterns; callgrind). With "os" it is loaded on first use by a
// require() that esbuild bundles as a lazily run module (under vitest,
// test/support/lazy-require.ts turns it into an import).
import type { Envelope, Failure } from "../envelope";
import type { Confined, ConfineContext, SpawnLine } from "./line";

export { classOf } from "./line";

const identity = (e: Envelope) => e;

/**
 * The spawn of `line`, confined per `ctx` when sandbox.enforce is "os"; the
 * same spawn otherwise; a sandbox_unavailable failure when "os" is asked and
 * this machine cannot.
 */
export function confine(line: SpawnLine, ctx: ConfineContext): Confined | Failure {
  if (ctx.project.sandbox.enforce !== "os") return { ...line, explain: identity };
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily run bundled module (see above)
  return (require("./index") as typeof import("./index")).confine(line, ctx);
}
