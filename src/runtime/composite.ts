// The composite adapter: the pack's module (which must realpath inside the
// pack directory) is imported in-process; its default export maps each
// verb_key to `async (args, ctx) => data`. A throw becomes an envelope error.
// A long-lived process (hcpx mcp) calls it again and again, and a call acts on
// the files as they are now: one stat a call of the module file gives its
// version (identity: device, inode, size, mtime, ctime; src/util/stamp.ts,
// whose racy rule never vouches for a file changed within RACY_MS). While the
// version holds, the checked real path (instead of two realpath(3) walks and a
// stat) and the imported module are kept; a new version is checked again and
// imported anew (verbFunction: under a new URL, import() keeping each by its URL).
import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AdapterCall } from "./adapters/types";
import type { CallSignal } from "./cancel";
import { isInside } from "../util/paths";
import type { ArgValues } from "./args";
import { failure, type Envelope } from "./envelope";
import { dynamicImport } from "../util/dynamic-import";
import { DEFAULT_TIMEOUT_MS, MAX_OUTPUT_NESTING, cancelled, parseOutput } from "./wrap";
import { forbiddenEnvOf } from "../pack/envrules";
import { identityOf, settled, stampStat } from "../util/stamp";
import { callRunning, compositeRan } from "./stray";

export interface CompositeContext {
  pack: string;
  verb: string;
  /** the Binding: values of the pack's binding.env names from the runtime env */
  env: Record<string, string>;
  /** sandbox.cwd */
  cwd: string;
  /** aborted when the call times out or its caller cancels it (then stop what you started) */
  signal: AbortSignal;
}

type VerbFn = (args: ArgValues, ctx: CompositeContext) => unknown;

/** The composite adapter (the table: ./adapters/index.ts). */
export async function runComposite({
  pack,
  project,
  cmd,
  values,
  env: runtimeEnv,
  signal,
}: AdapterCall<"composite">): Promise<Envelope> {
  const spec = pack.surface.composite;
  const untrusted = untrustedUnderOs(pack, project, cmd.verb_key);
  if (untrusted) return untrusted;
  const file = moduleFile(pack);
  if ("ok" in file) return file;
  const label = `${pack.id} ${cmd.verb_key}`;
  // cancelled before its module is imported: none of its code runs
  if (signal?.aborted) return cancelled(label, signal, false);
  const verb = await verbFunction(file, spec.module, cmd.verb_key);
  if (!("fn" in verb)) return verb;
  const fn = verb.fn;
  const env = bindingEnv(pack, runtimeEnv);
  const ac = new AbortController();
  const timeoutMs = DEFAULT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  let onCancel: (() => void) | undefined;
  let done: (() => void) | undefined;
  // what ends the call when the verb does not: an object of this module's own, never a value a verb returns
  const ended = new Promise<Ended>((r) => {
    // not unref'd: a verb whose promise nothing is left to settle would let the process end at once, with
    // no answer (hcpx exec: exit 0, no output); the timer holds it until the timeout answers
    timer = setTimeout(() => r(new Ended("timeout")), timeoutMs);
    onCancel = () => r(new Ended("cancelled"));
    signal?.addEventListener("abort", onCancel, { once: true });
    // its code threw where nothing awaits it (a timer, a promise not awaited): answered now (./stray.ts)
    compositeRan(pack.id, file.packUrl);
    done = callRunning({ pack: pack.id, fail: (message) => r(new Ended("stray", message)) });
  });
  try {
    if (signal?.aborted)
      return verb.imported
        ? // this call's import ran the module's top-level code: not "nothing was run" (its audit record: ran)
          cancelled(
            label,
            signal,
            true,
            {},
            "its module was imported (its top-level code ran), its verb was not called",
          )
        : cancelled(label, signal, false);
    const ctx: CompositeContext = {
      pack: pack.id,
      verb: cmd.verb_key,
      env,
      cwd: project.sandbox.cwd,
      // made when the module first reads it (most never do; an AbortSignal is a transferable EventTarget, made anew each call)
      get signal() {
        return ac.signal;
      },
    };
    const data = await Promise.race([Promise.resolve().then(() => fn({ ...values }, ctx)), ended]);
    if (data instanceof Ended) return endedBy(data, `${pack.id} ${cmd.verb_key}`, timeoutMs, ac, signal);
    return asData(`${pack.id} ${cmd.verb_key}`, data);
  } catch (e) {
    const err = e as { message?: unknown; code?: unknown } | undefined;
    const message = typeof err?.message === "string" ? err.message : String(e);
    return failure(
      "composite_error",
      `${pack.id} ${cmd.verb_key} failed: ${message}`,
      typeof err?.code === "string" ? { reason: err.code } : {},
    );
  } finally {
    done?.();
    clearTimeout(timer);
    if (onCancel) signal?.removeEventListener("abort", onCancel);
  }
}

