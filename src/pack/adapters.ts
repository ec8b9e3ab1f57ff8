// The adapter kinds, as a table (what the host formats are to hosts): each
// entry says what its kind is and can do. The runtime's half of each entry,
// how a call runs, is src/runtime/adapters/index.ts (a higher layer; its
// table is typed from this one, so a callable kind without a runner does not
// compile). A new kind is one entry here and one there.

export interface AdapterCapabilities {
  /** has commands that an agent can call (sense_only only emits stimuli) */
  callable: boolean;
  /** takes `type: "json"` arguments (passed on as JSON values, not argv text) */
  jsonArgs: boolean;
}

export interface AdapterKindEntry {
  kind: string;
  capabilities: AdapterCapabilities;
}

export const ADAPTERS = [
  { kind: "wrap", capabilities: { callable: true, jsonArgs: false } },
  { kind: "composite", capabilities: { callable: true, jsonArgs: false } },
  { kind: "openapi", capabilities: { callable: true, jsonArgs: true } },
  { kind: "mcp", capabilities: { callable: true, jsonArgs: true } },
  { kind: "sense_only", capabilities: { callable: false, jsonArgs: false } },
] as const satisfies readonly AdapterKindEntry[];

export type AdapterKind = (typeof ADAPTERS)[number]["kind"];
/** The kinds whose commands run (each has a runner in src/runtime/adapters/index.ts). */
export type CallableKind = Extract<(typeof ADAPTERS)[number], { capabilities: { callable: true } }>["kind"];

export const ADAPTER_KINDS: readonly AdapterKind[] = ADAPTERS.map((a) => a.kind);

/** The table's entry for a kind (undefined for a kind the table does not know). */
export function adapterOf(kind: string): (typeof ADAPTERS)[number] | undefined {
  return ADAPTERS.find((a) => a.kind === kind);
}
