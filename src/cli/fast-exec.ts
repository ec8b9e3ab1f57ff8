// The plain `hcpx exec`, `hcpx mcp` and `hcpx adopt` forms, read without
// commander (main.ts's fast paths). Their option types come from the options
// schema (spec.ts, types only: nothing of it is loaded on the start path), and
// test/cli/options-schema.test.ts checks each flag read here against it.
import { MCP_DEFAULTS } from "./defaults";
import type { GlobalOptions, OptionsOf } from "./spec";

export { MCP_DEFAULTS };

export interface FastExec extends Required<Pick<OptionsOf<"exec">, "confirm" | "json">> {
  pack: string;
  verb: string;
  operands: string[];
}

/**
 * `exec <pack> <verb> [--confirm] [--json] [k=v …] [-- …]` as commander would
 * read it; undefined for anything else (then commander parses it).
 */
export function parseFastExec(args: readonly string[]): FastExec | undefined {
  if (args[0] !== "exec" || args.length < 3) return undefined;
  const [, pack, verb] = args as [string, string, string];
  if (pack.startsWith("-") || verb.startsWith("-")) return undefined;
  const r: FastExec = { pack, verb, operands: [], confirm: false, json: false };
  for (let i = 3; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      r.operands.push(...args.slice(i + 1));
      break;
    }
    if (a === "--json") r.json = true;
    else if (a === "--confirm") r.confirm = true;
    else if (a.startsWith("-")) return undefined;
    else r.operands.push(a);
  }
  return r;
}

/**
 * Where `hcpx exec <pack> <verb> … --config <file>` names a config after the pack: the message that
 * refuses it (undefined: not so). A host's allow rule for `hcpx exec <pack> <verb>` matches the
 * command's start, so an option after it must not swap in another config (its own packs, grants and
 * confirm) under the rule a person gave for this one; `hcpx --config <file> exec …` says it up front.
 */
export function lateExecConfig(args: readonly string[]): string | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") i += args[i] === "--config" ? 2 : 1;
  if (args[i] !== "exec") return undefined;
  let named = 0; // the positionals seen: the pack, then the verb
  for (i++; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return undefined; // a bin's arguments
    if (a === "--config" || a.startsWith("--config=")) {
      if (named > 0)
        return "--config after `exec <pack>`: give it before exec (`hcpx --config <file> exec <pack> <verb> …`); an allow rule for `hcpx exec <pack> <verb>` covers that pack's command in this project's config only";
      if (a === "--config") i++;
    } else if (!a.startsWith("-")) named++;
  }
  return undefined;
}

// The plain `hcpx adopt` form, read without commander too.
export interface FastAdopt {
  hosts: string[];
  opts: Pick<OptionsOf<"adopt">, "scope" | "write" | "check" | "json" | "command"> & { scope: "project" };
}

/**
 * `adopt <host>… [--write] [--check] [--json] [--command <cmd>]` as commander reads it (--check: CI's
 * and a hook's form, `adopt all --check`)
 * (its options object: scope defaults to project, only given flags set);
 * undefined for anything else, `--command=<cmd>` and a value starting with
 * `-` included (then commander parses it).
 */

export function parseFastAdopt(args: readonly string[]): FastAdopt | undefined {
  if (args[0] !== "adopt") return undefined;
  const r: FastAdopt = { hosts: [], opts: { scope: "project" } };
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--write") r.opts.write = true;
    else if (a === "--check") r.opts.check = true;
    else if (a === "--json") r.opts.json = true;
    else if (a === "--command" && r.opts.command === undefined && i + 1 < args.length && !args[i + 1]!.startsWith("-"))
      r.opts.command = args[++i]!;
    else if (a.startsWith("-")) return undefined;
    else r.hosts.push(a);
  }
  return r.hosts.length ? r : undefined;
}

// The `hcpx mcp` forms adopt writes into host configs, read without commander too.
export interface FastMcp extends Pick<OptionsOf<"mcp">, "shape" | "watch" | "auth" | "host">, GlobalOptions {
  shape: "single" | "per-command";
}

/**
 * `mcp [--shape single|per-command] [--host <id>] [--config <file>] [--no-watch]`,
 * each at most once, as commander reads it (MCP_DEFAULTS for what is not
 * given); undefined for anything else (`--opt=value`, a value starting with
 * `-`, another option: then commander parses it).
 */
export function parseFastMcp(args: readonly string[]): FastMcp | undefined {
  if (args[0] !== "mcp") return undefined;
  const r: FastMcp = { ...MCP_DEFAULTS };
  const seen = new Set<string>();
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (seen.has(a)) return undefined;
    seen.add(a);
    if (a === "--no-watch") {
      r.watch = false;
      continue;
    }
    const v = args[i + 1];
    if (v === undefined || v.startsWith("-")) return undefined;
    i++;
    if (a === "--shape" && (v === "single" || v === "per-command")) r.shape = v;
    else if (a === "--host") r.host = v;
    else if (a === "--config") r.config = v;
    else return undefined;
  }
  return r;
}
