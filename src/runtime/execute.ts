// The runtime (§6.3): every surface (CLI `hcpx exec`, `hcpx mcp`, in-process
// tools) runs a command through `execute()`. Order: find pack → verb exists →
// grant check → Policy confirm gate → argument validation → Binding → Adapter
// → envelope. It never throws for a runtime failure: every failure is an
// envelope with a stable code. Binding values are redacted (`***`) from the
// whole envelope before it is returned. This module is on the `hcpx exec` hot
// path: node builtins, json5, zod/mini only.
import { argsHash } from "../util/argshash";
import { didYouMean } from "../util/suggest";
import type { Command, Pack, Project } from "../pack/model";
import { findPack } from "../pack/load";
import { isGranted } from "../pack/grants";
import { HcpxError } from "../util/errors";
import { failure, type Envelope } from "./envelope";
import { ArgError, validateArgs, type ArgValues } from "./args";
import { redactDeep, secretsFrom } from "./redact";
import { cancelled } from "./wrap";
import { packBins } from "./pack-bins";
import { NEVER, type CallSignal } from "./cancel";
import { kindSecretValues, runAdapter } from "./adapters/index";
import { adapterOf, kindsWith } from "../pack/adapters/index";
import { confirmMessage, QUESTION_MAX } from "./question";
import { bindingGate, bindingNames } from "./binding-gate";

export type { Envelope } from "./envelope";

export interface ExecRequest {
  pack: string;
  verb: string;
  /** Typed args (MCP / in-process callers). For a pass_through verb, `args.argv` (string[]) is accepted as the literal argv. */
  args?: Record<string, unknown>;
  /** `k=v` strings from the CLI, coerced by the arg's type (merged over `args`). For a pass_through verb: the literal argv. */
  kv?: string[];
  /** pass_through verbs: the literal argv after the subcommand. */
  argv?: string[];
  /** The explicit confirm for a `confirm: true` write. */
  confirm?: boolean;
}

export interface ExecuteOptions {
  /**
   * Called once, when the call's work runs in a process of its own and this one only waits for it (a wrap
   * pack's bin has started): the caller may do its own bookkeeping meanwhile (`hcpx exec` opens the audit
   * log). Not called for a call refused or answered before that, nor by the kinds that do their work here.
   */
  started?: () => void;
  /** The runtime's environment: Binding values are read from here (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * An already loaded pack (skips reading surface/policy again); must be activated in `project`. null: the
   * caller read the pack and it did not load, and checked the call on that (`hcpx mcp`: a tool's inputs and
   * confirm): it is read again only to say why, and a pack that loads by then is refused, not run unchecked.
   */
  pack?: Pack | null;
  /**
   * The project's active packs that load, as their files are now, from a caller that keeps them loaded
   * (`hcpx mcp`'s view cache): a confined write takes the programs the sandbox keeps read-only from them
   * (packBins) instead of reading every pack again. Asked only for a confined call.
   */
  activePacks?: () => readonly Pack[];
  /**
   * The caller is gone when this aborts (a signal to `hcpx exec`, an MCP
   * `notifications/cancelled`, `hcpx mcp` shutting down): nothing starts
   * after it, and a running bin is stopped with its process group and
   * descendants before the `cancelled` envelope comes back.
   */
  signal?: CallSignal;
  /**
   * A person the runtime can ask (MCP elicitation when the client declares
   * it). For a confirm-gated write under `confirm: "person"` or `"host"`, the
   * runtime asks with what exactly will run and runs only on "accept".
   */
  askPerson?: (q: ConfirmQuestion, signal: CallSignal | undefined) => Promise<PersonAnswer>;
  /** The call was typed by a person at a terminal (`hcpx exec` with stdin and stderr a TTY). */
  terminal?: boolean;
  /**
   * The host's own approval (a rule `hcpx adopt` wrote, still in force) put
   * this call before the person: under `confirm: "host"` that is the one
   * question, and hcpx does not ask again (src/host/approval.ts). A function is
   * asked only for a gated write under "host" (it reads the host's files).
   */
  hostApproved?: boolean | (() => Promise<boolean>);
}

/**
 * Whether the host's own approval guards a call (`hcpx mcp --host`): built by the CLI from
 * src/host/approval.ts, asked by the MCP front (src/mcp/front.ts) for `hostApproved`;
 * `client`: the clientInfo name, when the client gave one.
 */
export type HostApproval = (
  project: Project,
  pack: string,
  verb: string,
  tool: string,
  client?: string,
) => Promise<boolean>;

