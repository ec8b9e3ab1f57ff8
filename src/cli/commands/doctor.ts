// hcpx doctor (§12.1.3, §12.1.7): is this project healthy? The checks are the
// doctor use case's (src/app/doctor.ts); this module renders them and owns the
// check that starts `hcpx mcp` as an MCP host would, in both MCP eras
// (server/discover at 2026-07-28, initialize for legacy clients).
// Exit 0 healthy, 2 warnings, 1 failure.
import type { Project } from "../../pack/model";
import { usage } from "../../util/errors";
import { doctor, type Check, type CheckStatus } from "../../app/doctor";
import { c, finish, makeOut, sayRaw } from "../output";
import { msOption } from "../options";
import { BROKEN_HEADER } from "../../mcp/view";
import { loadMcpAdapter } from "../../runtime/mcp-load";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

export { MIN_NODE, type Check, type CheckStatus } from "../../app/doctor";

export async function run(opts: OptionsOf<"doctor"> & GlobalOpts): Promise<number> {
  const out = makeOut(opts);
  const mcpTimeout = msOption("--mcp-timeout", opts.mcpTimeout, 15000);
  if (opts.tokenEnv !== undefined && opts.url === undefined)
    usage("--token-env goes with --url", "hcpx doctor --url <url> --token-env NAME");
  // the person's word: the one URL doctor reaches, with the one variable it sends (never a URL read from a file)
  const url =
    opts.url !== undefined
      ? (await import("../../host/remote")).checkRemoteOptions(opts.url, opts.tokenEnv)
      : undefined;
  const checks = await doctor({ config: opts.config, url, mcpCheck: (project) => mcpCheck(project, mcpTimeout) });

  const fails = checks.filter((x) => x.status === "fail").length;
  const warns = checks.filter((x) => x.status === "warn").length;
  const code = fails ? 1 : warns ? 2 : 0;
  const summary = fails
    ? `${fails} check(s) failed${warns ? `, ${warns} warning(s)` : ""}`
    : warns
      ? `healthy, with ${warns} warning(s)`
      : "healthy";
  if (out.json) {
    finish(
      out,
      code,
      { status: fails ? "unhealthy" : warns ? "warnings" : "healthy", checks },
      {
        code: fails ? "unhealthy" : "warnings",
        message: summary,
        hint: checks.find((x) => x.status === (fails ? "fail" : "warn"))?.hint,
      },
    );
  } else {
    const col = out.color;
    const mark = (s: CheckStatus) =>
      s === "ok" ? c.green(col, "✓") : s === "warn" ? c.yellow(col, "!") : c.red(col, "✗");
    const lines = checks.map(
      (x) => `${mark(x.status)} ${x.message}${x.status !== "ok" && x.hint ? `\n    ${c.dim(col, `→ ${x.hint}`)}` : ""}`,
    );
    lines.push("", fails ? c.red(col, summary) : warns ? c.yellow(col, summary) : c.green(col, summary));
    sayRaw(lines.join("\n") + "\n");
  }
  return code;
}

/**
 * Start `hcpx mcp` as an MCP host would and ask for its tools over stdio with
 * the MCP SDK v2 client, once per era, both at once: 2026-07-28 (the client
 * pins it: `server/discover` must offer it) and legacy (`initialize`). Each
 * server process is our own (runtime/mcp-stdio.ts ProcessTransport, loaded
 * only here). The whole check is bounded by `timeoutMs`: a server that does
 * not answer is killed, not waited for.
 */
async function mcpCheck(project: Project, timeoutMs: number): Promise<Check> {
  const entry = process.argv[1];
  if (!entry) return { id: "mcp", status: "warn", message: "cannot tell how hcpx was started; skipped the MCP check" };
  const spec = {
    command: process.execPath,
    argv: [entry, "mcp", ...(project.configFile ? ["--config", project.configFile] : [])],
    cwd: project.root,
    env: process.env,
  };
  // dist/lib/mcp-adapter.mjs at run time (scripts/build.mjs): the SDK client bundled once
  const { connectEra } = await loadMcpAdapter();
  const run: EraRun = { connectEra, spec, timeoutMs, stop: new AbortController(), closers: [], garbage: false };
  const settled: Partial<Record<Era, Outcome>> = {};
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
  const both = Promise.all((Object.keys(ERAS) as Era[]).map(async (era) => (settled[era] = await listEra(run, era))));
  const raced = await Promise.race([both, silent]);
  clearTimeout(timer);
  // no grace period for a server: stop both now (a close() that waited would cost seconds)
  run.stop.abort();
  void Promise.all(run.closers.map((c) => c().catch(() => undefined)));
  if (run.garbage)
    return {
      id: "mcp",
      status: "fail",
      message: "hcpx mcp wrote something that is not JSON-RPC on stdout",
      hint: "a pack or hook may be printing to stdout",
    };
  if (raced === "timeout") return timeoutCheck(settled, timeoutMs);
  return compareEras(settled.modern!, settled.legacy!);
}

