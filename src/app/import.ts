// The import use case (`hcpx import <host>`): typed options in, a report out;
// nothing here prints. Lists the MCP servers already in a host's config and,
// for those named, writes an `mcp` pack each, so that they run behind hcpx
// with grants, the confirm gate and redaction:
// - a stdio server (a command line) as `hcpx pack from-mcp -- <command …>`;
// - a remote server (a URL: `url`, `httpUrl`, `serverUrl`… as the descriptor's
//   `entry.remote` says) as `hcpx pack from-mcp --url`, an `mcp.url` pack.
// Which file and which entry fields is data: the host descriptor's mcp target
// (`path`, `key`, `entry` in hosts/<host>.json5). Values in the host file are
// never copied into a pack: env names become the pack's Binding, a header's
// env reference (`${VAR}` in the host's own syntax) becomes a Binding header,
// and a header holding a literal credential is refused (named, never shown).
// Nothing is activated, nothing is removed from the host's config.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { CAPS, readTextFile } from "../util/readfile";
import { HcpxError, fail, type Problem } from "../util/errors";
import { display, home } from "../util/paths";
import { loadDescriptor, slotField, type Descriptor, type Target } from "../host/descriptor";
import { pathResolver } from "../host/homes";
import { HANDLERS } from "../host/formats";
import { findProjectConfig } from "../pack/load";
import { idFromName, packFromMcp, packFromRemote } from "../mcpimport/write";
import { isCredentialHeader, urlProblem, type McpHeaderSpec } from "../pack/mcp-remote";
import { neutralLine as o } from "../util/neutral";
import { isObj } from "../util/is";
import type { Activated } from "./activate";

export interface ImportOptions {
  scope?: "project" | "user";
  /** the servers to import, by name */
  server?: string[];
  /** every importable server */
  all?: boolean;
  force?: boolean;
  timeoutMs?: number;
  /** --config <file> */
  config?: string;
  /** `--activate`: activate each pack once written (the caller's `hcpx activate`: its reads granted, never a write) */
  activate?: (dir: string) => Promise<Pick<Activated, "granted" | "grantedBy" | "warnings">>;
}

export interface HostServer {
  name: string;
  /** argv to start it, when it is a stdio server */
  argv?: string[];
  env: string[];
  /** why it cannot be imported, when it cannot */
  skip?: string;
  /** reached by URL */
  remote?: true;
  /** a remote server's URL (only when it is importable: a URL hcpx refuses may carry a secret, and is not repeated) */
  url?: string;
  /** a remote server's headers, as the pack will hold them (Binding references, non-secret literals) */
  headers?: Record<string, McpHeaderSpec>;
}

export interface ImportedPack {
  server: string;
  id: string;
  dir: string;
  commands: number;
  env: string[];
  lintErrors: number;
  /** with --activate: the read grants it got, and the writes a pattern already in the grants covers */
  activated?: { granted: string[]; grantedBy: Activated["grantedBy"] };
}

