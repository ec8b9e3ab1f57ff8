// An openapi command's answer as an envelope (./openapi.ts is the adapter):
// JSON as its value, other text as { text }, a binary body as its size and
// type; an error status is `http_error` with the status, the start of the body
// and, for 401/403, the Binding env names to set.
import { failure, type Envelope } from "./envelope";
import { MAX_OUTPUT_NESTING, parseOutput } from "./wrap";

const TEXTUAL =
  /^(text\/|application\/(.+\+)?(json|xml|yaml|x-yaml|javascript|x-www-form-urlencoded|graphql|problem\+json|csv|x-ndjson|ld\+json)\b)/i;

/**
 * The envelope of `res`, whose body is `bytes`; `need` names the Binding env
 * names still unset (asked on a 401 or 403 only).
 */
export function answer(res: Response, bytes: Buffer, label: string, need: () => string[]): Envelope {
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const textual = !type || TEXTUAL.test(type) || /charset=/i.test(res.headers.get("content-type") ?? "");
  const text = textual ? bytes.toString("utf8") : "";
  let parsed: unknown;
  let isJson = false;
  if (textual && text.trim() && (!type || /json/.test(type))) {
    const r = parseOutput(text);
    if (r.ok) {
      parsed = r.value;
      isJson = true;
    } else if (r.deep)
      return failure("bad_output", `${label}: the answer is JSON ${r.why}, more than hcpx passes on`, {
        limit_depth: MAX_OUTPUT_NESTING,
        status: res.status,
      });
  }
  if (!res.ok) {
    const shown = textual ? text : `(${bytes.length} bytes of ${type})`;
    return httpError(res, label, shown, isJson ? innerMessage(parsed) : undefined, need);
  }
  if (!textual) return { ok: true, data: { binary: { bytes: bytes.length, content_type: type } } };
  if (!text.trim()) return { ok: true, data: null };
  return { ok: true, data: isJson ? parsed : { text } };
}

/** The message of a JSON error body: `message`, `error`, or `error.message`. */
function innerMessage(parsed: unknown): string | undefined {
  const p = parsed as { message?: unknown; error?: unknown } | undefined;
  return p && typeof p === "object"
    ? typeof p.message === "string"
      ? p.message
      : typeof p.error === "string"
        ? p.error
        : typeof (p.error as { message?: unknown })?.message === "string"
          ? (p.error as { message: string }).message
          : undefined
    : undefined;
}

function httpError(
  res: Response,
  label: string,
  shown: string,
  inner: string | undefined,
  need: () => string[],
): Envelope {
  const extra: Record<string, unknown> = {
    status: res.status,
    body: shown.length > 500 ? shown.slice(0, 500) + "…" : shown,
  };
  const names = res.status === 401 || res.status === 403 ? need() : [];
  if (names.length) extra.hint = `set ${names.join(" and ")} in the environment (the pack's Binding)`;
  return failure(
    "http_error",
    `${label} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${inner ? `: ${inner}` : ""}`,
    extra,
  );
}