/** In-process code cannot be confined per call: under sandbox.enforce "os" only a trusted composite runs (docs/sandbox.md). */
function untrustedUnderOs(
  pack: AdapterCall<"composite">["pack"],
  project: AdapterCall<"composite">["project"],
  verb: string,
): Envelope | undefined {
  if (project.sandbox.enforce !== "os" || project.sandbox.trustedComposites?.includes(pack.id)) return undefined;
  return failure(
    "sandbox_unavailable",
    `${pack.id} ${verb} was not run: pack ${pack.id} is a composite, whose module runs inside hcpx's own process with all of its rights, and sandbox.enforce is "os"`,
    {
      hint: `if you trust its code, list it in sandbox.trusted_composites: ["${pack.id}"] of every config that sets enforce "os" (${(project.sandbox.enforcedBy ?? []).join(", ")}); docs/sandbox.md`,
    },
  );
}

/** What ended a call before its verb answered: the timeout, the caller's cancel, a stray error of the pack's code. */
class Ended {
  constructor(
    readonly by: "timeout" | "cancelled" | "stray",
    readonly message = "",
  ) {}
}

/** The answer of a call that `e` ended: ctx.signal tells the code to stop what it started (it cannot be killed). */
function endedBy(e: Ended, what: string, timeoutMs: number, ac: AbortController, signal?: CallSignal): Envelope {
  if (e.by === "cancelled") {
    ac.abort(signal?.reason);
    // in hcpx's own process: asked to stop, it cannot be killed
    return cancelled(
      what,
      signal,
      true,
      {},
      "its verb was told to stop (ctx.signal); what it started and did not stop may still run",
    );
  }
  ac.abort();
  if (e.by === "timeout")
    return failure("timeout", `${what} did not finish within ${timeoutMs} ms`, { timeout_ms: timeoutMs });
  return failure(
    "composite_error",
    `${what} failed: the pack's code threw where no call awaited it (a timer's callback, a promise nobody awaited) while this call ran: ${e.message}`,
    { hint: "the pack's module must await what it starts; what it started may still run (ctx.signal is aborted)" },
  );
}

/**
 * A module file's version: its identity (identityOf) as text, and whether it can vouch for the file's
 * content (stampOf's rule: not when the file changed within RACY_MS of now); undefined when it is missing.
 */
interface Version {
  id: string;
  settled: boolean;
}

/** The module file's version now (one stat, through links: that of the file it names). */
function versionOf(named: string): Version | undefined {
  const st = stampStat(named);
  return st && { id: identityOf(st).join("-"), settled: settled(st, Date.now()) };
}

/** Whether `a` is `b` and vouches for it: what was kept with `a` may be reused. */
function holds(a: Version | undefined, b: Version | undefined): boolean {
  return a !== undefined && b !== undefined && a.settled && b.settled && a.id === b.id;
}

/** The checked module path of each composite (pack directory, composite.module) with the version of the file it names. */
const checked = new Map<string, { version: Version; file: string; packUrl: string }>();
/** Bound on `checked` (one entry a composite pack; a server that saw more starts over). */
const CHECKED_MAX = 1024;

