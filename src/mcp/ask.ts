// The questions of one tool call, in either era: a command's inputs (asked of
// the client, src/mcp/inputs.ts) and the confirm of a gated write (asked of
// the person), then the runtime's execute() with the answers.
//   legacy (initialize-era) clients: asked now, server → client requests
//     (elicitation/create, sampling, roots), through the context's `elicit`
//     and `askInput`; the library's ConfirmCallback comes in as `elicit`;
//   modern (2026-07-28) clients: the call returns an InputRequiredResult (one
//     round of questions + a signed requestState, src/mcp/confirm-state.ts)
//     and runs when the client retries it with the answers.
// Policy, grants and Binding are execute()'s alone; this module only carries
// the answers to it.
import type { Command, Pack, Project } from "../pack/model";
import { redactOut } from "../util/redact";
import { isObj } from "../util/is";
import { execute, type ConfirmQuestion, type ExecRequest, type PersonAnswer } from "../runtime/execute";
import { failure, type Envelope } from "../runtime/envelope";
import { abortSignalOf, type CallSignal } from "../runtime/cancel";
import { cancelled } from "../runtime/wrap";
import {
  argsHash,
  ConfirmStateError,
  questionHash,
  type Checked,
  type ConfirmStates,
  type StateCall,
} from "./confirm-state";
import {
  argsFromInputs,
  canAnswer,
  capabilityOf,
  MissingCapability,
  inputRequest,
  inputRounds,
  methodOf,
  readAnswer,
  type InputValue,
} from "./inputs";
import { CONFIRM_KEY, toResult, type CallContext, type InputRequired, type ToolResult, type Trace } from "./contract";

/** One call on its way to execute(): what every round of its questions needs. */
export interface CallRun {
  states: ConfirmStates;
  project: Project;
  ctx: CallContext;
  /** asked by execute() only for a gated write under confirm "host" */
  hostApproved: boolean | (() => Promise<boolean>);
  trace: Trace;
}

type Gathered = { got: Record<string, InputValue> };

/** legacy: the inputs asked now, then the call, its confirm asked through `elicit` (the library: the person alone decides). */
export async function runLegacy(run: CallRun, req: ExecRequest, withInputs: Command | undefined): Promise<ToolResult> {
  const { project, ctx, trace } = run;
  let r = req;
  if (withInputs) {
    const g = await gatherLegacy(withInputs, req, ctx, project.confirm.timeoutMs);
    if ("env" in g) return toResult(g.env);
    r = { ...req, args: { ...req.args, ...argsFromInputs(withInputs, g.got) } };
  }
  const elicit = ctx.elicit;
  const askPerson = elicit
    ? async (q: ConfirmQuestion, sig: CallSignal | undefined) => {
        // the call's own signal (ctx.signal, an AbortSignal: abortSignalOf hands it back as it is)
        const a = await elicit(q, sig && abortSignalOf(sig));
        trace.answer = a;
        return a;
      }
    : undefined;
  const pack: Pack | null | undefined = trace.loaded;
  const only = ctx.personOnly;
  if (only)
    return toResult(
      await execute(
        { ...project, confirm: { ...project.confirm, by: "person" } },
        { ...r, confirm: false },
        { signal: ctx.signal, askPerson, env: only.env, pack, activePacks: trace.activePacks, started: trace.started },
      ),
    );
  return toResult(
    await execute(project, r, {
      signal: ctx.signal,
      askPerson,
      hostApproved: run.hostApproved,
      pack,
      activePacks: trace.activePacks,
      started: trace.started,
    }),
  );
}

/** legacy: ask the client for each input, round by round, now (server → client requests). Also prompts/get's (src/mcp/prompts.ts). */
export async function gatherLegacy(
  c: Command,
  req: ExecRequest,
  ctx: CallContext,
  timeoutMs: number,
): Promise<Gathered | { env: Envelope }> {
  const got: Record<string, InputValue> = {};
  for (const round of inputRounds(c)) {
    for (const [k, i] of round) {
      if (!ctx.askInput || !canAnswer(i, ctx.clientCaps)) {
        if (i.optional) continue;
        return { env: unavailable(req, k, methodOf(i)) };
      }
      let r: unknown;
      try {
        r = await ctx.askInput(inputRequest(c, i), timeoutMs, ctx.signal);
      } catch (e) {
        // the call was cancelled while its question waited (the server stopping, the client gone): no one's no
        if (ctx.signal.aborted) return { env: cancelled(`${req.pack} ${req.verb}`, ctx.signal, false) };
        return {
          env: failure(
            "input_declined",
            `input '${k}' of ${req.pack} ${req.verb} got no answer (${(e as Error)?.message ?? String(e)}); nothing was run`,
          ),
        };
      }
      const a = readAnswer(k, i, r);
      if ("declined" in a)
        return { env: failure("input_declined", `${a.declined}; ${req.pack} ${req.verb} was not run`) };
      if ("invalid" in a) return { env: failure("bad_args", `${a.invalid}; nothing was run`) };
      got[k] = a.value;
    }
  }
  return { got };
}

