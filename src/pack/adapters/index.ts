// The adapter kinds, as a table (what the host formats are to hosts): each
// entry (one module per kind) says what its kind is, what it can do, and its
// own lint rules. The runtime's half of each entry, how a call runs, is
// src/runtime/adapters/index.ts (a higher layer; its table is typed from this
// one, so a callable kind without a runner does not compile). Code that needs
// to know what a kind does asks its capabilities here, not its name.
import { composite } from "./composite";
import { mcp } from "./mcp";
import { openapi } from "./openapi";
import { senseOnly } from "./sense-only";
import { wrap } from "./wrap";
import type { AdapterEntry } from "./types";

export type { AdapterCapabilities, AdapterEntry, KindLintContext } from "./types";

export const ADAPTERS = [wrap, composite, openapi, mcp, senseOnly] as const satisfies readonly AdapterEntry[];

export type AdapterKind = (typeof ADAPTERS)[number]["kind"];
/** The kinds whose commands run (each has a runner in src/runtime/adapters/index.ts). */
export type CallableKind = Extract<(typeof ADAPTERS)[number], { capabilities: { callable: true } }>["kind"];

export const ADAPTER_KINDS: readonly AdapterKind[] = ADAPTERS.map((a) => a.kind);

/** The table's entry for a kind (undefined for a kind the table does not know). */
export function adapterOf(kind: string): AdapterEntry | undefined {
  return ADAPTERS.find((a) => a.kind === kind);
}

/** The kinds that have a capability, for messages ("only openapi and mcp packs take …"). */
export function kindsWith(cap: "jsonArgs" | "passThrough" | "readsStdout" | "serverTools"): string {
  const ks = ADAPTERS.filter((a) => a.capabilities[cap]).map((a) => a.kind);
  return ks.length > 1 ? `${ks.slice(0, -1).join(", ")} and ${ks[ks.length - 1]}` : (ks[0] ?? "no");
}

/** Whether a pack of this kind has commands an agent can call (a sense_only pack only emits stimuli). */
export function callable(kind: string): boolean {
  return adapterOf(kind)?.capabilities.callable === true;
}