/** What a person is asked before a confirm-gated write runs. */
export interface ConfirmQuestion {
  pack: string;
  verb: string;
  /** the validated args, Binding values redacted */
  args: Record<string, unknown> | string[];
  land: string | undefined;
  timeoutMs: number;
  /** the text shown to the person */
  message: string;
  /** sha256 of the validated args (before redaction): what a confirm answer is bound to */
  argsHash: string;
}

/** "withdrawn": hcpx took the question back unanswered, its call cancelled (the server stopping, the client gone) */
export type PersonAnswer = "accept" | "decline" | "cancel" | "timeout" | "error" | "withdrawn";

export { bindingNames } from "./binding-gate";

export async function execute(project: Project, req: ExecRequest, opts: ExecuteOptions = {}): Promise<Envelope> {
  const env = opts.env ?? process.env;
  // 1. find the pack
  let pack: Pack;
  if (opts.pack && opts.pack.id === req.pack) pack = opts.pack;
  else {
    try {
      pack = findPack(project, req.pack);
    } catch (e) {
      if (!(e instanceof HcpxError))
        return failure("bad_pack", `pack ${req.pack} could not be loaded: ${(e as Error)?.message ?? String(e)}`);
      if (e.code === "unknown_pack")
        return failure("unknown_pack", e.problems[0]!.message, { hint: e.problems[0]!.hint });
      if (e.code === "duplicate_pack")
        return failure("duplicate_pack", e.problems[0]!.message, {
          file: e.problems[0]!.file,
          hint: e.problems[0]!.hint,
        });
      const p = e.problems.find((x) => x.severity !== "warning") ?? e.problems[0]!;
      return failure("bad_pack", `pack ${req.pack} is broken: ${p.message}`, {
        file: p.file,
        path: p.path,
        line: p.line,
        hint: "run `hcpx lint` on the pack",
        problems: e.problems,
      });
    }
    if (opts.pack === null)
      return failure(
        "bad_pack",
        `pack ${req.pack} did not load when the call was read, and does now; nothing was run`,
        {
          hint: "its files changed during the call: call again",
        },
      );
  }
  const secrets = secretsFrom(env, bindingNames(pack), kindSecretValues(pack, env));
  const finish = (e: Envelope): Envelope => redactDeep(e, secrets);
  try {
    return finish(await run(project, pack, req, env, opts, secrets));
  } catch (e) {
    // a bug, not a runtime failure: still an envelope, still redacted
    return finish(
      failure("spawn_failed", `internal error running ${req.pack} ${req.verb}: ${(e as Error)?.message ?? String(e)}`),
    );
  }
}

/** A call on its way through execute()'s gates: what they read, and what the gates before found. */
interface Call {
  project: Project;
  pack: Pack;
  cmd: Command;
  req: ExecRequest;
  opts: ExecuteOptions;
  secrets: ReturnType<typeof secretsFrom>;
  /** the person to ask for the yes (set by confirmGate when a gated write needs one) */
  ask?: NonNullable<ExecuteOptions["askPerson"]>;
  /** the validated named args (set by argsGate; {} for a pass-through verb) */
  values: ArgValues;
  /** a pass-through verb's literal argv (set by argsGate) */
  literal?: unknown[];
}

/** A gate answers the envelope that stops the call, or undefined to let it on. */
type Gate = (call: Call) => Envelope | undefined | Promise<Envelope | undefined>;

/**
 * execute()'s gates, in their order (the order is the point): 3. grant,
 * 4. Policy (who must confirm a write), 5. the args and whether the kind
 * takes a json arg, 6a. no Binding value too short to hide (binding-gate.ts), 4b. the person's
 * yes, asked last so the question says exactly what runs. Then 6. Binding and 7. Adapter (runAdapter).
 */
const GATES: readonly Gate[] = [grantGate, confirmGate, argsGate, jsonArgsGate, bindingGate, personGate];

async function run(
  project: Project,
  pack: Pack,
  req: ExecRequest,
  env: NodeJS.ProcessEnv,
  opts: ExecuteOptions,
  secrets: ReturnType<typeof secretsFrom>,
): Promise<Envelope> {
  // 2. the verb exists
  const cmd: Command | undefined = pack.commands.find((c) => c.verb_key === req.verb);
  if (!cmd) return unknownVerb(project, pack, req.verb);
  const call: Call = { project, pack, cmd, req, opts, secrets, values: {} };
  for (const gate of GATES) {
    const stop = await gate(call);
    if (stop) return stop;
  }
  // 6. Binding + 7. Adapter, through the adapter table (never started for a call already cancelled)
  const { values, literal } = call;
  return runAdapter({
    pack,
    project,
    cmd,
    values,
    literal,
    env,
    signal: opts.signal ?? NEVER,
    started: opts.started,
    packBins: () => packBins(project, opts.activePacks?.()),
  });
}

