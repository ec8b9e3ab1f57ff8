// The one interface every adapter kind implements (issue 22 §7): a call the
// runtime has already checked (grant, confirm gate, arguments), the caller's
// cancel with it (./cancel.ts: an AbortSignal, or exec's lighter StopSignal). An adapter answers with an envelope and never throws
// for a runtime failure. When `signal` aborts, it stops what it started (a
// bin's or a server's whole process tree, an HTTP request, a composite's
// ctx.signal) and answers `cancelled` only once that is done; the runner
// (./index.ts) turns any other answer to an aborted call into `cancelled`, so
// a cancelled write never reports ok.
import type { AdapterKind, CallableKind } from "../../pack/adapters/index";
import type { Command, Pack, Project } from "../../pack/model";
import type { ArgValues } from "../args";
import type { Envelope } from "../envelope";
import type { CallSignal } from "../cancel";

/** A call of a pack of kind K (runAdapter hands each kind's adapter its own: its section is present). */
export interface AdapterCall<K extends AdapterKind = AdapterKind> {
  pack: Pack<K>;
  project: Project;
  cmd: Command;
  /** validated named args ({} for a pass-through verb) */
  values: ArgValues;
  /** a pass-through verb's literal argv (undefined otherwise) */
  literal: readonly unknown[] | undefined;
  /** the runtime's environment (Binding values are read from it) */
  env: NodeJS.ProcessEnv;
  /** aborts when the caller is gone: a signal to `hcpx exec`, an MCP notifications/cancelled, `hcpx mcp` shutting down */
  signal: CallSignal;
  /** ExecuteOptions.started: called once when the call's work runs in a process of its own (wrap: the bin started) */
  started?: () => void;
  /**
   * the resolved programs of the project's active packs, for a confined spawn to keep read-only
   * (ConfineContext.packBins): given by the runtime, which loads packs, so that an adapter bundled apart (mcp)
   * does not carry the pack loader
   */
  packBins?: () => string[];
}

export interface Adapter<K extends CallableKind = CallableKind> {
  run(call: AdapterCall<K>): Promise<Envelope>;
}
