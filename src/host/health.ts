// "In sync" is not enough: will the host actually use the server? Checked for
// each adopted host, from its descriptor (hosts/<host>.json5) and the command line
// the plan writes, never from code per host:
//  - the MCP command resolves with the host's environment (PATH; `launch.env` when
//    the host passes only a few variables) and working directory (`launch.cwd`), and
//    from there `hcpx mcp` finds the config it is meant to serve;
//  - the `health` facts the host keeps outside the files adopt writes: trust (Codex
//    trusted projects), allow- and deny-lists (Gemini's mcp.allowed / mcp.excluded,
//    Claude Code's disabledMcpjsonServers), each `includes` / `excludes` / `equals`.
// What adopt can fix in its own scope is a target of the descriptor (an `ifPresent`
// items target adds `hcp` to an allow-list); what is left here is reported with the
// exact file, key and what to do.
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import { parse as parseJsonc, type ParseError } from "jsonc-parser/lib/esm/main.js";
import type { ErrorCode, Problem } from "../util/errors";
import { loadDescriptor, type Descriptor, type HealthCheck } from "./descriptor";
import { pathHead, whichOnPath } from "../util/which";
import { findProjectConfig } from "../pack/load";
import { readEntry, type Entry } from "../util/fsio";
import type { Scope } from "./engine";
import { homeText, pathResolver } from "./homes";
import { tildePath } from "../util/paths";
import { checkFiles, targetFiles, unreadLayers, unreadProblem } from "./unread";
import { checkPaths } from "./unread-zod";
import { approvingHooks, hookProblem } from "./hooks";
import { askOf } from "./ask-rules";
import { firstFile } from "./value-at";
import { skippedAskProblem, skippedWhy, skipsOf } from "./skipped";

export interface HealthOptions {
  scope: Scope;
  /** the project root (project scope) */
  root: string;
  home: string;
  /** the MCP command line each host's entry runs (AdoptPlan.commands) */
  commands: Record<string, string[]>;
  /** the config the server must find: the project's, or the user config at user scope */
  config?: string;
  /** the environment the host was started with (default: this process's) */
  env?: NodeJS.ProcessEnv;
  /** the MCP server name (default hcp) */
  server?: string;
}

export async function checkHealth(hosts: string[], o: HealthOptions): Promise<Problem[]> {
  const out: Problem[] = [];
  const env = o.env ?? process.env;
  const server = o.server ?? "hcp";
  const fill = (s: string) => s.replaceAll("{root}", o.root).replaceAll("{server}", server);
  for (const host of hosts) {
    const d = loadDescriptor(host);
    const spec = d.scopes[o.scope];
    if (!spec) continue;
    // `~/…` where the host reads it: a home its variable moves (descriptor `homes`), in the host's environment
    const abs = pathResolver(d, { root: o.root, home: o.home, env });
    const argv = o.commands[host];
    const problem = (code: ErrorCode, message: string, hint: string, file?: string, named = false): void => {
      out.push({
        code,
        severity: "error",
        message: named ? message : `${d.name}: ${message}`,
        hint,
        ...(file ? { file } : {}),
      });
    };
    // ---- the command, as the host starts it ----
    if (argv && argv.length) checkCommand(argv, { spec, name: d.name, o, env, abs, problem });
    // ---- trust, allow- and deny-lists the host keeps elsewhere ----
    // (said with the files where the host reads them: a home its variable moves)
    const said = homeText(d, o.home, env);
    for (const h of spec.health ?? []) {
      const r = await evaluate(h, abs, fill, server);
      if (r.ok) continue;
      const file = r.file === undefined ? undefined : said(r.file);
      problem("host_will_not_use", said(`${fill(h.message)} (${r.why})`), said(fill(h.hint)), file, true);
    }
  }
  return out;
}

type ProblemAt = (code: ErrorCode, message: string, hint: string, file?: string, named?: boolean) => void;

/** What `checkCommand` checks against: the host's scope, its name, the options, its environment. */
interface CommandContext {
  spec: NonNullable<ReturnType<typeof loadDescriptor>["scopes"][Scope]>;
  name: string;
  o: HealthOptions;
  env: NodeJS.ProcessEnv;
  abs: (p: string) => string;
  problem: ProblemAt;
}