/** What a call of a command the pack does not have (or, to an agent, one it was not granted) is told. */
export function unknownVerb(project: Project, pack: Pack, verb: string): Envelope {
  const granted = pack.commands.filter((c) => isGranted(project.grants, pack.id, c.verb_key)).map((c) => c.verb_key);
  const sense = adapterOf(pack.surface.kind)?.capabilities.callable === false;
  return failure(
    "unknown_verb",
    sense ? `pack ${pack.id} is sense_only: it has no commands` : `pack ${pack.id} has no command '${verb}'`,
    {
      hint: sense
        ? "sense_only packs emit stimuli and are never called"
        : granted.length
          ? `${didYouMean(verb, granted)}granted commands: ${granted.join(", ")}`
          : `no command of ${pack.id} is granted`,
    },
  );
}

/** 3. grant check (deny by default) */
function grantGate({ project, pack, cmd }: Call): Envelope | undefined {
  if (!isGranted(project.grants, pack.id, cmd.verb_key)) {
    const name = `${pack.id}.${cmd.verb_key}`;
    // `hcpx mcp --http`: the principal's own grants (the server config's) may be what refuses, not the project's
    const own = project.grants.within && !isGranted({ ...project.grants, within: undefined }, pack.id, cmd.verb_key);
    return failure("not_granted", `${name} is not granted to ${project.principal.id}`, {
      hint: own
        ? `the server config's principals.${project.principal.id}.grants do not grant it: a person can add it to their allow (or take it out of their deny), docs/http.md`
        : `a person can grant it: \`hcpx grant ${name}\` or grants.allow in hcp.config.json5`,
    });
  }
  return undefined;
}

/**
 * 4. Policy: the confirm gate (nothing runs without a yes). Who may say it is
 * the project's `confirm` setting (README "Who confirms a write"):
 *   person: a person only — asked through askPerson (elicitation), or the call
 *           was typed at a terminal with --confirm; the model's word is not enough
 *   host:   a person through askPerson when the client can ask; otherwise the
 *           model's confirm, with the host's own approval prompt in front of it
 *   agent:  the model's confirm is enough (never asks)
 * When a person is to be asked, `call.ask` is set: personGate asks. A promise
 * only when the host's approval must be read (an async gate on every exec
 * cost ~0.1 M instructions, callgrind).
 */
function confirmGate(call: Call): Envelope | undefined | Promise<Envelope | undefined> {
  const { project, cmd, opts } = call;
  const gated = cmd.policy.operation === "write" && cmd.policy.confirm;
  // One question per gated write: under "host", a host approval in force is that question.
  if (!gated || project.confirm.by !== "host") return confirmBy(call, gated, false);
  if (typeof opts.hostApproved === "function") return opts.hostApproved().then((yes) => confirmBy(call, gated, yes));
  return confirmBy(call, gated, opts.hostApproved === true);
}

/** The confirm gate once it is known whether the host's approval already asked (`hostAsked`). */
function confirmBy(call: Call, gated: boolean, hostAsked: boolean): Envelope | undefined {
  const { project, pack, cmd, req, opts } = call;
  const mode = project.confirm.by;
  const ask = gated && mode !== "agent" && !hostAsked && opts.askPerson ? opts.askPerson : undefined;
  call.ask = ask;
  if (gated && !ask) {
    const byPerson = mode === "person";
    if (req.confirm !== true || (byPerson && opts.terminal !== true)) {
      return failure(
        "confirm_required",
        byPerson && req.confirm === true
          ? `${pack.id}.${cmd.verb_key} is a write that needs a person's yes (confirm: "person" in the config), and this caller cannot ask one; nothing was run`
          : `${pack.id}.${cmd.verb_key} is a write that needs an explicit confirm; nothing was run`,
        {
          operation: "write",
          land: cmd.policy.land,
          confirm_by: mode,
          hint: byPerson
            ? "a person runs it: `hcpx exec " +
              `${pack.id} ${cmd.verb_key}` +
              " --confirm` in a terminal, or through an MCP client that supports elicitation"
            : "ask the user, then repeat the call with --confirm (CLI) or confirm: true (tool call)",
        },
      );
    }
  }
  return undefined;
}

