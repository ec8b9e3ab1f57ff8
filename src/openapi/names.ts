// Names an import gives: verbs from operation ids or paths (fitted to the hosts'
// tool-name limit), arg names, env prefixes, and the words that make a write external.
import { createHash } from "node:crypto";
import { ARG_NAME_RE, VERB_KEY_RE } from "../pack/schema";
import { MAX_SERVER_TOOL, SERVER_NAME } from "./types";

/**
 * Words by which a document says that a write's effect is seen by others (DESIGN
 * `land: external`: send, publish, pay): such a write is drafted external + confirm.
 */
const EXTERNAL_RE =
  /\b(publish(?:es|ed|ing)?|send(?:s|ing)?|e-?mails?|notif(?:y|ies|ied|ication|ications)|invit(?:e|es|ation|ations)|broadcasts?|messages?|comments?|tweets?|pay(?:s|ment|ments)?|charges?|refunds?|transfers?|deploy(?:s|ment|ments)?|merges?|releases?|visible to (?:others|everyone|the public|all)|publicly|subscribers?)\b/gi;

/** What in an operation's own words says others see its effect (at most 4 words), or undefined. */
export function externalWords(op: {
  operationId?: string;
  summary?: unknown;
  description?: unknown;
}): string[] | undefined {
  const id = idWords(op.operationId);
  const text = [
    id,
    typeof op.summary === "string" ? op.summary : "",
    typeof op.description === "string" ? op.description.slice(0, 4000) : "",
  ].join("\n");
  const found = [...new Set([...text.matchAll(EXTERNAL_RE)].map((m) => m[1]!.toLowerCase()))];
  return found.length ? found.slice(0, 4) : undefined;
}

/** An operationId as words: `adminWipe` → `admin Wipe`, `_./-` → spaces. */
function idWords(operationId: string | undefined): string {
  return (operationId ?? "").replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_./-]+/g, " ");
}

/** camelCase / snake / kebab / spaces → lower_snake words; dots and slashes become separators. */
export function verbFromOperationId(opId: string): string | undefined {
  const parts = opId
    .split(/[./:]+/)
    .map((seg) =>
      seg
        .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
        .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "_")
        .replace(/^_+|_+$/g, ""),
    )
    .filter(Boolean)
    .map((seg) => (/^[a-z]/.test(seg) ? seg : `op_${seg}`));
  const v = parts.join(".");
  return v && VERB_KEY_RE.test(v) ? v : undefined;
}

/** A readable verb_key from method + path: GET /todos → todos.list, GET /todos/{id} → todos.get. */
export function verbFromPath(method: string, path: string): string {
  const segs = path.split("/").filter(Boolean);
  const words = segs
    .filter((s) => !/^\{.*\}$/.test(s))
    .map((s) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "_")
        .replace(/^_+|_+$/g, ""),
    )
    .filter(Boolean)
    .map((s) => (/^[a-z]/.test(s) ? s : `n${s}`));
  const item = segs.length > 0 && /^\{.*\}$/.test(segs[segs.length - 1]!);
  const m = method.toLowerCase();
  const action =
    m === "get"
      ? item
        ? "get"
        : "list"
      : m === "post"
        ? "create"
        : m === "put"
          ? "replace"
          : m === "patch"
            ? "update"
            : m === "delete"
              ? "delete"
              : m;
  return [...words, action].join(".");
}

export const shortHash = (s: string, n = 4) => createHash("sha256").update(s).digest("hex").slice(0, n);

/**
 * Fit a verb_key so that `<server>` + `<pack>__<verb with dots as _>` stays within
 * MAX_SERVER_TOOL: whole words are kept from the front and a short hash of the
 * operation names the rest. Deterministic for a given document.
 */
export function fitVerb(verb: string, packId: string, key: string): string {
  const budget = MAX_SERVER_TOOL - SERVER_NAME.length - packId.length - 2;
  if (verb.length <= budget) return verb;
  const h = `_${shortHash(key)}`;
  const room = budget - h.length;
  // every word stays, shortened from the longest down (to 3 letters at least):
  // governance.proposals.parameters.list → govern.propos.parame.list_b4e7
  const segs = verb.split(".").map((seg) => seg.split("_"));
  const len = () =>
    segs.reduce((n, ws) => n + ws.reduce((m, w) => m + w.length, 0) + ws.length - 1, 0) + segs.length - 1;
  while (len() > room) {
    let best: [number, number] | undefined;
    let bestLen = 3;
    segs.forEach((ws, i) =>
      ws.forEach((w, j) => {
        if (w.length > bestLen) {
          bestLen = w.length;
          best = [i, j];
        }
      }),
    );
    if (!best) break;
    const [i, j] = best;
    segs[i]![j] = segs[i]![j]!.slice(0, -1);
  }
  let out = segs.map((ws) => ws.join("_")).join(".");
  // still too long (very many words): cut at a separator
  if (out.length > room) out = out.slice(0, room).replace(/[._][^._]*$/, "") || out.slice(0, room);
  return out.replace(/[._]+$/, "") + h;
}

/**
 * Names an arg may not have: JavaScript's own, and `confirm`, the tool call's flag of a gated write (a tool
 * whose arg is named so is refused where tools are made, src/projection/tools.ts reserved_arg).
 */
const TAKEN = new Set(["__proto__", "constructor", "prototype", "confirm"]);

/** A usable arg name for a parameter / property name (the original stays in `name`). */
export function argName(raw: string): string {
  if (ARG_NAME_RE.test(raw) && !TAKEN.has(raw)) return raw;
  let s = raw.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "");
  if (!s || !/^[A-Za-z_]/.test(s)) s = `p_${s}`;
  if (TAKEN.has(s)) s = `p_${s}`;
  return s;
}

export function envPrefix(id: string): string {
  return id.toUpperCase().replace(/-/g, "_");
}
