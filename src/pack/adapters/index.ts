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
import type { AdapterEntry, SectionKey } from "./types";
import type { SurfaceFile } from "../schema";

export type { AdapterCapabilities, AdapterEntry, KindLintContext, SectionKey } from "./types";

export const ADAPTERS = [wrap, composite, openapi, mcp, senseOnly] as const satisfies readonly AdapterEntry[];

export type AdapterKind = (typeof ADAPTERS)[number]["kind"];
/** The kinds whose commands run (each has a runner in src/runtime/adapters/index.ts). */
export type CallableKind = Extract<(typeof ADAPTERS)[number], { capabilities: { callable: true } }>["kind"];

type Entry = (typeof ADAPTERS)[number];
type Common = Omit<SurfaceFile, "kind" | SectionKey>;
/** One kind's surface: its own section present, every other kind's absent. */
type Variant<E extends Entry> = Common & { kind: E["kind"] } & (E extends { section: infer S extends SectionKey }
    ? { [P in S]-?: NonNullable<SurfaceFile[P]> } & { [P in Exclude<SectionKey, S>]?: undefined }
    : { [P in SectionKey]?: undefined });
/**
 * A loaded pack's surface: a union discriminated on `kind`, one member per
 * entry of the table. src/pack/load.ts refuses a surface that is none of them
 * (kind_missing_config, kind_config_mismatch) before anything of it runs;
 * SurfaceFile is the file as parsed, which lint and review read.
 */
type ByKind = { [E in Entry as E["kind"]]: Variant<E> };
export type Surface = ByKind[AdapterKind];
export type SurfaceOf<K extends AdapterKind> = ByKind[K];

/** The schema's `kind` enum and the table name the same kinds (a type error here otherwise). */
export type KindsMatch = [AdapterKind, SurfaceFile["kind"]] extends [SurfaceFile["kind"], AdapterKind] ? true : never;
true satisfies KindsMatch;

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
