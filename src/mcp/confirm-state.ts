// The `requestState` a modern (2026-07-28) client echoes back when it answers
// hcpx's confirm question (an InputRequiredResult). It passes through the
// client, so it is attacker-controlled input: hcpx signs it (HMAC-SHA256 with
// a key only this runtime holds), binds it to exactly one call (principal,
// pack, verb, a hash of the validated args) and to the question the person was
// shown (a hash of its text: a Policy row changed before the answer makes
// another question, and the answer is refused), lets it expire, and accepts
// each state once. Anything else — a tampered, replayed, expired or mismatched
// state — is refused with the reason, and nothing runs.
//
// The key is per process (random) unless one is given: `hcpx mcp --http`
// gives the user's key (or the one its instances share through the server
// config, src/mcp/team-config.ts), and each state names its key by a short
// id, so an instance holding another key says so instead of "tampered".
// Spent states are remembered in memory and, when given, in a store every
// instance shares (`spend`): an answer runs at most one call across them.
// Pure node:crypto: no SDK here. A process's random key (and node:crypto with it, src/util/builtins.ts)
// is made at the first state minted or checked, not with the server: a start that asks nothing never
// loads node:crypto.
import { nodeCrypto } from "../util/builtins";
export { argsHash } from "../util/argshash";

/** What one state binds. */
export interface ConfirmBinding {
  principal: string;
  pack: string;
  verb: string;
  /** sha256 (hex) of the validated args, in a canonical JSON form */
  argsHash: string;
  /**
   * hcpx's confirm question: questionHash() of the text the person was shown. At the answer the
   * question is made again for the call as it would run now (its pack as its files are now): another
   * text (the Policy row's land changed, the command now runs elsewhere) is refused, nothing runs.
   */
  question?: string;
  /**
   * "inputs": the state of a round of a command's inputs (src/mcp/inputs.ts),
   * argsHash then hashes the model's args; absent: hcpx's confirm question.
   * A state of one kind is never taken for the other.
   */
  stage?: "inputs";
  /** the command's input answers collected so far (they fill args; signed with the rest) */
  inputs?: Record<string, string | number | boolean>;
  /**
   * "prompt": the state of a prompts/get (src/mcp/prompts.ts); absent: a
   * tools/call's. Signed with the rest: a prompt's state is never taken for a
   * tool call's of the same pack and verb, nor the other way round.
   */
  use?: "prompt";
}

/** A state checked for a call and not spent yet: spend() once the whole binding holds (the args hash too). */
export interface Checked extends ConfirmBinding {
  /** Mark the state answered (here and in the shared store); throws "replayed" when it already was. */
  spend(): void;
}

/** What a state is redeemed for: the call (or the prompts/get) that echoes it. */
export interface StateCall {
  principal: string;
  pack: string;
  verb: string;
  use?: "prompt";
}

interface Payload extends ConfirmBinding {
  v: 1;
  /** single-use id */
  nonce: string;
  /** expiry, ms since the epoch */
  exp: number;
  /** the signing key's id (not secret: a hash prefix) */
  k?: string;
}

/** Why a state was refused; `message` says it to the caller. */
export class ConfirmStateError extends Error {
  constructor(
    readonly reason: "malformed" | "tampered" | "expired" | "replayed" | "mismatch" | "other_key",
    message: string,
  ) {
    super(message);
    this.name = "ConfirmStateError";
  }
}

export interface ConfirmStateOptions {
  /** ≥ 32 bytes; a fresh random key per process when absent. */
  key?: Uint8Array;
  /** How long a question may wait for its answer (default 10 minutes). */
  ttlMs?: number;
  now?: () => number;
  /** Mark a state spent where every instance sees it; false when it was spent already. */
  spend?: (nonce: string, exp: number) => boolean;
  /** where the key comes from, for the other-key message */
  keySource?: string;
}

const PREFIX = "hcpx1.";

/** What a confirm state binds of the question a person was shown: sha256 (hex) of its text. */
export function questionHash(text: string): string {
  return nodeCrypto().createHash("sha256").update("hcpx.question\0").update(text, "utf8").digest("hex");
}

export class ConfirmStates {
  /** the key given, else this process's random one, made at the first state minted or checked (above) */
  private keyBytes?: Uint8Array;
  private keyId?: string;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly spend?: (nonce: string, exp: number) => boolean;
  private readonly keySource?: string;
  /** nonce → expiry of the states already answered (kept until they expire) */
  private readonly used = new Map<string, number>();

  constructor(opts: ConfirmStateOptions = {}) {
    if (opts.key && opts.key.length < 32) throw new Error("the requestState key must be at least 32 bytes");
    this.keyBytes = opts.key;
    this.ttlMs = opts.ttlMs ?? 10 * 60_000;
    this.now = opts.now ?? Date.now;
    this.spend = opts.spend;
    this.keySource = opts.keySource;
  }

  private get key(): Uint8Array {
    return (this.keyBytes ??= nodeCrypto().randomBytes(32));
  }

  /** the key's id, which each state names (not secret: a hash prefix) */
  private get kid(): string {
    return (this.keyId ??= nodeCrypto()
      .createHash("sha256")
      .update("hcpx.requestState.kid\0")
      .update(this.key)
      .digest("base64url")
      .slice(0, 11));
  }