/** A composite's module: its real path, checked, and the version of the file taken before the checks. */
interface ModuleFile {
  file: string;
  version: Version | undefined;
  /** the file URL of the pack's real folder: what a stack frame of its code names (./stray.ts) */
  packUrl: string;
}

/**
 * Step 1: the composite's module, resolved inside its pack and a regular file (or the envelope that says why not).
 * Kept while the file the module path names keeps its version: the same file (device, inode) unchanged (size,
 * mtime, ctime) since it was checked, and not changed within RACY_MS of then. A link put in the way, a file
 * replaced, moved or removed changes it (a new inode, or the ctime of a link count changed): checked again.
 */
function moduleFile(pack: AdapterCall<"composite">["pack"]): ModuleFile | Envelope {
  const named = resolve(pack.dir, pack.surface.composite.module);
  const key = `${pack.dir}\0${named}`;
  // taken before the checks (and the import): a change during them leaves a version the next call finds different
  const version = versionOf(named);
  const kept = checked.get(key);
  if (kept && holds(kept.version, version))
    return forbiddenEnv(pack) ?? { file: kept.file, version, packUrl: kept.packUrl };
  checked.delete(key);
  const found = checkModule(pack, named);
  if ("ok" in found) return found;
  if (version?.settled) {
    if (checked.size >= CHECKED_MAX) checked.clear();
    checked.set(key, { version, ...found });
  }
  return { ...found, version };
}

function checkModule(
  pack: AdapterCall<"composite">["pack"],
  named: string,
): { file: string; packUrl: string } | Envelope {
  const spec = pack.surface.composite;
  let file: string;
  try {
    // the system's realpath(3): one call, not a lstat per component
    file = realpathSync.native(named);
  } catch {
    return failure("bad_pack", `composite.module ${spec.module} not found in ${pack.dir}`, {
      hint: "fix composite.module in surface.json (relative to the pack directory)",
    });
  }
  let packDir = pack.dir;
  try {
    packDir = realpathSync.native(pack.dir);
  } catch {
    /* keep */
  }
  if (!isInside(file, packDir))
    return failure("bin_denied", `composite.module ${spec.module} resolves to ${file}, outside the pack directory`, {
      hint: "a composite module is loaded only from inside its pack",
    });
  const bad = forbiddenEnv(pack);
  if (bad) return bad;
  // import() of a FIFO or a device would block, or read without end
  try {
    if (!statSync(file).isFile())
      return failure("bad_pack", `composite.module ${spec.module} is not a regular file`, {
        hint: "composite.module names the pack's .mjs file",
      });
  } catch {
    return failure("bad_pack", `composite.module ${spec.module} cannot be read`);
  }
  return { file, packUrl: pathToFileURL(packDir).href };
}

/** A pack whose binding.env names a variable that makes a program load other code: refused on every call. */
function forbiddenEnv(pack: AdapterCall<"composite">["pack"]): Envelope | undefined {
  const bad = forbiddenEnvOf(pack.surface);
  return bad.length
    ? failure(
        "bad_pack",
        `pack ${pack.id}: binding.env names ${bad[0]!.name}, a variable that makes a program load other code or find other programs`,
        { hint: "remove it from surface.json (README: Security model)" },
      )
    : undefined;
}

/**
 * Each module's namespace (as import() gives it: calls that come while it loads wait for the same one) by
 * its file, with the version of the file it was imported from; one entry a file, a new import replaces it.
 * A failed import is kept too: the same version of the file fails the same way (import() keeps the failure).
 */
const modules = new Map<string, { version: Version | undefined; mod: Promise<Record<string, unknown>> }>();
/** Imports of a module file whose version could not vouch for it (numbers their URLs apart). */
let unsettledImports = 0;

