// The result codes of a call by where the runtime makes them, for its audit record's decision
// (./audit.ts decisionOf): before anything of the command started (its bin, its composite verb, its MCP
// server's tools/call, its HTTP request), once it had, or on both sides. test/runtime/audit-decision.test.ts
// fails for a code of the error table (src/util/codes.ts) in none of these lists nor in its list of codes no
// call answers once its pack is read. An mcp pack's server may have been started to check its tools (a
// composite's module loaded) for a code made before the call itself: the command did not run.
import type { ErrorCode } from "../util/errors";

/** Made only before anything of the command started: decision `refused`. */
export const PRE_RUN: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  // the request and the pack (execute.ts's gates, the MCP front, the library)
  "bad_args",
  "unknown_verb",
  "unknown_pack",
  "bad_pack",
  "duplicate_pack",
  "no_config",
  "internal",
  "too_many_calls",
  "input_unavailable",
  // the program refused before its spawn (wrap.ts resolveBin, composite.ts's module path), the Binding
  // refused before anything is started or sent (short-binding.ts, mcp-adapter.ts serverRef), no sandbox
  // (sandbox/index.ts confine() before the spawn; bubblewrap's own refusal, before it starts the bin or an mcp
  // pack's server, as bubblewrap reports it on its status fd, never as their stderr could tell it: sandbox/status.ts)
  "bin_denied",
  "binding_too_short",
  "binding_missing",
  "sandbox_unavailable",
  // an mcp pack's server whose tools are not the ones reviewed: the tool is not called (mcp-pins.ts)
  "tool_changed",
  "too_many_tools",
]);

/** Made once the command had started, or when it may have (a request cut off, a redirect answered): `ran`. */
export const RAN: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "timeout",
  "exit_nonzero",
  "bad_output",
  "output_too_large",
  "http_error",
  "composite_error",
  "tool_error",
  // the kernel's denial, told from what the bin printed, or a file the bin made, once it has ended (sandbox/)
  "sandbox_denied",
]);

/**
 * Made on both sides: each one made before anything started says `started: false` (its decision is
 * `refused`; `cancelled`'s is `cancelled`), any other ran. spawn_failed: the bin could not be started
 * (wrap.ts), the MCP server not started and initialized (mcp-adapter.ts; one bubblewrap could not set up is
 * sandbox_unavailable, as a bin's) — or execute()'s catch-all, which may come after the command ran; mcp_error:
 * the server not reached or its tools not listed, or its tools/call failed.
 */
export const MARKED: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["cancelled", "spawn_failed", "mcp_error"]);
