// Pins of a wrapped MCP server's tools: what the person reviewed when
// `hcpx pack from-mcp` wrote the pack (each tool's title, description, input
// schema and annotations, hashed) is recorded in surface.json (`mcp.pins`).
// At run time the server's tool list is compared with the pins before a tool
// is called: a tool that no longer matches is refused (`tool_changed`, naming
// what changed) until the person reviews it again (`hcpx pack from-mcp
// --update <pack-dir>`). Pure functions over the listed tools: the SDK client
// stays in mcp-adapter.ts / mcp-client.ts.
import { createHash } from "node:crypto";

/** The fields a pin covers: its name in surface.json → the tool's field in tools/list. */
export const PIN_FIELDS = [
  ["title", "title"],
  ["description", "description"],
  ["input_schema", "inputSchema"],
  ["annotations", "annotations"],
] as const;

export type PinField = (typeof PIN_FIELDS)[number][0];
export type ToolPin = Record<PinField, string>;

/** Tools read from one server at most (pages included); a longer list is refused, not truncated silently. */
export const MAX_LISTED_TOOLS = 5000;
/** Pages of tools/list followed at most. */
export const MAX_PAGES = 100;
/** Nesting of a tool's schema or annotations hashed at most (deeper is refused, never a stack overflow). */
const MAX_DEPTH = 64;

export class PinError extends Error {
  constructor(
    readonly code: "too_many_tools" | "tool_changed",
    message: string,
  ) {
    super(message);
  }
}

/** JSON with object keys sorted (one text per value, whatever order the server wrote it in). */
function canonical(v: unknown, depth = 0): string {
  if (depth > MAX_DEPTH)
    throw new PinError("tool_changed", `a tool's schema or annotations nest deeper than ${MAX_DEPTH} levels`);
  if (v === undefined) return "null";
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k], depth + 1)}`)
    .join(",")}}`;
}

const hash = (v: unknown) => "sha256:" + createHash("sha256").update(canonical(v)).digest("hex");

/** The pin of one listed tool (its name is the key it is recorded under). */
export function pinOf(tool: Record<string, unknown>): ToolPin {
  const pin = {} as ToolPin;
  for (const [field, from] of PIN_FIELDS) pin[field] = hash(tool[from]);
  return pin;
}

/** What differs between a pin and a listed tool: the changed fields' names (empty: it matches). */
export function pinDiff(pin: ToolPin, tool: Record<string, unknown>): PinField[] {
  const now = pinOf(tool);
  return PIN_FIELDS.map(([f]) => f).filter((f) => pin[f] !== now[f]);
}

/** The tools of a listing by name (a name listed twice is refused: which one would run is ambiguous). */
export function toolsByName(tools: readonly unknown[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const t of tools) {
    if (t === null || typeof t !== "object" || typeof (t as { name?: unknown }).name !== "string") continue;
    const name = (t as { name: string }).name;
    if (out.has(name))
      throw new PinError(
        "tool_changed",
        `the server lists the tool '${name}' twice; which one it would run is ambiguous`,
      );
    out.set(name, t as Record<string, unknown>);
  }
  return out;
}

/**
 * Every tool of the server, page after page (at most MAX_PAGES), without
 * spreading a page into arguments (a page of 200,000 tools overflows the
 * stack that way): a list longer than `cap` is refused with too_many_tools.
 */
export async function listAllTools(
  list: (cursor?: string) => Promise<{ tools?: unknown; nextCursor?: unknown }>,
  cap: number = MAX_LISTED_TOOLS,
): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await list(cursor);
    const tools = Array.isArray(r.tools) ? (r.tools as unknown[]) : [];
    if (out.length + tools.length > cap)
      throw new PinError(
        "too_many_tools",
        `the server lists more than ${cap} tools (${out.length + tools.length} so far); hcpx reads at most ${cap}`,
      );
    for (const t of tools) out.push(t);
    cursor = typeof r.nextCursor === "string" && r.nextCursor !== "" ? r.nextCursor : undefined;
    if (!cursor) break;
  }
  return out;
}

/**
 * Check the tool `name` of a listing against its pin. Undefined when it
 * matches; else what to say (a tool_changed message naming what changed).
 */
export function checkPin(
  pins: Readonly<Record<string, ToolPin>>,
  listed: ReadonlyMap<string, Record<string, unknown>>,
  name: string,
): string | undefined {
  const pin = Object.hasOwn(pins, name) ? pins[name] : undefined;
  if (!pin) return `the tool '${name}' has no pin in mcp.pins: it was not reviewed`;
  const tool = listed.get(name);
  if (!tool) return `the server no longer lists the tool '${name}'`;
  const changed = pinDiff(pin, tool);
  return changed.length
    ? `the server's tool '${name}' changed since it was reviewed: ${changed.join(", ")}`
    : undefined;
}
