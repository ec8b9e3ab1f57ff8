// Binding values never appear in an envelope, a message or a log (DESIGN.md):
// every string of an envelope passes through here before it leaves the runtime,
// and every exit to a person or a program — the CLI's output module (src/cli/
// output.ts), `hcpx mcp`'s answers, questions and log (src/mcp/server.ts), the
// library's envelopes and confirm requests (src/lib/index.ts) — passes through
// redactOut(), which knows every value in play in this process: the values
// secretsFrom() was given, and the runtime env's values of the Binding names
// of every active pack (holdSecretNames, from src/pack/load.ts: each pack
// loaded, and each other pack `hcpx exec`'s findPack looks at without loading
// it, src/pack/binding-names.ts).

import { strictPercent } from "./percent";

export const REDACTED = "***";

/** The secret values to hide: the runtime env's values of the given names, and other secret `values` (non-empty), with their encoded forms. */
export function secretsFrom(
  env: NodeJS.ProcessEnv,
  names: readonly string[],
  values: readonly string[] = [],
): string[] {
  const out = new Set<string>();
  for (const v of [...names.map((n) => env[n]), ...values]) {
    if (typeof v !== "string" || v === "") continue;
    inPlayValues.add(v);
    out.add(v);
    for (const f of encodedForms(v)) if (f !== v) out.add(f);
  }
  // longest first, so that a secret containing another is replaced whole
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * The forms a value commonly takes on its way out:
 * - URL-encoded, as encodeURIComponent gives it and as RFC 3986 strictly does (`!'()*` encoded too: hcpx's
 *   own query and cookie values, src/runtime/openapi-request.ts);
 * - JSON-escaped;
 * - hex (lower and upper case);
 * - base64 and base64url, padded and not, and, since the value may sit at any byte offset inside what is
 *   encoded (a Basic header's `user:pass`, a token after a prefix), the characters that encode its bytes alone
 *   at each of the three offsets (OFFSET_MIN of them at least, so that a short one does not hide other text):
 *   a character or two at either end, which also encode the bytes next to it, stay.
 */
function encodedForms(v: string): string[] {
  const out = [encodeURIComponent(v), JSON.stringify(v).slice(1, -1)];
  out.push(strictPercent(v));
  const bytes = Buffer.from(v, "utf8");
  if (bytes.length < 4) return out;
  out.push(bytes.toString("hex"), bytes.toString("hex").toUpperCase());
  const b64 = bytes.toString("base64");
  out.push(b64, b64.replace(/=+$/, ""), bytes.toString("base64url"));
  for (let k = 0; k < 3; k++) {
    const n = k + bytes.length;
    const end = Math.floor(n / 3) * 4 + (n % 3); // past it, a character also encodes the byte after the value
    const start = k === 0 ? 0 : k + 1; // before it, a character also encodes the byte before the value
    const core = Buffer.concat([Buffer.alloc(k), bytes])
      .toString("base64")
      .slice(start, end);
    if (core.length >= OFFSET_MIN) out.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return out;
}

/** The fewest characters of an offset base64 form that are hidden (encodedForms). */
const OFFSET_MIN = 6;

/** Marks where the runtime cut a text (a stderr tail, an excerpt): a value may be split there. */
export const CUT = "…";
/** The shortest piece of a split value that is still hidden: any piece, one character too. */
const MIN_PIECE = 1;

/**
 * A value (or a form of one) shorter than this is hidden as a whole word only: not next to a letter or digit.
 * By substring, a value "a" would hide that letter in every word shown. Such a value is never handed to a
 * pack (src/runtime/binding-gate.ts refuses the call), so it cannot come back glued inside a program's text.
 */
export const SHORT_SECRET = 4;

function wordOf(v: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\p{L}\\p{N}])`, "gu");
}

export function redactString(s: string, secrets: readonly string[]): string {
  let r = s;
  for (const v of secrets) {
    if (!r.includes(v)) continue;
    r = [...v].length < SHORT_SECRET ? r.replace(wordOf(v), REDACTED) : r.split(v).join(REDACTED);
  }
  if (r.includes(CUT)) r = redactCuts(r, secrets);
  return r;
}

/**
 * A value cut in two by a tail ("…" + its end) or an excerpt (its start + "…"): hide the piece next to the mark.
 * The longest piece of any value first: a short end of another value (its last letter, say) replaced first
 * would have put "***" between the mark and the rest of this one, which then matched nothing and showed.
 */
function redactCuts(r: string, secrets: readonly string[]): string {
  const ends: string[] = [];
  const starts: string[] = [];
  for (const v of secrets)
    for (let k = v.length - 1; k >= MIN_PIECE; k--) {
      ends.push(CUT + v.slice(-k));
      starts.push(v.slice(0, k) + CUT);
    }
  const longestFirst = (a: string, b: string) => b.length - a.length;
  for (const end of ends.sort(longestFirst)) if (r.includes(end)) r = r.split(end).join(CUT + REDACTED);
  for (const start of starts.sort(longestFirst)) if (r.includes(start)) r = r.split(start).join(REDACTED + CUT);
  return r;
}

/**
 * Deep copy of a JSON-like value with every string (keys too) redacted. Keys
 * are defined, not assigned: a bin's `__proto__` key stays an ordinary key of
 * the copy (an assignment would set the copy's prototype and drop the key).
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactString(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v))
        Object.defineProperty(o, redactString(k, secrets), {
          value: walk(x),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return o;
    }
    return v;
  };
  return walk(value) as T;
}

// ---- the values in play, for the one exit ----

/**
 * What this process hides at every exit: the values given to secretsFrom, and the Binding names of the packs
 * loaded. Process-wide (a global symbol), not this module's own: each bundle in dist/ has its own copy of this
 * module (a command's, dist/failure.cjs that reports an error reaching the entry, the library's chunks), and
 * one that reports what another ran must hide the values that one was given.
 */
interface InPlay {
  values: Set<string>;
  names: Set<string>;
  /**
   * runtime envs other than process.env whose values of the held names are secrets too (the library's
   * `openProject({ env })`); weakly held: an app that opens a project per request does not keep every env
   * (a value shown once is in `values` for good)
   */
  envs?: Set<WeakRef<NodeJS.ProcessEnv>>;
  cache?: { key: string; secrets: string[] };
}
const IN_PLAY = Symbol.for("hcpx.redact.inPlay");
const inPlay: InPlay = ((globalThis as Record<symbol, InPlay | undefined>)[IN_PLAY] ??= {
  values: new Set(),
  names: new Set(),
});
/** Every secret value this process has been given to hide (by secretsFrom). */
const inPlayValues = inPlay.values;
/** Binding names of the packs loaded in this process: their values in process.env are secrets too. */
const inPlayNames = inPlay.names;

/** Record Binding names (a pack's binding.env, openapi.auth.env): from now on their runtime values are redacted at every exit. */
export function holdSecretNames(names: readonly string[]): void {
  for (const n of names) if (n) inPlayNames.add(n);
}

/**
 * A runtime env other than process.env that Binding values are read from (the library's `openProject({ env })`):
 * from now on its values of the held Binding names are redacted at every exit too, as process.env's are.
 */
export function holdSecretEnv(env: NodeJS.ProcessEnv): void {
  if (env === process.env) return;
  const envs = (inPlay.envs ??= new Set());
  for (const r of envs) if (r.deref() === env) return;
  envs.add(new WeakRef(env));
}

/**
 * Forget every value and name in play, as a new process starts: for the test workers that run
 * file after file in one process (test/support/forget-secrets.ts), so that one file's packs and
 * calls hide nothing in the next file's output.
 */
export function forgetSecretsInPlay(): void {
  inPlayValues.clear();
  inPlayNames.clear();
  inPlay.envs?.clear();
  inPlay.cache = undefined;
}

/** The secrets every exit hides: the values given to secretsFrom, and process.env's (and each held env's) values of the held Binding names. */
export function secretsInPlay(): string[] {
  const envs: NodeJS.ProcessEnv[] = [process.env];
  for (const r of inPlay.envs ?? []) {
    const e = r.deref();
    if (e) envs.push(e);
    else inPlay.envs!.delete(r);
  }
  const names = [...inPlayNames];
  const key = `${inPlayValues.size}\u0000${envs.map((e) => names.map((n) => `${n}=${e[n] ?? ""}`).join("\u0000")).join("\u0001")}`;
  if (inPlay.cache?.key !== key) {
    const values = [...inPlayValues, ...envs.slice(1).flatMap((e) => names.map((n) => e[n] ?? ""))];
    inPlay.cache = { key, secrets: secretsFrom(process.env, names, values) };
  }
  return inPlay.cache.secrets;
}

/**
 * The one redaction at the exit: a copy of `value` (a string, an envelope,
 * a question) with every secret in play hidden, whole, encoded or cut (a "…"
 * mark next to a piece of it). Every path that shows text to a person or a
 * program ends here.
 */
export function redactOut<T>(value: T): T {
  const secrets = secretsInPlay();
  if (secrets.length === 0) return value;
  return typeof value === "string" ? (redactString(value, secrets) as T) : redactDeep(value, secrets);
}