  mint(b: ConfirmBinding): string {
    const p: Payload = {
      v: 1,
      principal: b.principal,
      pack: b.pack,
      verb: b.verb,
      argsHash: b.argsHash,
      ...(b.question ? { question: b.question } : {}),
      ...(b.stage ? { stage: b.stage } : {}),
      ...(b.inputs && Object.keys(b.inputs).length ? { inputs: b.inputs } : {}),
      ...(b.use ? { use: b.use } : {}),
      nonce: nodeCrypto().randomBytes(16).toString("base64url"),
      exp: this.now() + this.ttlMs,
      k: this.kid,
    };
    const body = Buffer.from(JSON.stringify(p)).toString("base64url");
    return `${PREFIX}${body}.${this.sign(body)}`;
  }

  /** check() and spend() at once: a second answer with the state is refused. */
  redeem(state: string, call: StateCall): ConfirmBinding {
    const { spend, ...binding } = this.check(state, call);
    spend();
    return binding;
  }

  /**
   * Check a state as echoed by the client: signature, expiry, not answered
   * before, and bound to this call's principal, pack and verb. It is not spent
   * here: the caller checks the args hash once the args are validated, then
   * spends it (spend()) before anything runs, so a call with other args is
   * refused and leaves the state good for the call it was asked about. spend()
   * is synchronous: of concurrent answers with one state, one runs.
   */
  check(state: string, call: StateCall): Checked {
    if (typeof state !== "string" || !state.startsWith(PREFIX))
      throw new ConfirmStateError("malformed", "requestState is not one hcpx issued; nothing was run");
    const rest = state.slice(PREFIX.length);
    const dot = rest.lastIndexOf(".");
    if (dot <= 0) throw new ConfirmStateError("malformed", "requestState is not one hcpx issued; nothing was run");
    const body = rest.slice(0, dot);
    const mac = Buffer.from(rest.slice(dot + 1), "base64url");
    const want = Buffer.from(this.sign(body), "base64url");
    if (mac.length !== want.length || !nodeCrypto().timingSafeEqual(mac, want)) {
      const k = this.claimedKid(body);
      if (k !== undefined && k !== this.kid) {
        throw new ConfirmStateError(
          "other_key",
          `requestState was signed by another key: instances must share one requestState key (request_state.key_file or key_env in the server config, docs/http.md)${this.keySource ? `; this instance's key is ${this.keySource}` : ""}; nothing was run; call the tool again to be asked anew`,
        );
      }
      throw new ConfirmStateError(
        "tampered",
        "requestState failed its integrity check (altered, or issued by another hcpx process); nothing was run; call the tool again to be asked anew",
      );
    }
    let p: Payload;
    try {
      p = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Payload;
    } catch {
      throw new ConfirmStateError("malformed", "requestState does not decode; nothing was run");
    }
    const now = this.now();
    this.sweep(now);
    if (typeof p.exp !== "number" || p.exp <= now)
      throw new ConfirmStateError(
        "expired",
        "requestState expired: the question was answered too late; nothing was run; call the tool again to be asked anew",
      );
    if (this.used.has(p.nonce))
      throw new ConfirmStateError(
        "replayed",
        "requestState was already answered once: each answer runs at most one call; nothing was run",
      );
    if (p.principal !== call.principal)
      throw new ConfirmStateError(
        "mismatch",
        `the answer is for another principal's call of ${p.pack}.${p.verb}, not ${call.principal}'s: each principal answers its own questions; nothing was run`,
      );
    if (p.pack !== call.pack || p.verb !== call.verb) {
      throw new ConfirmStateError(
        "mismatch",
        `the answer is for another call (${p.pack}.${p.verb}), not for ${call.pack}.${call.verb}; nothing was run`,
      );
    }
    if ((p.use ?? "tool") !== (call.use ?? "tool")) {
      const kind = (u: string | undefined) =>
        u === "prompt"
          ? `the prompt of ${p.pack}.${p.verb} (prompts/get)`
          : `a tool call of ${p.pack}.${p.verb} (tools/call)`;
      throw new ConfirmStateError(
        "mismatch",
        `the answer is for ${kind(p.use)}, not for ${kind(call.use)}; nothing was run; ask again`,
      );
    }
    return {
      principal: p.principal,
      pack: p.pack,
      verb: p.verb,
      argsHash: p.argsHash,
      ...(typeof p.question === "string" ? { question: p.question } : {}),
      ...(p.stage === "inputs" ? { stage: p.stage } : {}),
      ...(p.inputs ? { inputs: p.inputs } : {}),
      ...(p.use === "prompt" ? { use: p.use } : {}),
      spend: () => this.spendOnce(p.nonce, p.exp),
    };
  }

  private spendOnce(nonce: string, exp: number): void {
    if (this.used.has(nonce) || (this.spend && !this.spend(nonce, exp)))
      throw new ConfirmStateError(
        "replayed",
        "requestState was already answered once (on this or another instance): each answer runs at most one call; nothing was run",
      );
    this.used.set(nonce, exp);
  }

  /** The key id an unverified state claims (only to word the refusal). */
  private claimedKid(body: string): string | undefined {
    try {
      const k = (JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { k?: unknown }).k;
      return typeof k === "string" ? k : undefined;
    } catch {
      return undefined;
    }
  }

  private sign(body: string): string {
    return nodeCrypto().createHmac("sha256", this.key).update(`hcpx.requestState.v1\0${body}`).digest("base64url");
  }

  private sweep(now: number): void {
    for (const [n, exp] of this.used) if (exp <= now) this.used.delete(n);
  }
}
