// What a transport hands the tool-call front and what it gets back: the
// call's context (era, who, how the person and the client are asked), the
// two answers (a tool result, an InputRequiredResult), the front's options,
// and toResult, the one place a tool result is made (through the one
// redaction). A leaf of src/mcp/: the front's modules and the transports
// (sdk-server.ts, the library) import from here, never from each other.
import { CONFIRM_STRICTNESS, type ConfirmMode, type Grants, type Pack, type Project } from "../pack/model";
import { HcpxError } from "../util/errors";
import { asUserError } from "../util/ioerror";
import { redactOut } from "../util/redact";
import type { ConfirmQuestion, HostApproval, PersonAnswer } from "../runtime/execute";
import { failure, problemFailure, type Envelope } from "../runtime/envelope";
import type { AuditRecord } from "../runtime/audit";
import type { ConfirmStates } from "./confirm-state";
import type { InputRequestOut } from "./inputs";
import type { Shape } from "./tools";

export type { HostApproval };

export type Era = "legacy" | "modern";

/** A tool result as MCP carries it (both eras). */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The 2026-07-28 InputRequiredResult hcpx returns for a confirm, or for a round of a command's inputs (src/mcp/inputs.ts). */
export interface InputRequired {
  resultType: "input_required";
  inputRequests: Record<string, InputRequestOut>;
  requestState: string;
}

/** The key of hcpx's one question in inputRequests / inputResponses. */
export const CONFIRM_KEY = "confirm";

export interface CallContext {
  era: Era;
  /** who is calling: "local" on stdio, the authenticated principal over HTTP */
  principal?: string;
  /** the client's name (clientInfo / User-Agent) when known */
  client?: string;
  /**
   * the name the client gave itself in MCP's clientInfo (legacy: `initialize`; 2026-07-28: this
   * request's `_meta`), never a User-Agent: on an entry several hosts read it says which host's
   * approval may count (`--client-host`, src/host/approval.ts)
   */
  clientInfo?: string;
  signal: AbortSignal;
  /** legacy: ask the person now (elicitation/create); absent when the client cannot. */
  elicit?: (q: ConfirmQuestion, signal: AbortSignal | undefined) => Promise<PersonAnswer>;
  /** modern: the request's clientCapabilities declared form elicitation. */
  canAskModern?: boolean;
  /** modern: the retry's answers and the echoed state. */
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  /** the client's declared capabilities (legacy: from initialize; modern: the request's) — which inputs it can answer */
  clientCaps?: unknown;
  /** legacy: send one input's request to the client now and wait for its result */
  askInput?: (r: InputRequestOut, timeoutMs: number, signal: AbortSignal) => Promise<unknown>;
  /**
   * the library (src/lib/index.ts): a gated write runs only on the person's answer through `elicit`,
   * whatever the model's `confirm` and the project's setting; Binding values come from `env`. `forModel`:
   * the answer goes to a model (the SDK adapters), which is told of no pack or command it was not granted
   */
  personOnly?: { env: NodeJS.ProcessEnv; forModel?: true };
}

export interface FrontOptions {
  shape: Shape;
  config?: string;
  cwd?: string;
  /** The signer of modern confirm states (a per-process key by default). */
  states?: ConfirmStates;
  /** Whether the host's own approval guards a call (`hcpx mcp --host`, src/host/approval.ts). */
  hostApproval?: HostApproval;
  log?: (msg: string) => void;
  /** how calls come in, for the audit log (src/runtime/audit.ts) */
  via?: "stdio" | "http" | "library";
  /** the host id the server was started for (`--host`), for the audit log */
  host?: string;
  /** take the packs' validated files from the validation cache (hcpx mcp on stdio) */
  validationCache?: boolean;
  /** answer the first requests from the start cache while nothing it was built from changed (hcpx mcp on stdio; src/mcp/start-cache.ts) */
  startCache?: boolean;
  /** where each call's audit record goes (default: the audit log; tests give their own); a promise: the call answers once it settles */
  audit?: (rec: AuditRecord) => void | Promise<void>;
  /**
   * `hcpx mcp --http`: the authenticated principal this front serves. Its
   * grants apply within the project's (a command must be granted by both),
   * and of its confirm setting and the project's the stricter wins.
   */
  principal?: FrontPrincipal;
  /**
   * `hcpx mcp --http --server-config`: the principal as the server config says now (team-config.ts
   * liveServerConfig; throws when the config no longer loads or names it: the call is refused).
   * Read per call, reused while `file` is unchanged (its stamp joins the project's).
   */
  livePrincipal?: { file: string; get(): FrontPrincipal };
  /**
   * `hcpx mcp --http --server-config`: the tool calls this front (its one principal) runs at once
   * (limits.max_calls_per_principal); one more is refused before anything is read (too_many_calls).
   * Absent: unbounded (stdio, --no-auth, the library: one user).
   */
  maxCalls?: number;
}

export interface FrontPrincipal {
  id: string;
  grants: Grants;
  confirm?: { by: ConfirmMode; timeoutMs?: number };
}

/** The project as one principal of the team server sees it (see FrontOptions.principal). */
export function asPrincipal(p: Project, who: FrontPrincipal): Project {
  const c = who.confirm;
  const by = c && CONFIRM_STRICTNESS[c.by] > CONFIRM_STRICTNESS[p.confirm.by] ? c.by : p.confirm.by;
  return {
    ...p,
    principal: { id: who.id, kind: "agent" },
    grants: { allow: who.grants.allow, deny: who.grants.deny, within: p.grants },
    confirm: { by, timeoutMs: c?.timeoutMs ?? p.confirm.timeoutMs },
  };
}

/** What one call's audit record learns on its way through the front. */
export interface Trace {
  pack?: string;
  verb?: string;
  args?: unknown;
  answer?: NonNullable<AuditRecord["confirm"]>["answer"];
  /** the called pack as its files are now (the view cache's currentPack), handed to execute() */
  loaded?: Pack | null;
  /** the project's active packs that load, as their files are now (the view cache's currentPacks), handed to execute() */
  activePacks?: () => readonly Pack[];
  /** ExecuteOptions.started, handed to execute(): the args hashed for the record while the bin runs (into `hashed`) */
  started?: () => void;
  /** argsHash of what the record records (the args, else the tool input), when taken while the bin ran */
  hashed?: string;
}

/** Every tool result of hcpx mcp (stdio, HTTP) and the library is made here, through the one redaction. */
export function toResult(env0: Envelope): ToolResult {
  const env = redactOut(env0);
  return {
    content: [{ type: "text", text: JSON.stringify(env) }],
    structuredContent: env as unknown as Record<string, unknown>,
    isError: !env.ok,
  };
}

/** A thrown error as the envelope that says what went wrong (a HcpxError's problems; anything else is a bug). */
export function problemEnvelope(e0: unknown): Envelope {
  const e = asUserError(e0);
  if (e instanceof HcpxError) return problemFailure(e.problems);
  return failure("internal", `internal error: ${(e as Error)?.message ?? String(e)}`, {
    hint: "this is a bug in hcpx; rerun with HCPX_DEBUG=1 and report it",
  });
}
