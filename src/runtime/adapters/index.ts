// The runtime's half of the adapter table (src/pack/adapters.ts is the other):
// how a call of each callable kind runs, behind the one Adapter interface. Each
// kind's adapter is loaded on its first call only (the mcp adapter, with the MCP
// SDK, is even a file of its own in dist/), so `hcpx exec` of one kind never
// initializes another's. runAdapter() is the only way execute() reaches an
// adapter: it refuses to start an already cancelled call, and a call cancelled
// while it ran never answers `ok` (its effect may have landed; nobody is told
// it did), whatever the adapter answered.
import { adapterOf, type CallableKind } from "../../pack/adapters/index";
import { failure, type Envelope } from "../envelope";
import { cancelReason, cancelled } from "../wrap";
import type { Adapter, AdapterCall } from "./types";
import type { Pack } from "../../pack/model";
import { packUrls, schemeEnvNames, userinfoKey, userinfoSecrets } from "../openapi-base";
import { loadMcpAdapter } from "../mcp-load";

export type { Adapter, AdapterCall } from "./types";

/**
 * The runtime's entry of each callable kind: its adapter, loaded on first use,
 * and what of a pack of this kind is secret besides binding.env (execute()
 * redacts it from every envelope, before the adapter is even loaded).
 */
export interface RuntimeEntry<K extends CallableKind = CallableKind> {
  load(): Promise<Adapter<K>>;
  /** env names whose values are secrets (credentials the kind reads from the Binding) */
  secretEnv?(pack: Pack<K>): string[];
  /** other secret values (a base URL's user:password) */
  secretValues?(pack: Pack<K>, env: NodeJS.ProcessEnv): string[];
  /** of those, the credentials themselves (a base URL's password): the Binding gate refuses one too short to hide */
  keyValues?(pack: Pack<K>, env: NodeJS.ProcessEnv): string[];
}

export const RUNNERS: { readonly [K in CallableKind]: RuntimeEntry<K> } = {
  wrap: { load: async () => ({ run: (await import("../wrap")).runWrap }) },
  composite: { load: async () => ({ run: (await import("../composite")).runComposite }) },
  openapi: {
    load: async () => ({ run: (await import("../openapi")).runOpenapi }),
    secretEnv: (pack) => [
      ...(pack.surface.openapi?.auth?.env ? [pack.surface.openapi.auth.env] : []),
      ...schemeEnvNames(pack),
    ],
    // a base URL's userinfo (user:password) is a secret as much as a Binding value
    secretValues: (pack, env) => packUrls(pack, env).flatMap(userinfoSecrets),
    keyValues: (pack, env) => packUrls(pack, env).flatMap(userinfoKey),
  },
  mcp: { load: async () => ({ run: (await loadMcpAdapter()).runMcp }) },
};

/** The runtime's entry of a pack's kind, with the pack it was looked up by (undefined: not callable). */
function entryOf(
  pack: Pack,
  runners: Partial<Record<string, RuntimeEntry>> = RUNNERS,
): { entry: RuntimeEntry; pack: Pack<CallableKind> } | undefined {
  const kind = pack.surface.kind;
  // the entry of kind K, handed the Pack<K> it was looked up by
  return Object.hasOwn(runners, kind) && runners[kind]
    ? { entry: runners[kind], pack: pack as Pack<CallableKind> }
    : undefined;
}

/** Env names whose values are secrets for this pack's kind (credentials it reads from the Binding). */
export function kindSecretEnv(pack: Pack): string[] {
  const e = entryOf(pack);
  return e?.entry.secretEnv?.(e.pack) ?? [];
}

/** Other values that are secrets for this pack's kind (a base URL's user:password). */
export function kindSecretValues(pack: Pack, env: NodeJS.ProcessEnv): string[] {
  const e = entryOf(pack);
  return e?.entry.secretValues?.(e.pack, env) ?? [];
}

/** Of kindSecretValues, the credentials themselves (a base URL's password; not its user name). */
export function kindKeyValues(pack: Pack, env: NodeJS.ProcessEnv): string[] {
  const e = entryOf(pack);
  return e?.entry.keyValues?.(e.pack, env) ?? [];
}

/** Run a checked call through its kind's adapter (`runners`: the table; another only in tests). */
export async function runAdapter(
  call: AdapterCall,
  runners: Partial<Record<string, RuntimeEntry>> = RUNNERS,
): Promise<Envelope> {
  const { pack, cmd, signal } = call;
  const label = `${pack.id} ${cmd.verb_key}`;
  const kind = pack.surface.kind;
  const { entry } = entryOf(pack, runners) ?? {};
  if (!entry) return failure("unknown_verb", `pack ${pack.id} is ${kind}: it has no commands to run`);
  // the adapter of kind K is handed a Pack<K>: its section is there (loadPack refuses one without; checked here for a Pack built any other way)
  const section = adapterOf(kind)?.section;
  if (section && pack.surface[section] === undefined)
    return failure("bad_pack", `pack ${pack.id} is kind ${kind} but has no ${section} section`, {
      hint: `add ${section}: { … } to surface.json`,
    });
  // never started for a call already cancelled
  if (signal.aborted) return cancelled(label, signal, false);
  const adapter = await entry.load();
  if (signal.aborted) return cancelled(label, signal, false);
  const env = await adapter.run(call as AdapterCall<CallableKind>);
  // the caller went away while it ran: never `ok` (what it did is not confirmed to anyone)
  if (signal.aborted && env.ok) {
    return failure(
      "cancelled",
      `${label} was cancelled (${cancelReason(signal)}) while it ran, and finished before it could be stopped: its effect may have landed`,
      { finished: true },
    );
  }
  return env;
}