/**
 * modern: one round of a command's inputs. Returns the answers when every
 * round is answered, else the InputRequiredResult of the first round still
 * open (its requestState signs the answers so far, bound to this call and
 * the model's args, single-use, expiring — like a confirm's). Also
 * prompts/get's (src/mcp/prompts.ts), whose `call` says use "prompt".
 */
export function gatherModern(
  states: ConfirmStates,
  c: Command,
  req: ExecRequest,
  ctx: CallContext,
  bound: Checked | undefined,
  call: StateCall,
): Gathered | { failed: Envelope } | { ask: InputRequired } {
  const hash = argsHash({ args: req.args, argv: req.argv ?? null });
  if (bound && bound.argsHash !== hash)
    throw new ConfirmStateError(
      "mismatch",
      `the answers are for ${bound.pack}.${bound.verb} with other args than this call's; nothing was run; call the tool again to be asked anew`,
    );
  // the whole binding holds: the answers are taken, once
  bound?.spend();
  const got: Record<string, InputValue> = { ...(bound?.inputs ?? {}) };
  for (const round of inputRounds(c)) {
    const open: [string, (typeof round)[number][1]][] = [];
    for (const [k, i] of round) {
      if (Object.hasOwn(got, k)) continue;
      if (!canAnswer(i, ctx.clientCaps)) {
        if (i.optional) continue;
        throw new MissingCapability(unavailableText(req, k, methodOf(i)), capabilityOf(i));
      }
      const r = ctx.inputResponses?.[k];
      if (r === undefined) {
        open.push([k, i]);
        continue;
      }
      const a = readAnswer(k, i, r);
      if ("declined" in a)
        return { failed: failure("input_declined", `${a.declined}; ${req.pack} ${req.verb} was not run`) };
      if ("invalid" in a) return { failed: failure("bad_args", `${a.invalid}; nothing was run`) };
      got[k] = a.value;
    }
    if (open.length) {
      return {
        ask: {
          resultType: "input_required",
          inputRequests: Object.fromEntries(open.map(([k, i]) => [k, inputRequest(c, i)])),
          requestState: states.mint({ ...call, argsHash: hash, stage: "inputs", inputs: got }),
        },
      };
    }
  }
  return { got };
}

/** modern: this call's round — its inputs first (when it declares any), then its confirm; a retry's requestState is checked and spent here. */
export async function runModern(
  run: CallRun,
  req: ExecRequest,
  withInputs?: Command,
): Promise<ToolResult | InputRequired> {
  const { ctx, states } = run;
  const call = { principal: run.project.principal.id, pack: req.pack, verb: req.verb };
  // A retry: the state must be ours, unspent, unexpired and for this call (spent once its args hash holds too).
  const bound = ctx.requestState !== undefined ? states.check(ctx.requestState, call) : undefined;
  if (!withInputs) {
    if (bound?.stage === "inputs")
      throw new ConfirmStateError(
        "mismatch",
        `the answers are for the inputs of ${bound.pack}.${bound.verb}, which asks for none now; nothing was run; call the tool again`,
      );
    return confirmModern(run, req, bound, {});
  }
  if (!bound || bound.stage === "inputs") {
    const g = gatherModern(states, withInputs, req, ctx, bound, call);
    if ("failed" in g) return toResult(g.failed);
    if ("ask" in g) return g.ask;
    // every input answered: on to the call itself (its confirm question, if any, is asked anew)
    return confirmModern(
      { ...run, ctx: { ...ctx, inputResponses: undefined } },
      { ...req, args: { ...req.args, ...argsFromInputs(withInputs, g.got) } },
      undefined,
      g.got,
    );
  }
  // the answer to the confirm asked after the inputs: the inputs come back from the signed state
  const got = bound.inputs ?? {};
  return confirmModern(run, { ...req, args: { ...req.args, ...argsFromInputs(withInputs, got) } }, bound, got);
}

