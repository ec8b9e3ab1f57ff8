// hcpx import <host> [--scope project|user] [--server <name…> | --all] [--json]
// Lists the MCP servers already in a host's config and, for those named,
// writes an `mcp` pack each (`hcpx pack from-mcp`), so that they run behind
// the one `hcp` tool with grants, the confirm gate and redaction. Which file
// and which entry fields is data: the host descriptor's mcp target (`path`,
// `key`, `entry` in hosts/<host>.json5: the fields hcpx writes its own entry with). Env values in the host file are
// never copied into a pack: their names become the pack's Binding, read from
// hcpx's environment at run time. Nothing is activated, nothing is removed
// from the host's config.
import { existsSync } from "node:fs";
import { CAPS, readTextFile } from "../../util/readfile";
import { join, resolve } from "node:path";
import { HcpxError, fail, type Problem } from "../../util/errors";
import { msOption } from "../options";
import { display, home } from "../../util/paths";
import { loadDescriptor, slotField, type Target } from "../../host/descriptor";
import { HANDLERS } from "../../host/formats";
import { findProjectConfig } from "../../pack/load";
import type { CommonOpts } from "../../config/common";
import { idFromName, packFromMcp } from "../../mcpimport/write";
import { c, done, makeOut, neutralLine as o, printWarnings } from "../output";
import { isObj } from "../../util/is";

export interface ImportOpts extends CommonOpts {
  scope?: string;
  server?: string[];
  all?: boolean;
  force?: boolean;
  timeout?: string;
}

