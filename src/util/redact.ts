// Binding values never appear in an envelope, a message or a log (DESIGN.md):
// every string of an envelope passes through here before it leaves the runtime,
// and every exit to a person or a program — the CLI's output module (src/cli/
// output.ts), `hcpx mcp`'s answers, questions and log (src/mcp/server.ts), the
// library's envelopes and confirm requests (src/lib/index.ts) — passes through
// redactOut(), which knows every value in play in this process: the values
// secretsFrom() was given, and the runtime env's values of the Binding names
// of every pack loaded (holdSecretNames, from src/pack/load.ts).

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
    // the forms a value commonly takes on its way out: URL-encoded, JSON-escaped
    const enc = encodeURIComponent(v);
    if (enc !== v) out.add(enc);
    const js = JSON.stringify(v).slice(1, -1);
    if (js !== v) out.add(js);
    // base64 / base64url of the value (a bin or a service that echoes an encoded credential);
    // without the padding too, so a value followed by more encoded bytes is still caught
    if (v.length >= 4) {
      const b64 = Buffer.from(v, "utf8").toString("base64");
      out.add(b64);
      out.add(b64.replace(/=+$/, ""));
      out.add(Buffer.from(v, "utf8").toString("base64url"));
    }
  }
  // longest first, so that a secret containing another is replaced whole
  return [...out].sort((a, b) => b.length - a.length);
}

/** Marks where the runtime cut a text (a stderr tail, an excerpt): a value may be split there. */
export const CUT = "…";
/** The shortest piece of a split value that is still hidden: any piece, one character too. */
const MIN_PIECE = 1;

export function redactString(s: string, secrets: readonly string[]): string {
  let r = s;
  for (const v of secrets) if (r.includes(v)) r = r.split(v).join(REDACTED);
  if (r.includes(CUT)) r = redactCuts(r, secrets);
  return r;
}

/** A value cut in two by a tail ("…" + its end) or an excerpt (its start + "…"): hide the piece next to the mark. */
function redactCuts(r: string, secrets: readonly string[]): string {
  for (const v of secrets) {
    for (let k = v.length - 1; k >= MIN_PIECE; k--) {
      const end = CUT + v.slice(-k);
      if (r.includes(end)) r = r.split(end).join(CUT + REDACTED);
      const start = v.slice(0, k) + CUT;
      if (r.includes(start)) r = r.split(start).join(REDACTED + CUT);
    }
  }
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

/** Every secret value this process has been given to hide (by secretsFrom). */
const inPlayValues = new Set<string>();
/** Binding names of the packs loaded in this process: their values in process.env are secrets too. */
const inPlayNames = new Set<string>();
let cache: { key: string; secrets: string[] } | undefined;

/** Record Binding names (a pack's binding.env, openapi.auth.env): from now on their runtime values are redacted at every exit. */
export function holdSecretNames(names: readonly string[]): void {
  for (const n of names) if (n) inPlayNames.add(n);
}

/**
 * Forget every value and name in play, as a new process starts: for the test workers that run
 * file after file in one process (test/support/forget-secrets.ts), so that one file's packs and
 * calls hide nothing in the next file's output.
 */
export function forgetSecretsInPlay(): void {
  inPlayValues.clear();
  inPlayNames.clear();
  cache = undefined;
}

/** The secrets every exit hides: the values given to secretsFrom, and process.env's values of the held Binding names. */
export function secretsInPlay(): string[] {
  const key = `${inPlayValues.size}\u0000${[...inPlayNames].map((n) => `${n}=${process.env[n] ?? ""}`).join("\u0000")}`;
  if (cache?.key !== key) {
    const values = [...inPlayValues];
    cache = { key, secrets: secretsFrom(process.env, [...inPlayNames], values) };
  }
  return cache.secrets;
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
