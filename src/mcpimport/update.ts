// `hcpx pack from-mcp --update <pack-dir> [--yes]`: review a wrapped MCP
// server's tools again. The server is started as the runtime starts it (mcp.bin
// through sandbox.bins or sandbox.roots, the minimal env), its tools listed and
// compared with the pins in surface.json (`mcp.pins`, src/runtime/mcp-pins.ts):
// per command, which of title, description, input schema and annotations
// changed, the tool's text as it is now, and the Policy row its annotations
// would draft next to the row policy.json has. Nothing changes without --yes;
// with it, only the pins are rewritten (the person's verbs, args and Policy
// stay theirs: a row to change is named, never changed here).
import { adapterOf } from "../pack/adapters/index";
import { HcpxError, type ErrorCode, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { atomicWrite } from "../util/atomic";
import { CAPS, readTextFile } from "../util/readfile";
import { loadPack, loadProject } from "../pack/load";
import type { Pack, Project } from "../pack/model";
import { objectSet } from "../config/edit";
import { DEFAULT_TIMEOUT_MS } from "../runtime/wrap";
import { packBins } from "../runtime/pack-bins";
import { listAllTools, pinDiff, pinOf, PinError, toolsByName, type PinField, type ToolPin } from "../runtime/mcp-pins";
import type { Envelope } from "../runtime/envelope";
import { policyFrom, type McpToolInfo } from "./import";

export interface McpToolChange {
  verb: string;
  tool: string;
  status: "unchanged" | "changed" | "gone" | "unpinned";
  changed?: PinField[];
  /** the tool as the server lists it now (for the person to read) */
  now?: { title?: string; description?: string; inputSchema?: unknown; annotations?: unknown };
  /** the Policy row the tool's annotations draft now, and the row policy.json has */
  draft?: string;
  policy?: string;
}

export interface McpUpdateResult {
  dir: string;
  id: string;
  changes: McpToolChange[];
  /** tools the server lists that no command calls */
  unwrapped: string[];
  written: boolean;
}

const rowText = (r: { operation: string; land?: string; confirm?: boolean }) =>
  r.operation === "read" ? "read" : `write (${r.land ?? "land not declared"}${r.confirm ? ", confirm" : ""})`;

/** A failure envelope as the error the command answers with. */
function errorOf(e: Envelope): HcpxError {
  const err = e.ok ? undefined : e.error;
  return new HcpxError({
    code: (err?.code ?? "internal") as ErrorCode,
    message: err?.message ?? "the server cannot be reached",
    hint: typeof err?.hint === "string" ? err.hint : undefined,
  });
}

/** The server's tools by name, reached as the runtime reaches it. */
async function listServerTools(
  pack: Pack,
  project: Project,
  timeoutMs: number,
): Promise<Map<string, Record<string, unknown>>> {
  // the server as the runtime reaches it: a stdio program resolved and confined as at run time, or the URL with the Binding's headers
  const { serverRef, connectTo, connectFailure } = await import("../runtime/mcp-adapter");
  const { listToolsPage } = await import("../runtime/mcp-client");
  const ref = serverRef({ pack, project, env: process.env, packBins: () => packBins(project) }, pack.id);
  if ("ok" in ref) throw errorOf(ref);
  let conn;
  try {
    conn = await connectTo(ref, timeoutMs, new AbortController().signal);
  } catch (e) {
    // a stdio server's failed start as a run tells it: the sandbox's word first (bubblewrap could not set it up:
    // sandbox_unavailable, from its own report, sandbox/status.ts), else the start's own failure below
    const told = "stdio" in ref ? ref.after(connectFailure(e, false, pack.id, pack)) : undefined;
    if (told && !told.ok && told.error.code !== "spawn_failed") throw errorOf(told);
    throw new HcpxError({
      code: "mcp_connect_failed",
      message: `could not ${"http" in ref ? "connect to" : "start and initialize"} the server of ${pack.id}: ${(e as Error)?.message ?? String(e)}`,
      hint:
        "http" in ref
          ? "check mcp.url, that the server is up, and the Binding its headers read"
          : "run its command by hand; it must speak MCP on stdio",
    });
  }
  let tools: Map<string, Record<string, unknown>> | undefined;
  let failed: unknown;
  try {
    tools = toolsByName(await listAllTools((cursor) => listToolsPage(conn.client, cursor, timeoutMs)));
  } catch (e) {
    failed = e;
  }
  // stopped and waited for, then told as a call is: a file the confined server made that it must not have is
  // removed and the review is sandbox_denied (sandbox/planted.ts), whatever the listing said
  await conn.transport.terminate().then(() => conn.close());
  const told = "stdio" in ref ? ref.after({ ok: true, data: null }) : undefined;
  if (told && !told.ok) throw errorOf(told);
  if (tools) return tools;
  if (failed instanceof PinError)
    throw new HcpxError({
      code: failed.code,
      message: `${pack.id}: ${failed.message}; nothing was changed`,
      hint: failed.code === "too_many_tools" ? "wrap a server with fewer tools" : "a server must list each tool once",
    });
  throw new HcpxError({
    code: "mcp_list_failed",
    message: `the server of ${pack.id} did not list its tools: ${(failed as Error)?.message ?? String(failed)}`,
    hint: "does the server offer tools (capability `tools`)?",
  });
}

/** Per command, its tool as listed now against its pin; `next` is the pins as they would be rewritten. */
function compareWithPins(
  pack: Pack,
  pins: Record<string, ToolPin>,
  listed: Map<string, Record<string, unknown>>,
): { changes: McpToolChange[]; next: Record<string, ToolPin> } {
  const changes: McpToolChange[] = [];
  const next: Record<string, ToolPin> = {};
  for (const cmd of pack.commands) {
    const tool = cmd.tool;
    if (!tool) continue;
    const t = listed.get(tool);
    const pin = Object.hasOwn(pins, tool) ? pins[tool] : undefined;
    if (!t) {
      changes.push({ verb: cmd.verb_key, tool, status: "gone" });
      if (pin) next[tool] = pin;
      continue;
    }
    next[tool] = pinOf(t);
    const changed = pin ? pinDiff(pin, t) : undefined;
    if (changed && changed.length === 0) {
      changes.push({ verb: cmd.verb_key, tool, status: "unchanged" });
      continue;
    }
    const info = t as unknown as McpToolInfo;
    changes.push({
      verb: cmd.verb_key,
      tool,
      status: pin ? "changed" : "unpinned",
      ...(changed ? { changed } : {}),
      now: {
        title: info.title,
        description: info.description,
        inputSchema: info.inputSchema,
        annotations: info.annotations,
      },
      draft: rowText(policyFrom(info)),
      policy: rowText(cmd.policy),
    });
  }
  return { changes, next };
}

export async function updateMcpPack(
  dirArg: string,
  opts: { yes?: boolean; timeoutMs?: number; config?: string },
): Promise<McpUpdateResult> {
  const pack = loadPack(dirArg);
  const spec = pack.surface.mcp;
  if (!adapterOf(pack.surface.kind)?.capabilities.serverTools || !spec)
    throw new HcpxError({
      code: "usage",
      message: `${display(pack.dir)} is a ${pack.surface.kind} pack, not an mcp pack`,
      hint: "--update reviews a pack written by `hcpx pack from-mcp`",
    });
  const project = loadProject({ config: opts.config });
  const timeoutMs = opts.timeoutMs ?? spec.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const listed = await listServerTools(pack, project, timeoutMs);
  let compared: ReturnType<typeof compareWithPins>;
  try {
    compared = compareWithPins(pack, { ...(spec.pins ?? {}) }, listed);
  } catch (e) {
    // a tool that cannot be pinned (its schema nests past the pins' cap): refused, as at run time
    if (!(e instanceof PinError)) throw e;
    throw new HcpxError({
      code: e.code,
      message: `${pack.id}: ${e.message}; nothing was changed`,
      hint: "the server's tool cannot be reviewed as it is listed now: its calls are refused (tool_changed)",
    });
  }
  const { changes, next } = compared;
  const wrapped = new Set(pack.commands.map((c) => c.tool));
  const unwrapped = [...listed.keys()].filter((n) => !wrapped.has(n));
  const pending = changes.some((c) => c.status !== "unchanged");
  let written = false;
  if (pending && opts.yes) {
    const text = readTextFile(pack.surfaceFile, display(pack.surfaceFile), CAPS.pack);
    atomicWrite(pack.surfaceFile, objectSet(text, ["mcp"], "pins", next));
    loadPack(pack.dir); // what we wrote must load
    written = true;
  }
  return { dir: pack.dir, id: pack.id, changes, unwrapped, written };
}

/** The review lines (outside text in them is the caller's to neutralise). */
export function updateLines(r: McpUpdateResult): string[] {
  const lines: string[] = [];
  const clip = (s: string, n = 400) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
  for (const c of r.changes) {
    if (c.status === "unchanged") continue;
    if (c.status === "gone") {
      lines.push(
        `  - ${c.verb}: the server no longer lists the tool '${c.tool}' (its calls are refused; remove the command from surface.json)`,
      );
      continue;
    }
    lines.push(
      `  ~ ${c.verb} (tool '${c.tool}'): ${c.status === "unpinned" ? "not reviewed before (no pin)" : `${c.changed!.join(", ")} changed`}`,
    );
    const show =
      c.status === "unpinned" ? (["title", "description", "input_schema", "annotations"] as PinField[]) : c.changed!;
    for (const f of show) {
      const v =
        f === "input_schema"
          ? c.now?.inputSchema
          : f === "title"
            ? c.now?.title
            : f === "description"
              ? c.now?.description
              : c.now?.annotations;
      lines.push(`      ${f} now: ${v === undefined ? "(none)" : clip(typeof v === "string" ? v : JSON.stringify(v))}`);
    }
    if (c.draft !== c.policy)
      lines.push(`      its annotations now draft: ${c.draft}; policy.json says: ${c.policy} — review that row`);
  }
  return lines;
}

export function reviewProblems(r: McpUpdateResult, lines: string[], json: boolean): Problem[] {
  return [
    {
      code: "review_required",
      message: `${r.changes.filter((c) => c.status !== "unchanged").length} tool(s) of ${r.id} differ from what was reviewed; nothing was changed`,
      hint: `read what changed, then run \`hcpx pack from-mcp --update ${display(r.dir)} --yes\` to pin the tools as they are now`,
    },
    ...(json ? lines.map((l) => ({ code: "review" as const, message: l.trim(), severity: "warning" as const })) : []),
  ];
}