/** 5. argument validation: named args by their specs, or a pass-through verb's literal argv */
function argsGate(call: Call): Envelope | undefined {
  const { cmd, req } = call;
  try {
    if (cmd.passThrough) {
      const fromArgs = req.args?.argv;
      const others = Object.keys(req.args ?? {}).filter((k) => k !== "argv");
      if (others.length)
        return failure(
          "bad_args",
          `${cmd.verb_key} is a pass-through verb: it takes literal argv, not named arguments (${others.join(", ")})`,
          { hint: 'pass the literal arguments after -- (CLI) or as args.argv: ["…"]' },
        );
      if (fromArgs !== undefined && !Array.isArray(fromArgs))
        return failure("bad_args", "args.argv must be an array of strings");
      call.literal = req.argv ?? (fromArgs as unknown[] | undefined) ?? req.kv ?? [];
    } else {
      if (req.argv?.length)
        return failure("bad_args", `${cmd.verb_key} takes named arguments, not literal argv`, {
          hint: "pass k=v pairs",
        });
      call.values = validateArgs(cmd, req.args, req.kv);
    }
  } catch (e) {
    if (e instanceof ArgError) return failure("bad_args", e.message, { arg: e.arg, hint: e.hint });
    throw e;
  }
  return undefined;
}

/** a json arg only where the adapter takes one (before anything is asked) */
function jsonArgsGate({ pack, cmd }: Call): Envelope | undefined {
  if (
    adapterOf(pack.surface.kind)?.capabilities.jsonArgs !== true &&
    Object.values(cmd.args).some((a) => a.type === "json")
  ) {
    return failure(
      "bad_pack",
      `${pack.id}.${cmd.verb_key} has a json argument, which only ${kindsWith("jsonArgs")} packs take`,
      { hint: "run `hcpx lint` on the pack" },
    );
  }
  return undefined;
}

/** 4b. the person's yes, when confirmGate found one is needed (synchronous when not) */
function personGate(call: Call): Promise<Envelope | undefined> | undefined {
  return call.ask ? askPerson(call, call.ask) : undefined;
}

/** The question, asked with the validated args (so it says exactly what runs); undefined on "accept". */
async function askPerson(call: Call, ask: NonNullable<Call["ask"]>): Promise<Envelope | undefined> {
  const { project, pack, cmd, opts, secrets, values, literal } = call;
  const signal = opts.signal;
  // a copy, always (redactDeep hands back the value itself when there is nothing to hide): what the asker is
  // given cannot change the args that were checked and will run (the library hands it to the app's callback)
  const shown = structuredClone(redactDeep(literal ?? values, secrets)) as Record<string, unknown> | string[];
  const q: ConfirmQuestion = {
    pack: pack.id,
    verb: cmd.verb_key,
    args: shown,
    land: cmd.policy.land,
    timeoutMs: project.confirm.timeoutMs,
    message: confirmMessage(pack.id, cmd.verb_key, shown, cmd.policy.land),
    argsHash: argsHash(literal ?? values),
  };
  // the yes runs every arg, so the person sees every arg: never a cut question (src/runtime/question.ts)
  if (q.message.length > QUESTION_MAX)
    return failure(
      "bad_args",
      `${pack.id}.${cmd.verb_key}'s args are too long to ask a person: the question would be ${q.message.length} characters, at most ${QUESTION_MAX} are asked; nothing was run`,
      {
        hint: "a person's yes needs every arg shown in full: shorten the long values (or split the write), or a person runs it at a terminal with `hcpx exec … --confirm`",
      },
    );
  // a call already cancelled puts no question (and no answer of the person's is on record)
  if (signal?.aborted) return cancelled(`${pack.id} ${cmd.verb_key}`, signal, false);
  const answer = await ask(q, signal);
  if (answer === "accept") return undefined;
  // a question is withdrawn only when its call is cancelled (src/mcp/sdk-server.ts): that call's answer is `cancelled`
  if (signal?.aborted || answer === "withdrawn") return cancelled(`${pack.id} ${cmd.verb_key}`, signal, false);
  const why = {
    decline: "declined",
    cancel: "cancelled the question",
    timeout: `gave no answer within ${project.confirm.timeoutMs} ms`,
    error: "could not be asked (the client's answer was an error)",
  }[answer];
  return failure("confirm_declined", `the person ${why}: ${pack.id}.${cmd.verb_key} was not run`, {
    action: answer,
    operation: "write",
    land: cmd.policy.land,
    hint: "nothing ran; call it again only if the person asks for it",
  });
}