export interface HostServer {
  name: string;
  /** argv to start it (stdio), when it is a stdio server */
  argv?: string[];
  env: string[];
  /** why it cannot be imported, when it cannot */
  skip?: string;
  /** reached by URL: listed, not imported (not supported yet) */
  remote?: true;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** The servers of one host config file, read as the descriptor's `entry` says. */
export async function readHostServers(file: string, t: Target, hostName: string): Promise<HostServer[]> {
  // a host file is plantable (a repository commits .mcp.json): the one bounded reader, never a hang on a FIFO or a device
  const text = readTextFile(file, display(file), CAPS.host);
  // the host file is read by its format's handler, as strictly as the host reads it
  const fmt = HANDLERS[t.format].doc!;
  const doc: unknown = fmt.read(text, display(file), t, hostName);
  const e = t.entry!;
  const spec = { command: slotField(e, "command"), args: slotField(e, "args"), argv: slotField(e, "argv"), env: slotField(e, "env"), envNames: slotField(e, "envNames"), remote: e.remote };
  const parentKey = t.key!.slice(0, -1);
  const own = t.key![t.key!.length - 1]!;
  let node: unknown = fmt.get(doc, parentKey);
  if (node === undefined) return [];
  // a list of named items (Continue's mcpServers, descriptor `named`): by name, the first of a name
  if (t.named && Array.isArray(node)) {
    const byName: Record<string, unknown> = {};
    for (const x of node) if (isObj(x) && typeof x[t.named] === "string" && !((x[t.named] as string) in byName)) byName[x[t.named] as string] = x;
    node = byName;
  }
  if (!isObj(node)) fail("bad_json_shape", `\`${parentKey.join(".")}\` is not an object`, { file: display(file), hint: "fix the file by hand" });
  const out: HostServer[] = [];
  for (const [name, entry] of Object.entries(node)) {
    if (name === own) continue; // hcpx's own entry
    if (!isObj(entry)) {
      out.push({ name, env: [], skip: "the entry is not an object" });
      continue;
    }
    const remote = (spec.remote ?? []).find((k) => entry[k] !== undefined);
    if (remote) {
      // listed, not dropped: hcpx's mcp adapter starts stdio servers only (a remote one stays in the host's config)
      // (its URL is not printed: a host config's URL may carry a token)
      out.push({ name, env: [], remote: true, skip: `a remote (URL) server (${remote}): not supported yet — hcpx's mcp adapter starts stdio servers only; keep it in the host's config` });
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
    if (!argv) out.push({ name, env, skip: `no command line (${spec.argv ? `\`${spec.argv}\` as an array` : `\`${spec.command}\`${spec.args ? ` and \`${spec.args}\`` : ""}`})` });
    else out.push({ name, argv, env });
  }
  return out;
}

function hostFile(t: Target, scope: "project" | "user", base: string): string {
  const paths = Array.isArray(t.path) ? t.path : [t.path];
  const abs = paths.map((p) => (p.startsWith("~/") ? join(home(), p.slice(2)) : join(base, p)));
  return abs.find((p) => existsSync(p)) ?? abs[0]!;
}

export async function run(host: string, opts: ImportOpts): Promise<number> {
  const out = makeOut(opts);
  const scope = opts.scope ?? "project";
  if (scope !== "project" && scope !== "user") fail("usage", `--scope must be project or user, not '${scope}'`, { hint: "hcpx import claude --scope user" });
  const timeoutMs = msOption("--timeout", opts.timeout);
  const desc = loadDescriptor(host);
  const t = desc.scopes[scope]?.targets.find((x) => x.entry !== undefined);
  if (!t) throw new HcpxError({ code: "no_servers_target", message: `hosts/${host}.json5 says of no ${scope}-scope file where ${desc.name} keeps its MCP servers`, hint: scope === "project" ? `try --scope user` : "this host cannot be imported from" });
  const cfg = opts.config ? resolve(opts.config) : findProjectConfig(process.cwd());
  const base = cfg ? resolve(cfg, "..") : process.cwd();
  const file = hostFile(t, scope, base);
  if (!existsSync(file)) throw new HcpxError({ code: "missing_file", message: `${desc.name} has no ${scope}-scope MCP config here`, file: display(file), hint: scope === "project" ? "try --scope user" : "nothing to import" });
  const servers = await readHostServers(file, t, desc.name);
  const wanted = opts.all ? servers.filter((s) => !s.skip).map((s) => s.name) : (opts.server ?? []);
  for (const w of wanted) {
    if (!servers.some((s) => s.name === w)) fail("unknown_server", `no server '${o(w)}' in ${display(file)}`, { file: display(file), hint: servers.length ? `servers: ${servers.map((s) => o(s.name)).join(", ")}` : "the file has no MCP servers" });
  }
  const made: { server: string; id: string; dir: string; commands: number; env: string[]; lintErrors: number }[] = [];
  const warnings: Problem[] = [];
  for (const name of wanted) {
    const s = servers.find((x) => x.name === name)!;
    if (s.skip) fail("not_importable", `server '${o(name)}' cannot be imported: ${o(s.skip)}`, { file: display(file) });
    const id = idFromName(name) ?? idFromName(s.argv![s.argv!.length - 1] ?? "");
    if (!id) fail("bad_id", `no pack id can be made from the server name '${o(name)}'`, { hint: `use \`hcpx pack from-mcp --id <id> -- ${s.argv!.map(o).join(" ")}\`` });
    const r = await packFromMcp(s.argv!, { id, env: s.env, force: opts.force, config: opts.config, timeoutMs });
    warnings.push(...r.warnings);
    made.push({ server: name, id: r.id, dir: display(r.dir), commands: r.draft.commands.length, env: r.draft.env, lintErrors: r.lint.filter((p) => p.severity !== "warning").length });
  }
  printWarnings(warnings, out);
  done(out, { host, scope, file: display(file), servers, imported: made }, (col) => {
    const lines = [`${desc.name} (${display(file)}): ${servers.length} MCP server(s)`];
    // each server on its line: its name, command and env names are the host file's text (src/util/neutral.ts neutralLine)
    for (const s of servers) lines.push(`  ${o(s.name).padEnd(20)} ${s.skip ? c.dim(col, `skipped: ${o(s.skip)}`) : s.argv!.map(o).join(" ")}${s.env.length ? `  env: ${s.env.map(o).join(", ")}` : ""}`);
    if (made.length === 0) {
      if (servers.some((s) => !s.skip)) lines.push("", `to make packs of them: hcpx import ${host}${scope === "user" ? " --scope user" : ""} --server <name…> (or --all)`);
      return lines.join("\n");
    }
    for (const m of made) lines.push(`${c.green(col, "wrote")} ${o(m.dir)} (${m.commands} commands) from '${o(m.server)}'${m.env.length ? `; set ${m.env.map(o).join(", ")} in hcpx's environment (values are not copied)` : ""}`);
    lines.push("next: review each policy.json, then `hcpx activate <dir>`; once the packs work, remove the servers from the host's config yourself");
    return lines.join("\n");
  });
  return made.some((m) => m.lintErrors) ? 1 : 0;
}
