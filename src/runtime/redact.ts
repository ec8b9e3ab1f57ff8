// Binding values never appear in an envelope, a message or a log (DESIGN.md):
// every string of an envelope passes through here before it leaves the runtime.

export const REDACTED = "***";

/** The secret values to hide: the runtime env's values of the given names, and other secret `values` (non-empty), with their encoded forms. */
export function secretsFrom(env: NodeJS.ProcessEnv, names: readonly string[], values: readonly string[] = []): string[] {
  const out = new Set<string>();
  for (const v of [...names.map((n) => env[n]), ...values]) {
    if (typeof v !== "string" || v === "") continue;
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
/** The shortest piece of a split value that is still hidden. */
const MIN_PIECE = 3;

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
      for (const [k, x] of Object.entries(v)) Object.defineProperty(o, redactString(k, secrets), { value: walk(x), enumerable: true, writable: true, configurable: true });
      return o;
    }
    return v;
  };
  return walk(value) as T;
}