/** The MCP command line, as the host starts it: the program, the files it names, the config it will serve. */
function checkCommand(argv: string[], k: CommandContext): void {
  const { spec, name, o, env, abs, problem } = k;
  const cwd = spec.launch?.cwd ? abs(spec.launch.cwd) : o.scope === "project" ? o.root : o.home;
  const shownCwd = spec.launch?.cwd ? tildePath(cwd, o.home) : o.scope === "project" ? "the project root" : "~";
  const passed = spec.launch?.env;
  const hostPath = passed && !passed.includes("PATH") ? "" : (env.PATH ?? "");
  const cmd = argv[0]!;
  if (cmd.includes("/")) {
    const p = isAbsolute(cmd) ? cmd : resolve(cwd, cmd);
    if (!executable(p))
      problem(
        "mcp_command_missing",
        `the MCP command ${cmd} is not an executable file${isAbsolute(cmd) ? "" : ` (from ${shownCwd}, where ${name} starts it)`}`,
        "install hcpx there, or re-adopt with --command naming a program that exists",
      );
  } else if (!whichOnPath(cmd, hostPath)) {
    problem(
      "mcp_command_not_on_path",
      passed && !passed.includes("PATH")
        ? `starts MCP servers without PATH, so the MCP command \`${cmd}\` is not found`
        : `the MCP command \`${cmd}\` is not on the PATH ${name} inherits (${pathHead(env.PATH ?? "")})`,
      `put ${cmd} on PATH (see the README, Install), or re-adopt without --command: hcpx then writes the absolute node + hcpx it runs from`,
    );
  }
  // the script node runs, the --config it is given: files that must be there
  for (const w of argv.slice(1))
    if (isAbsolute(w) && !existsSync(w))
      problem(
        "mcp_command_missing",
        `the MCP command names ${w}, which does not exist`,
        "re-adopt (hcpx writes the paths of the install it runs from), or fix --command",
      );
  // the config `hcpx mcp` will serve, found from where the host starts it
  const at = argv.indexOf("--config");
  const pinned = at >= 0 ? argv[at + 1] : undefined;
  const isHcpx = argv.includes("mcp") && (basename(cmd) === "hcpx" || argv.some((w) => /hcpx(\.[cm]?js)?$/.test(w)));
  if (isHcpx && o.config) {
    // what `hcpx mcp` reads there: --config, else $HCP_CONFIG when the host passes it, else hcp.config.json5 found upward
    const viaEnv =
      env.HCP_CONFIG && (!passed || passed.includes("HCP_CONFIG")) ? resolve(cwd, env.HCP_CONFIG) : undefined;
    const found = pinned !== undefined ? resolve(cwd, pinned) : (viaEnv ?? findProjectConfig(cwd));
    if (found !== o.config) {
      const how =
        pinned !== undefined
          ? `is given --config ${pinned}`
          : env.HCP_CONFIG && !viaEnv
            ? `does not get HCP_CONFIG (set here), and ${found ? `finds ${found}` : "finds no hcp.config.json5"}`
            : found
              ? `finds ${found}`
              : "finds no hcp.config.json5";
      problem(
        "mcp_config_not_found",
        `starts the server in ${shownCwd}, where \`hcpx mcp\` ${how}, not ${o.config}: it would not serve the packs adopt planned with`,
        'keep hcp.config.json5 in the project root (where the host starts the server), or re-adopt with --command "hcpx mcp --config <file>"',
      );
    }
  }
}

/**
 * The settings of the person's that switch a host's own asking off (descriptor `gate.inForce`:
 * Claude Code's bypassPermissions, Qwen Code's YOLO mode, Kimi Code's default_permission_mode
 * "auto"): with one of them a write the Policy gates with confirm runs without the host asking.
 * Said as `policy_widened` warnings (adopt --check, doctor) when the Policy grants such a write,
 * never changed: the same facts `hcpx mcp --host` checks before it counts the host's prompt.
 */