/** modern: a first call asks its confirm as an InputRequiredResult; a retry (`bound`) runs on the answer it carries. */
async function confirmModern(
  run: CallRun,
  req: ExecRequest,
  bound: Checked | undefined,
  inputs: Record<string, InputValue>,
): Promise<ToolResult | InputRequired> {
  const { project, ctx, trace } = run;
  if (bound) {
    const given = ctx.inputResponses?.[CONFIRM_KEY];
    // no answer to hcpx's question in the retry: ask again (the state is spent, not reissued)
    if (given === undefined) {
      bound.spend();
      return confirmModern({ ...run, ctx: { ...ctx, inputResponses: undefined } }, req, undefined, inputs);
    }
    return answered(run, req, bound, personAnswer(given));
  }
  // A first call: the question goes back to the client as an InputRequiredResult.
  let question: ConfirmQuestion | undefined;
  const env = await execute(project, req, {
    signal: ctx.signal,
    hostApproved: run.hostApproved,
    pack: trace.loaded,
    activePacks: trace.activePacks,
    started: trace.started,
    askPerson: ctx.canAskModern
      ? async (q) => {
          question = q;
          return "cancel";
        }
      : undefined,
  });
  if (!question) return toResult(env);
  trace.answer = "pending";
  return {
    resultType: "input_required",
    inputRequests: {
      [CONFIRM_KEY]: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: redactOut(question.message),
          requestedSchema: { type: "object", properties: {} },
        },
      },
    },
    requestState: run.states.mint({
      principal: project.principal.id,
      pack: question.pack,
      verb: question.verb,
      argsHash: question.argsHash,
      question: questionHash(question.message),
      inputs,
    }),
  };
}

/**
 * modern: the retry's answer to the confirm, for the args it was asked about. Other args: a mismatch,
 * nothing runs, and the state stays good for the call it was asked about. The question is made again for
 * the call as it would run now (execute() on the pack as its files are now): a text other than the one the
 * person was shown (its Policy row changed in between) is a mismatch too. It is spent when execute()
 * asks (the args validated, their hash and the question the state's), before anything runs: of
 * concurrent answers, one runs.
 */
async function answered(run: CallRun, req: ExecRequest, bound: Checked, answer: PersonAnswer): Promise<ToolResult> {
  const { ctx, trace } = run;
  trace.answer = answer;
  let refused: ConfirmStateError | undefined;
  let asked = false;
  const env = await execute(run.project, req, {
    signal: ctx.signal,
    hostApproved: run.hostApproved,
    pack: trace.loaded,
    activePacks: trace.activePacks,
    started: trace.started,
    askPerson: async (q) => {
      asked = true;
      if (q.argsHash !== bound.argsHash) {
        refused = new ConfirmStateError(
          "mismatch",
          `the answer is for ${bound.pack}.${bound.verb} with other args than this call's; nothing was run; call the tool again to be asked about these args`,
        );
        return "error";
      }
      if (bound.question === undefined || questionHash(q.message) !== bound.question) {
        refused = new ConfirmStateError(
          "mismatch",
          `${bound.pack}.${bound.verb} changed since the person was asked (what would run now is not what the question said, e.g. where it lands); nothing was run; call the tool again to be asked anew`,
        );
        return "error";
      }
      try {
        bound.spend();
      } catch (e) {
        if (!(e instanceof ConfirmStateError)) throw e;
        refused = e;
        return "error";
      }
      return answer;
    },
  });
  if (refused) throw refused;
  // no question this time (the write needs no yes now, or a gate refused it first): the state is spent all the same
  if (!asked) spendQuietly(bound);
  return toResult(env);
}

function spendQuietly(bound: Checked): void {
  try {
    bound.spend();
  } catch (e) {
    if (!(e instanceof ConfirmStateError)) throw e;
  }
}

function unavailableText(req: ExecRequest, key: string, method: string): string {
  return `${req.pack} ${req.verb} asks the client for input '${key}' (${method}), which this client did not declare it can answer; nothing was run`;
}

function unavailable(req: ExecRequest, key: string, method: string): Envelope {
  return failure("input_unavailable", unavailableText(req, key, method));
}

/** A form elicitation's answer as the client sent it → the runtime's answer (anything else: no yes). */
function personAnswer(r: unknown): PersonAnswer {
  if (!isObj(r)) return "cancel";
  return r.action === "accept" ? "accept" : r.action === "decline" ? "decline" : "cancel";
}
