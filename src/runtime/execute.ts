// The runtime (§6.3): every surface (CLI `hcpx exec`, `hcpx mcp`, in-process
// tools) runs a command through `execute()`. Order: find pack → verb exists →
// grant check → Policy confirm gate → argument validation → Binding → Adapter
// → envelope. It never throws for a runtime failure: every failure is an
// envelope with a stable code. This module is on the `hcpx exec` hot path:
// node builtins, json5, zod/mini only.
import type { Project } from "../pack/model";

export interface ExecRequest {
  pack: string;
  verb: string;
  /** Typed args (MCP / in-process callers). */
  args?: Record<string, unknown>;
  /** `k=v` strings from the CLI, coerced by the arg's type. Merged over `args`. */
  kv?: string[];
  /** pass_through verbs: the literal argv after the subcommand. */
  argv?: string[];
  /** The explicit confirm for a `confirm: true` write. */
  confirm?: boolean;
}

export type ErrorCode =
  | "unknown_pack"
  | "unknown_verb"
  | "not_granted"
  | "confirm_required"
  | "bad_args"
  | "bin_denied"
  | "timeout"
  | "exit_nonzero"
  | "bad_output"
  | "output_too_large"
  | "http_error"
  | "composite_error"
  | "spawn_failed"
  | "bad_pack";

export type Envelope = { ok: true; data: unknown } | { ok: false; error: { code: string; message: string; [k: string]: unknown } };

export interface ExecuteOptions {
  /** The runtime's environment: Binding values are read from here (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export async function execute(project: Project, req: ExecRequest, opts: ExecuteOptions = {}): Promise<Envelope> {
  void project;
  void req;
  void opts;
  return { ok: false, error: { code: "spawn_failed", message: "not implemented yet" } };
}