export async function widenedBySettings(
  hosts: string[],
  o: {
    scope: Scope;
    root: string;
    home: string;
    env?: NodeJS.ProcessEnv;
    system?: string;
    /** the tools of the writes the Policy gates with confirm (`ledger__transfer`): the hooks that may approve them */
    tools?: string[];
  },
): Promise<Problem[]> {
  const out: Problem[] = [];
  for (const host of hosts) {
    const d = loadDescriptor(host);
    const env = o.env ?? process.env;
    // (`system`: a test's scratch "/", below which the managed files in /etc are read)
    const abs = pathResolver(d, { root: o.root, home: o.home, env, system: o.system });
    const server = d.servers?.[o.scope] ?? d.server ?? "hcp";
    const fill = (s: string) => s.replaceAll("{root}", o.root).replaceAll("{server}", server);
    const said = homeText(d, o.home, env);
    const skips = skipsOf(d);
    for (const h of d.gate?.inForce ?? []) {
      const r = await inForceFact(d, h, abs, fill, server, { skips });
      if (r.ok) continue;
      const over = r.over ? `, as ${d.name} skips the files before it` : "";
      out.push({
        code: "policy_widened",
        severity: "warning",
        ...(r.file ? { file: said(r.file) } : {}),
        message: said(
          `${d.name}: ${fill(h.message)} (${r.why}${over}): a write the Policy gates with confirm runs without ${d.name} asking`,
        ),
        hint: said(fill(h.hint)),
      });
    }
    // the file of the ask rule adopt wrote, where the host skips it as a whole (gate.skipped): no one's question
    for (const t of d.scopes[o.scope]?.targets ?? []) {
      const file = askOf(t, d) ? firstFile(t, abs) : undefined;
      const why = file && skippedWhy(d, file.show, file.text);
      if (file && why !== undefined) out.push(skippedAskProblem(d, said(file.show), why));
    }
    // (its message and file naming the host's homes where a variable moves them)
    const shown = (p: Problem): Problem => ({
      ...p,
      message: said(p.message),
      ...(p.file ? { file: said(p.file) } : {}),
    });
    // what the host merges over its files that hcpx does not read (gate.unread), set or there now
    const read = targetFiles(d, o.scope, abs);
    for (const f of unreadLayers(d, o.scope, { env, abs, read, server: false })) out.push(shown(unreadProblem(d, f)));
    // hooks that may approve a gated write so the host never asks (gate.hooks)
    for (const p of await hookWarnings(d, o.scope, abs, server, o.tools ?? [])) out.push(shown(p));
  }
  return out;
}

/** Each hook group that may approve one of `tools`, once, with the tools it selects; a file that does not parse, said. */
async function hookWarnings(
  d: ReturnType<typeof loadDescriptor>,
  scope: Scope,
  abs: (p: string) => string,
  server: string,
  tools: string[],
): Promise<Problem[]> {
  if (!tools.length) return [];
  try {
    return (await approvingHooks(d, { scope, abs, server, tools })).map((f) => hookProblem(d, f, f.tools));
  } catch (e) {
    return [
      {
        code: "policy_widened",
        severity: "warning",
        message: `${d.name}: a file it reads hooks from cannot be read (${(e as Error).message}): hcpx cannot tell whether a hook there approves a gated write, so it does not count ${d.name}'s prompt`,
        hint: "fix the file (it must parse, with no key twice)",
      },
    ];
  }
}