/**
 * How many composite modules this process has checked or loaded (test seam, read-only): the test
 * setup file test/support/shared-composites.ts fails a file of a shared test worker that loaded one,
 * since the module (here and in import()'s own cache) would stay for the worker's next file.
 */
export function compositesLoaded(): number {
  return checked.size + modules.size;
}

/**
 * Step 2: the verb's function from the module's default export, and whether this call's import evaluated the
 * module (its top-level code ran now); or the envelope that says why not.
 */
async function verbFunction(
  { file, version }: ModuleFile,
  module: string,
  verb: string,
): Promise<{ fn: VerbFn; imported: boolean } | Envelope> {
  const kept = modules.get(file);
  let mod: Record<string, unknown>;
  let imported = false;
  try {
    if (kept && holds(kept.version, version)) mod = await kept.mod;
    else {
      const loading = dynamicImport(moduleUrl(file, version, kept !== undefined)) as Promise<Record<string, unknown>>;
      modules.set(file, { version, mod: loading });
      imported = true;
      mod = await loading;
    }
  } catch (e) {
    return failure("composite_error", `cannot load ${module}: ${(e as Error)?.message ?? String(e)}`);
  }
  const table = mod.default as Record<string, unknown> | undefined;
  const fn = (table && typeof table === "object" && Object.hasOwn(table, verb) ? table[verb] : undefined) as
    VerbFn | undefined;
  if (typeof fn !== "function")
    return failure("bad_pack", `${module} exports no function for '${verb}'`, {
      hint: "the default export maps each verb_key to async (args, ctx) => data",
    });
  return { fn, imported };
}

/**
 * The URL to import `file` from. import() evaluates a module once per URL and keeps it (or its failure)
 * for the life of the process, so a file imported again (its version changed, or could not vouch for it)
 * is imported under a URL of its own: `?hcpx-v=` and the file's identity, which a settled version vouches
 * for, and an unsettled one (two writes within one tick can leave the identity as it was) numbered apart
 * as well. The first import of a file in a process (hcpx exec's only one) is of its plain URL.
 * What it costs: Node cannot drop a module from import()'s map, so each one imported stays there, one a
 * version: a server keeps one per edit of the file (and one per call within RACY_MS of an edit), while
 * `modules` holds the newest alone.
 * Only the pack's module file is imported anew: the modules it imports itself (./ops.mjs beside it, …)
 * resolve to their plain URLs, which import() has already evaluated, and run as first imported until
 * the process ends (hcpx exec runs each call's; a running hcpx mcp needs a restart for them).
 */
function moduleUrl(file: string, version: Version | undefined, again: boolean): string {
  const url = pathToFileURL(file).href;
  if (!again) return url;
  const v = version?.id ?? "missing";
  return `${url}?hcpx-v=${version?.settled ? v : `${v}-${++unsettledImports}`}`;
}

/** Step 3: the Binding's variables the module may read (binding.env, from the runtime's environment). */
function bindingEnv(pack: AdapterCall<"composite">["pack"], runtimeEnv: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const n of pack.surface.binding?.env ?? []) {
    const v = runtimeEnv[n];
    if (v !== undefined) env[n] = v;
  }
  return env;
}

/** Step 4: what the verb returned, as the envelope's data: usable JSON within the nesting limit (undefined: null). */
function asData(what: string, data: unknown): Envelope {
  if (data === undefined) return { ok: true, data: null };
  let text: string;
  try {
    text = JSON.stringify(data);
  } catch (e) {
    // a cycle, a BigInt, or nesting deep enough to exhaust the stack
    return failure("bad_output", `${what} returned data that is not JSON: ${(e as Error).message}`);
  }
  if (text === undefined) return { ok: true, data: null };
  const parsed = parseOutput(text);
  if (!parsed.ok)
    return failure(
      "bad_output",
      `${what} returned data that is not usable JSON: ${parsed.why}`,
      parsed.deep ? { limit_depth: MAX_OUTPUT_NESTING } : {},
    );
  return { ok: true, data: parsed.value };
}