const ERAS = { modern: "MCP 2026-07-28 (server/discover)", legacy: "legacy MCP (initialize)" } as const;
type Era = keyof typeof ERAS;
type Outcome =
  { ok: true; version: string; tools: { name: string; description?: string }[] } | { ok: false; check: Check };

/** One `mcpCheck` run: how to start the server, and what both eras share (the stop, the closers, the garbage flag). */
interface EraRun {
  connectEra: Awaited<typeof import("../../runtime/mcp-adapter")>["connectEra"];
  spec: { command: string; argv: string[]; cwd: string; env: NodeJS.ProcessEnv };
  timeoutMs: number;
  stop: AbortController;
  closers: (() => Promise<void>)[];
  garbage: boolean;
}

const failCheck = (message: string, hint?: string): Check => ({
  id: "mcp",
  status: "fail",
  message,
  ...(hint ? { hint } : {}),
});
const fail = (message: string, hint?: string): Outcome => ({ ok: false, check: failCheck(message, hint) });

/** Start one server, connect in `era` and list its tools. */
async function listEra(run: EraRun, era: Era): Promise<Outcome> {
  let conn;
  try {
    conn = await run.connectEra(
      run.spec,
      run.timeoutMs,
      era,
      (e: Error) => {
        // the transport reports a line it cannot read as JSON-RPC (JSON.parse, or the message schema)
        if (e instanceof SyntaxError || e.name === "ZodError" || /JSON|Unexpected token/i.test(e.message))
          run.garbage = true;
      },
      run.stop.signal,
    );
  } catch (e) {
    const t = (e as { transport?: { failure?: { code: string }; stderrTail(): string } }).transport;
    if (t?.failure?.code === "exit") {
      const line = t.stderrTail().trim().split("\n")[0];
      return fail(
        `hcpx mcp exited before listing its tools${line ? `: ${line}` : ""}`,
        "run `hcpx mcp` by hand to see why",
      );
    }
    return fail(
      `hcpx mcp does not speak ${ERAS[era]}: ${(e as Error).message}`,
      "run `hcpx mcp` by hand and look at its stderr",
    );
  }
  run.closers.push(() => conn.close());
  if (run.stop.signal.aborted) return fail("stopped");
  try {
    const { tools } = (await conn.client.listTools(undefined, { timeout: run.timeoutMs })) as {
      tools: { name: string; description?: string }[];
    };
    return { ok: true, version: conn.client.getNegotiatedProtocolVersion() ?? "?", tools };
  } catch (e) {
    if (conn.transport.failure?.code === "exit")
      return fail("hcpx mcp exited before listing its tools", "run `hcpx mcp` by hand to see why");
    return fail(`hcpx mcp does not speak ${ERAS[era]}: tools/list: ${(e as Error).message}`);
  }
}

/** The whole check ran out of time: the first era that failed, else which era did not answer. */
function timeoutCheck(settled: Partial<Record<Era, Outcome>>, timeoutMs: number): Check {
  const left = (Object.keys(ERAS) as Era[]).filter((era) => !settled[era]);
  const failed = (Object.values(settled) as Outcome[]).find((o) => !o.ok);
  if (failed && !failed.ok) return failed.check;
  if (left.length === 2)
    return {
      id: "mcp",
      status: "fail",
      message: `hcpx mcp did not answer within ${timeoutMs} ms`,
      hint: "run `hcpx mcp` by hand and look at its stderr",
    };
  return failCheck(
    `hcpx mcp does not speak ${ERAS[left[0]!]}: no answer within ${timeoutMs} ms`,
    "run `hcpx mcp` by hand and look at its stderr",
  );
}

/** Both eras answered: they must list the same tools, and no pack may be left unserved. */
function compareEras(modern: Outcome, legacy: Outcome): Check {
  if (!modern.ok) return modern.check;
  if (!legacy.ok) return legacy.check;
  const names = modern.tools.map((t) => t.name);
  const legacyNames = legacy.tools.map((t) => t.name);
  if (names.join("\n") !== legacyNames.join("\n"))
    return {
      id: "mcp",
      status: "fail",
      message: `hcpx mcp lists other tools to a legacy client (${legacyNames.join(", ")}) than to a 2026-07-28 client (${names.join(", ")})`,
    };
  const listed = `hcpx mcp starts and lists ${names.length} tool(s) in both MCP eras (${modern.version} after server/discover, ${legacy.version} after initialize)${names.length ? `: ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", …" : ""}` : ""}`;
  // the server names the packs it does not serve in its tools' descriptions (src/mcp/view.ts)
  const note = modern.tools.map((t) => t.description ?? "").find((d) => d.includes(BROKEN_HEADER));
  const broken = note
    ? note
        .slice(note.indexOf(BROKEN_HEADER))
        .split("\n")
        .filter((l) => l.startsWith("- "))
    : [];
  if (broken.length)
    return {
      id: "mcp",
      status: "fail",
      message: `${listed}; it does not serve ${broken.length} broken pack(s): ${broken.map((l) => l.slice(2)).join("; ")}`,
      hint: "fix the pack (hcpx lint), or deactivate it",
    };
  return { id: "mcp", status: "ok", message: listed };
}