function executable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `gate.inForce` fact as the host holds it: as written, and (`gate.skipped`) with the files the host skips as a
 * whole passed over, as it does (a mode in a skipped file does not hide the next file's); both must hold. `over`:
 * it fails only with the skipped files passed over. `read`: the caller's reads (each file once a check).
 */
export async function inForceFact(
  d: Descriptor,
  h: HealthCheck,
  abs: (p: string) => string,
  fill: (s: string) => string,
  server: string,
  o: { read?: (file: string) => Entry; skips?: (path: string, text: string) => boolean } = {},
): Promise<{ ok: boolean; why?: string; file?: string; over?: true }> {
  const first = await evaluate(h, abs, fill, server, { read: o.read });
  if (!first.ok || !d.gate?.skipped) return first;
  const r = await evaluate(h, abs, fill, server, { read: o.read, skips: o.skips ?? skipsOf(d) });
  return r.ok ? r : { ...r, over: true };
}

/** The value at `key` in a check's file (`p`: the file as said), or `bad` when it does not parse. */
async function valueAt(h: HealthCheck, text: string, p: string, key: string[]): Promise<{ v?: unknown; bad?: true }> {
  let doc: unknown;
  try {
    if (h.format === "toml") {
      const { parseTomlFor } = await import("./tomledit");
      doc = parseTomlFor(text, p);
    } else {
      const errors: ParseError[] = [];
      doc = parseJsonc(text.replace(/^\ufeff/, ""), errors, { allowTrailingComma: true });
      if (errors.length) return { bad: true };
    }
  } catch {
    return { bad: true };
  }
  let v: unknown = doc;
  for (const k of key)
    v =
      v !== null && typeof v === "object" && !Array.isArray(v) && Object.hasOwn(v, k)
        ? (v as Record<string, unknown>)[k]
        : undefined;
  return { v };
}

/** One health fact, read from the first of its files that has the key (the value the host uses). */
export async function evaluate(
  h: HealthCheck,
  abs: (p: string) => string,
  fill: (s: string) => string,
  server: string,
  /** `skips`: a file the host skips as a whole (gate.skipped), passed over as the host does; `read`: the caller's reads */
  o: { skips?: (path: string, text: string) => boolean; read?: (file: string) => Entry } = {},
): Promise<{ ok: boolean; why?: string; file?: string }> {
  const paths = checkPaths(h).map((p) => p.path);
  const key = h.key.map(fill);
  const want = typeof h.value === "string" ? fill(h.value) : h.value;
  const keyShown = key.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k))).join(".");
  let value: unknown;
  let file: string | undefined; // as said (a file above: where it is)
  let at: string | undefined; // as the problem names it
  let any = false;
  for (const f of checkFiles(h, abs)) {
    const e = (o.read ?? readEntry)(f.file);
    if (e.kind !== "file" || o.skips?.(f.shown, e.text)) continue;
    any = true;
    // (a file above the project: its whole path, and where it is)
    const p = f.above ? `${f.shown} (in a folder above the project)` : f.shown;
    const r = await valueAt(h, e.text, p, key);
    if (r.bad) return { ok: false, why: `${p} does not parse`, file: f.shown };
    const v = r.v;
    // "empty": the host joins the lists of every file, so an empty one does not decide; the next file is read
    if (v !== undefined && !(h.expect === "empty" && Array.isArray(v) && v.length === 0)) {
      value = v;
      file = p;
      at = f.shown;
      break;
    }
  }
  // none of the files is there: the host keeps no such state on this machine (it is not used
  // here, e.g. a CI runner, or it will ask on first start): nothing to hold against it
  if (!any) return { ok: true };
  if (h.expect === "missing" || h.expect === "empty")
    return value === undefined ? { ok: true } : { ok: false, why: `${file}: ${keyShown} is there`, file: at };
  if (value === undefined)
    return h.absent === "ok"
      ? { ok: true }
      : { ok: false, why: `no ${keyShown} in ${paths.join(" or ")}`, file: paths[0] };
  const list = Array.isArray(value) ? value : undefined;
  if (h.expect === "equals")
    return value === want
      ? { ok: true }
      : { ok: false, why: `${file}: ${keyShown} is ${JSON.stringify(value)}`, file: at };
  if (h.expect === "differs")
    return value !== want
      ? { ok: true }
      : { ok: false, why: `${file}: ${keyShown} is ${JSON.stringify(value)}`, file: at };
  if (!list) return { ok: false, why: `${file}: ${keyShown} is not a list`, file: at };
  const has = h.field
    ? list.some((x) => x !== null && typeof x === "object" && (x as Record<string, unknown>)[h.field!] === want)
    : list.includes(want);
  if (h.expect === "includes")
    return has
      ? { ok: true }
      : {
          ok: false,
          why: `${file}: ${keyShown} is ${JSON.stringify(list)}, without ${JSON.stringify(server === want ? server : want)}`,
          file: at,
        };
  return has ? { ok: false, why: `${file}: ${keyShown} lists ${JSON.stringify(want)}`, file: at } : { ok: true };
}
