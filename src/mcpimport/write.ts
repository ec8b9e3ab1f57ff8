// `hcpx pack from-mcp` and `hcpx import <host>`: start a stdio MCP server the
// person named, list its tools with the SDK's Client, and write an `mcp` pack
// (surface.json, draft policy.json, SKILL.md). The command line is the
// person's: a bare program name is looked up on PATH once, here, and its
// absolute path recorded in sandbox.bins (the runtime never looks on PATH).
// The server runs with the same minimal env as at run time, so what it shows
// here is what it shows to the runtime.
import { existsSync, statSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import { HcpxError, type Problem } from "../util/errors";
import { display, isInside, toPosix } from "../util/paths";
import { ENV_NAME_RE, PACK_ID_RE } from "../pack/schema";
import { configPath } from "../config/file";
import { warning } from "../config/common";
import { whichOnPath } from "../util/which";
import { binEnv, DEFAULT_TIMEOUT_MS, isJsFile, launcherPath } from "../runtime/wrap";
import { isForbiddenEnv } from "../pack/envrules";
import type { McpToolInfo } from "./import";
import { writeDraft, type FromMcpOptions, type FromMcpResult, type Listed, type RemoteSource } from "./write-pack";
import { listAllTools, PinError, toolsByName } from "../runtime/mcp-pins";
import type { Connection } from "../runtime/mcp-client";
import { headerEnvNames, headerValues, isCredentialHeader, urlProblem } from "../pack/mcp-remote";

export type { FromMcpOptions, FromMcpResult, RemoteSource };

/** Commands one pack gets from a server at most (a longer list: the first ones, with a note). */
const MAX_COMMANDS = 500;

/** A pack id from a server name: lower-case words joined by '-', at most 32 characters. */
export function idFromName(name: string): string | undefined {
  const id = name
    .toLowerCase()
    .replace(/^@[^/]+\//, "")
    .replace(/(^|[^a-z0-9])(mcp-server|server|mcp)(?=[^a-z0-9]|$)/g, "$1")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^[^a-z]+/, "")
    .slice(0, 32)
    .replace(/-+$/, "");
  return id && PACK_ID_RE.test(id) ? id : undefined;
}

/**
 * `hcpx pack from-mcp --url`: connect to a remote server (Streamable HTTP, the
 * SDK's client, either era), list its tools, write the pack. Refused before
 * anything is sent: a URL that carries a credential, a literal credential
 * header, a Binding variable that is not set.
 */
export async function packFromRemote(src: RemoteSource, opts: FromMcpOptions): Promise<FromMcpResult> {
  const why = urlProblem(src.url);
  if (why)
    throw new HcpxError(
      {
        code: "mcp_url_invalid",
        message: `the URL ${why}; nothing was written`,
        hint: 'give the server\'s http(s) endpoint; a credential goes in a header from the Binding: --header "Authorization=Bearer env:TOKEN"',
      },
      64,
    );
  for (const [name, h] of Object.entries(src.headers)) {
    if (typeof h === "string" && isCredentialHeader(name, h))
      throw new HcpxError(
        {
          code: "header_literal_secret",
          message: `the header ${name} has a literal credential value (not shown): hcpx never writes a secret into a pack; nothing was written`,
          hint: `put the value in an environment variable and pass --header "${name}=Bearer env:NAME"`,
        },
        64,
      );
  }
  const bindingNames = [...new Set([...headerEnvNames(src.headers), ...(opts.env ?? [])])];
  checkEnvNames(bindingNames);
  checkId(opts.id);
  const { headers, missing } = headerValues(src.headers, process.env);
  if (missing.length)
    throw new HcpxError({
      code: "binding_missing",
      message: `${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not set: the server's headers come from the Binding; nothing was sent or written`,
      hint: `set ${missing.join(", ")} in this shell, then run the command again`,
    });
  const { connectHttp } = await import("../runtime/mcp-client");
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const host = new URL(src.url).host;
  let conn;
  try {
    conn = await connectHttp({ url: src.url, headers }, timeoutMs);
  } catch (e) {
    const msg = (e as Error)?.message ?? String(e);
    const refused = /\b40[13]\b|unauthori[sz]ed|forbidden/i.test(msg);
    throw new HcpxError({
      code: "mcp_connect_failed",
      message: `could not connect to the remote server at ${host}: ${msg}; nothing was written`,
      hint: refused
        ? `the server refused the credentials: check ${headerEnvNames(src.headers).join(", ") || "the headers (--header NAME=Bearer env:VAR)"}`
        : "check the URL (the server's Streamable HTTP endpoint, often …/mcp) and that the server is up",
    });
  }
  const base = projectBase(opts);
  const listed = await listTools(conn, `the server at ${host}`, timeoutMs);
  const id =
    opts.id ??
    idFromName(listed.server.name ?? "") ??
    idFromName(new URL(src.url).hostname.replace(/^(www|api|mcp)\./, "").split(".")[0] ?? "");
  return writeDraft(listed, {
    id,
    base,
    opts,
    label: host,
    source: { url: src.url, headers: src.headers },
    bindingNames,
    args: [],
  });
}

function checkId(id: string | undefined): void {
  if (id !== undefined && !PACK_ID_RE.test(id))
    throw new HcpxError(
      {
        code: "bad_id",
        message: `'${id}' is not a valid pack id`,
        hint: "a pack id matches ^[a-z][a-z0-9-]{0,31}$, e.g. fs or github",
      },
      64,
    );
}

function checkEnvNames(names: string[]): void {
  for (const n of names)
    if (!ENV_NAME_RE.test(n))
      throw new HcpxError({
        code: "usage",
        message: `--env '${n}' is not an environment variable name`,
        hint: "pass names only, like --env GITHUB_TOKEN; the value is read from the environment at run time",
      });
  // refused before anything runs or is written: a Binding never names PATH, HOME, LD_* … (the pack would not load)
  for (const n of names)
    if (isForbiddenEnv(n))
      throw new HcpxError({
        code: "usage",
        message: `--env '${n}': a pack's Binding cannot name ${n} (it changes what a program loads or runs); nothing was written`,
        hint:
          n === "PATH"
            ? "not needed: a launcher (npx, uvx…) gets the PATH it needs from the runtime"
            : "pass only the names the server reads as settings or secrets",
      });
}

function projectBase(opts: FromMcpOptions): { cfgFile?: string; haveConfig: boolean; base: string } {
  const cfgFile = configPath(opts);
  const haveConfig = cfgFile !== undefined && existsSync(cfgFile);
  return { cfgFile, haveConfig, base: haveConfig ? dirname(cfgFile!) : process.cwd() };
}

/** The server's name and tools (page by page, capped), then the connection closed. */
async function listTools(conn: Connection, label: string, timeoutMs: number): Promise<Listed> {
  const { listToolsPage } = await import("../runtime/mcp-client");
  let tools: McpToolInfo[];
  let server: Listed["server"];
  try {
    const info = conn.client.getServerVersion();
    server = { name: info?.name, version: info?.version, title: (info as { title?: string } | undefined)?.title };
    // page by page, never spread into arguments (a 200,000-tool page overflowed the stack), capped
    tools = (await listAllTools((cursor) => listToolsPage(conn.client, cursor, timeoutMs))) as McpToolInfo[];
  } catch (e) {
    if (e instanceof PinError)
      throw new HcpxError({
        code: e.code,
        message: `${label}: ${e.message}; nothing was written`,
        hint:
          e.code === "too_many_tools"
            ? "wrap a server with fewer tools (or one that lets you choose which it offers)"
            : "fix the server's tool list",
      });
    throw new HcpxError({
      code: "mcp_list_failed",
      message: `${label} did not list its tools: ${(e as Error)?.message ?? String(e)}`,
      hint: "does the server offer tools (capability `tools`)?",
    });
  } finally {
    await conn.close();
  }
  let byName: Map<string, Record<string, unknown>>;
  try {
    byName = toolsByName(tools);
  } catch (e) {
    if (e instanceof PinError)
      throw new HcpxError({
        code: e.code,
        message: `${e.message}; nothing was written`,
        hint: "a server must list each tool once",
      });
    throw e;
  }
  const warnings: Problem[] = [];
  if (tools.length > MAX_COMMANDS)
    warnings.push(
      warning("mcp_import", `the server lists ${tools.length} tools; the first ${MAX_COMMANDS} became commands`),
    );
  return { tools: tools.slice(0, MAX_COMMANDS), byName, server, warnings };
}

interface Program {
  /** the program's absolute path */
  path: string;
  /** the sandbox.bins entry to record: a program outside the project */
  sandboxBin?: { name: string; path: string };
  /** the bin as the pack at `dir` writes it */
  binInPack: (dir: string) => string;
}

/** The server's program resolved now: a path (relative to the pack when inside the project) or a bare name on PATH. */
function resolveProgram(first: string, base: string): Program {
  let path: string;
  let sandboxBin: { name: string; path: string } | undefined;
  let binInPack: (dir: string) => string;
  if (first.includes("/")) {
    path = resolve(first);
    if (!existsSync(path) || !statSync(path).isFile())
      throw new HcpxError({
        code: "bin_not_found",
        message: `no program at ${display(path)}`,
        hint: "check the path, or give a program on PATH, like node or npx",
      });
    if (isInside(path, base)) binInPack = (dir) => toPosix(relative(dir, path));
    else {
      sandboxBin = { name: basename(path), path };
      binInPack = () => basename(path);
    }
  } else {
    if (!/^[A-Za-z0-9._+-]+$/.test(first))
      throw new HcpxError({
        code: "usage",
        message: `'${first}' is not a program name`,
        hint: "give a bare name like node, or a path like ./server.mjs",
      });
    const found = whichOnPath(first);
    if (!found)
      throw new HcpxError({
        code: "bin_not_found",
        message: `'${first}' is not on PATH`,
        hint: "give the program's path, or install it",
      });
    path = found;
    sandboxBin = { name: first, path: found };
    binInPack = () => first;
  }
  return { path, sandboxBin, binInPack };
}

export async function packFromMcp(argv: string[], opts: FromMcpOptions): Promise<FromMcpResult> {
  if (argv.length === 0 || !argv[0]!.trim())
    throw new HcpxError({
      code: "usage",
      message: "no server command given",
      hint: "hcpx pack from-mcp --id fs -- npx @modelcontextprotocol/server-filesystem .",
    });
  checkEnvNames(opts.env ?? []);
  checkId(opts.id);
  const { cfgFile, haveConfig, base } = projectBase(opts);
  const warnings: Problem[] = [];

  // what runs: the program (resolved now) and its argv
  const [first, ...args] = argv as [string, ...string[]];
  const { path, sandboxBin, binInPack } = resolveProgram(first, base);
  const command = isJsFile(path) ? process.execPath : path;
  const prefix = command === path ? [] : [path];

  // list the tools, with the SDK's Client (loaded only here)
  const { connect } = await import("../runtime/mcp-client");
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let conn;
  try {
    conn = await connect(
      { command, argv: [...prefix, ...args], env: binEnv({}, opts.env ?? [], process.env, path, first), cwd: base },
      timeoutMs,
    );
  } catch (e) {
    throw new HcpxError({
      code: "mcp_connect_failed",
      message: `could not start and initialize the server \`${argv.join(" ")}\`: ${(e as Error)?.message ?? String(e)}`,
      hint: `run the command by hand; it must speak MCP on stdio. It runs with a minimal environment${launcherPath(path, first) ? ` (PATH: ${launcherPath(path, first)})` : " (no PATH; a launcher such as npx or uvx gets the PATH it needs)"}: pass the other names it needs with --env`,
    });
  }
  const listed = await listTools(conn, `the server \`${argv.join(" ")}\``, timeoutMs);
  const id = opts.id ?? idFromName(listed.server.name ?? "") ?? idFromName(basename(first));
  return writeDraft(listed, {
    id,
    base: { cfgFile, haveConfig, base },
    opts,
    label: first,
    source: { bin: binInPack, path },
    bindingNames: opts.env ?? [],
    args,
    sandboxBin,
    warnings,
  });
}