export interface ImportReport {
  host: string;
  hostName: string;
  scope: "project" | "user";
  file: string;
  servers: HostServer[];
  imported: ImportedPack[];
  warnings: Problem[];
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A whole header value that is one env reference in the host's syntax
 * (descriptor `envSyntax`, and `${VAR}` where `vars.syntax` lists it), with
 * an optional scheme word before it: `Bearer ${GITHUB_TOKEN}`.
 */
function envReference(t: Target, value: string): { env: string; scheme?: string } | undefined {
  const forms = [t.envSyntax, ...(t.vars?.syntax.includes("${VAR}") ? ["${VAR}"] : [])].filter(
    (x): x is string => typeof x === "string",
  );
  for (const f of forms) {
    const ref = escapeRe(f).replace("VAR", "([A-Za-z_][A-Za-z0-9_]*)");
    const m = new RegExp(`^(?:([A-Za-z][A-Za-z0-9._-]{0,31})\\s+)?${ref}$`).exec(value.trim());
    if (m) return m[1] ? { env: m[2]!, scheme: m[1] } : { env: m[2]! };
  }
  return undefined;
}

/** The URL field and header fields of a remote entry, from the descriptor (`remoteFields`: the shape hcpx writes for Streamable HTTP). */
function remoteShape(t: Target): { urlKeys: string[]; headersKey: string; tokenEnvKey?: string } {
  const rf = Object.entries(t.entry?.remoteFields ?? {});
  const urlKey = rf.find(([, v]) => v === "url")?.[0];
  const headersKey = rf.find(([, v]) => typeof v === "object" && v !== null && "headers" in v)?.[0] ?? "headers";
  const tokenEnvKey = rf.find(([, v]) => v === "tokenEnv")?.[0];
  // a documented Streamable HTTP field: only it (another remote field is another transport, e.g. Gemini's SSE `url`)
  return { urlKeys: urlKey ? [urlKey] : (t.entry?.remote ?? []), headersKey, tokenEnvKey };
}

/** A remote entry → what the pack will hold, or why it cannot be imported (never quoting a secret). */
function remoteServer(
  name: string,
  entry: Record<string, unknown>,
  marker: string,
  t: Target,
  where: string,
): HostServer {
  const shape = remoteShape(t);
  const skip = (why: string): HostServer => ({ name, env: [], remote: true, skip: why });
  const key = shape.urlKeys.find((k) => entry[k] !== undefined);
  if (!key)
    return skip(
      `a remote server (${marker}) of another transport than Streamable HTTP: hcpx's mcp.url speaks Streamable HTTP only; keep it in the host's config`,
    );
  const url = entry[key];
  if (typeof url !== "string") return skip(`\`${key}\` is not a string`);
  if (typeof entry.type === "string" && /^sse$/i.test(entry.type))
    return skip("an SSE server (type: sse): hcpx's mcp.url speaks Streamable HTTP only; keep it in the host's config");
  if (t.vars && new RegExp(t.vars.pattern).test(url))
    return skip(`its URL holds a variable (${t.vars.syntax}): hcpx takes a fixed URL; pass credentials in a header`);
  const bad = urlProblem(url);
  if (bad) return skip(`its URL ${bad}`);
  const headers: Record<string, McpHeaderSpec> = {};
  const raw = entry[shape.headersKey];
  if (raw !== undefined && !isObj(raw)) return skip(`\`${shape.headersKey}\` is not an object`);
  for (const [h, v] of Object.entries(raw ?? {})) {
    if (typeof v !== "string") return skip(`its header ${h} is not a string`);
    const ref = envReference(t, v);
    if (ref) headers[h] = ref;
    else if (isCredentialHeader(h, v) || (t.vars && new RegExp(t.vars.pattern).test(v))) {
      // refused, with what to do: the value stays in the host's file, never in a pack or on the screen
      const how = t.envSyntax
        ? `reference it as ${t.envSyntax.replace("VAR", "NAME")}`
        : "reference it from an environment variable";
      return skip(
        `its header ${h} holds a literal credential in ${where} (not shown): hcpx never copies a secret into a pack. Put the value in an environment variable, ${how} in that file (Bearer ${t.envSyntax?.replace("VAR", "NAME") ?? "…"}), and import again — or run hcpx pack from-mcp --url <url> --header "${h}=Bearer env:NAME"`,
      );
    } else headers[h] = v;
  }
  const tokenEnv = shape.tokenEnvKey ? entry[shape.tokenEnvKey] : undefined;
  if (typeof tokenEnv === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
    headers.Authorization = { env: tokenEnv, scheme: "Bearer" };
  const env = Object.values(headers).flatMap((h) => (typeof h === "string" ? [] : [h.env]));
  return { name, env, remote: true, url, ...(Object.keys(headers).length ? { headers } : {}) };
}

/** The servers of one host config file, read as the descriptor's `entry` says. */
export async function readHostServers(file: string, t: Target, hostName: string): Promise<HostServer[]> {
  // a host file is plantable (a repository commits .mcp.json): the one bounded reader, never a hang on a FIFO or a device
  const text = readTextFile(file, display(file), CAPS.host);
  // the host file is read by its format's handler, as strictly as the host reads it
  const fmt = HANDLERS[t.format].doc!;
  const doc: unknown = fmt.read(text, display(file), t, hostName);
  const e = t.entry!;
  const spec = {
    command: slotField(e, "command"),
    args: slotField(e, "args"),
    argv: slotField(e, "argv"),
    env: slotField(e, "env"),
    envNames: slotField(e, "envNames"),
    remote: e.remote,
  };
  const parentKey = t.key!.slice(0, -1);
  const own = t.key![t.key!.length - 1]!;
  let node: unknown = fmt.get(doc, parentKey);
  if (node === undefined) return [];
  // a list of named items (Continue's mcpServers, descriptor `named`): by name, the first of a name
  if (t.named && Array.isArray(node)) {
    const byName: Record<string, unknown> = {};
    for (const x of node)
      if (isObj(x) && typeof x[t.named] === "string" && !((x[t.named] as string) in byName))
        byName[x[t.named] as string] = x;
    node = byName;
  }
  if (!isObj(node))
    fail("bad_json_shape", `\`${parentKey.join(".")}\` is not an object`, {
      file: display(file),
      hint: "fix the file by hand",
    });
  const out: HostServer[] = [];
  for (const [name, entry] of Object.entries(node)) {
    if (name === own) continue; // hcpx's own entry
    if (!isObj(entry)) {
      out.push({ name, env: [], skip: "the entry is not an object" });
      continue;
    }
    const remote = (spec.remote ?? []).find((k) => entry[k] !== undefined);
    if (remote) {
      out.push(remoteServer(name, entry, remote, t, display(file)));
      continue;
    }
    let argv: string[] | undefined;
    if (spec.argv) {
      const a = entry[spec.argv];
      if (strings(a) && a.length > 0) argv = a;
    } else {
      const cmd = entry[spec.command!];
      const args = spec.args ? (entry[spec.args] ?? []) : [];
      if (typeof cmd === "string" && cmd.trim() && strings(args)) argv = [cmd, ...args];
    }
    const envObj = spec.env ? entry[spec.env] : undefined;
    const env = [...(isObj(envObj) ? Object.keys(envObj) : [])];
    const names = spec.envNames ? entry[spec.envNames] : undefined;
    if (strings(names)) for (const n of names) if (!env.includes(n)) env.push(n);
    if (!argv)
      out.push({
        name,
        env,
        skip: `no command line (${spec.argv ? `\`${spec.argv}\` as an array` : `\`${spec.command}\`${spec.args ? ` and \`${spec.args}\`` : ""}`})`,
      });
    else out.push({ name, argv, env });
  }
  return out;
}

/** The host's file of a target: `~/…` where the host reads it (a home its variable moves, descriptor `homes`). */
function hostFile(d: Descriptor, t: Target, base: string): string {
  const paths = Array.isArray(t.path) ? t.path : [t.path];
  const at = pathResolver(d, { root: base, home: home(), env: process.env });
  const abs = paths.map(at);
  return abs.find((p) => existsSync(p)) ?? abs[0]!;
}

/** `hcpx import <host>`: the host's servers, and a pack of each one named (each pack all or nothing). */
export async function importHost(host: string, opts: ImportOptions): Promise<ImportReport> {
  const scope = opts.scope ?? "project";
  const desc = loadDescriptor(host);
  const t = desc.scopes[scope]?.targets.find((x) => x.entry !== undefined);
  if (!t)
    throw new HcpxError({
      code: "no_servers_target",
      message: `hosts/${host}.json5 says of no ${scope}-scope file where ${desc.name} keeps its MCP servers`,
      hint: scope === "project" ? `try --scope user` : "this host cannot be imported from",
    });
  const cfg = opts.config ? resolve(opts.config) : findProjectConfig(process.cwd());
  const base = cfg ? resolve(cfg, "..") : process.cwd();
  const file = hostFile(desc, t, base);
  if (!existsSync(file))
    throw new HcpxError({
      code: "missing_file",
      message: `${desc.name} has no ${scope}-scope MCP config here`,
      file: display(file),
      hint: scope === "project" ? "try --scope user" : "nothing to import",
    });
  const servers = await readHostServers(file, t, desc.name);
  const wanted = opts.all ? servers.filter((s) => !s.skip).map((s) => s.name) : (opts.server ?? []);
  for (const w of wanted) {
    if (!servers.some((s) => s.name === w))
      fail("unknown_server", `no server '${o(w)}' in ${display(file)}`, {
        file: display(file),
        hint: servers.length ? `servers: ${servers.map((s) => o(s.name)).join(", ")}` : "the file has no MCP servers",
      });
  }
  const imported: ImportedPack[] = [];
  const warnings: Problem[] = [];
  for (const name of wanted) {
    const s = servers.find((x) => x.name === name)!;
    if (s.skip) fail("not_importable", `server '${o(name)}' cannot be imported: ${o(s.skip)}`, { file: display(file) });
    const fallback = s.url !== undefined ? new URL(s.url).hostname.split(".")[0] : s.argv![s.argv!.length - 1];
    const id = idFromName(name) ?? idFromName(fallback ?? "");
    if (!id)
      fail("bad_id", `no pack id can be made from the server name '${o(name)}'`, {
        hint:
          s.url !== undefined
            ? "use `hcpx pack from-mcp --id <id> --url <url>`"
            : `use \`hcpx pack from-mcp --id <id> -- ${s.argv!.map(o).join(" ")}\``,
      });
    const common = { id, force: opts.force, noOut: true, config: opts.config, timeoutMs: opts.timeoutMs };
    let r: Awaited<ReturnType<typeof packFromMcp>>;
    try {
      r =
        s.url !== undefined
          ? await packFromRemote({ url: s.url, headers: s.headers ?? {} }, common)
          : await packFromMcp(s.argv!, { ...common, env: s.env });
    } catch (e) {
      // "nothing was written" is this server's: say what the servers before it did write
      if (!(e instanceof HcpxError) || imported.length === 0) throw e;
      const [first, ...rest] = e.problems;
      const done = imported.map((i) => i.dir).join(", ");
      throw new HcpxError([
        { ...first!, message: `server '${o(name)}': ${first!.message} (written before it: ${done})` },
        ...rest,
      ]);
    }
    warnings.push(...r.warnings);
    const lintErrors = r.lint.filter((p) => p.severity !== "warning").length;
    let activated: ImportedPack["activated"];
    if (opts.activate && lintErrors === 0) {
      const a = await opts.activate(r.dir);
      warnings.push(...a.warnings);
      activated = { granted: a.granted, grantedBy: a.grantedBy };
    }
    imported.push({
      server: name,
      id: r.id,
      dir: display(r.dir),
      commands: r.draft.commands.length,
      env: r.draft.env,
      lintErrors,
      ...(activated ? { activated } : {}),
    });
  }
  return { host, hostName: desc.name, scope, file: display(file), servers, imported, warnings };
}
