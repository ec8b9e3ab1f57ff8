// hcpx exec <pack_id> <verb_key> [--confirm] [--json] -- k=v …
// Runs one command through the runtime and prints its envelope: one JSON line
// with --json, a readable form otherwise (data on stdout, errors on stderr).
// Exit 0 on ok, 64 when the pack or verb does not exist (a usage error: the
// hint says which one was meant), 1 on any other failure. Never prompts. On the hot path: keep imports
// to the runtime and output helpers.
import { loadProject } from "../../pack/load";
import { useValidationCache } from "../../pack/validcache";
import { execute, type Envelope } from "../../runtime/execute";
import { c, useColor } from "../output";

export interface ExecCliOptions {
  confirm?: boolean;
  json?: boolean;
  config?: string;
}

export async function run(pack: string, verb: string, operands: string[], opts: ExecCliOptions): Promise<number> {
  useValidationCache();
  const project = loadProject({ config: opts.config });
  const env = await execute(project, { pack, verb, kv: operands, confirm: opts.confirm === true });
  print(env, opts.json === true);
  return env.ok ? 0 : env.error.code === "unknown_pack" || env.error.code === "unknown_verb" ? 64 : 1;
}

export function print(env: Envelope, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(env) + "\n");
    return;
  }
  if (env.ok) {
    const d = env.data as { text?: unknown } | null;
    if (d && typeof d === "object" && !Array.isArray(d) && Object.keys(d).length === 1 && typeof d.text === "string") {
      process.stdout.write(d.text.endsWith("\n") || d.text === "" ? d.text : d.text + "\n");
    } else process.stdout.write(JSON.stringify(env.data, null, 2) + "\n");
    return;
  }
  const color = useColor(process.stderr);
  const { code, message, hint, stderr_tail, ...rest } = env.error;
  let s = c.red(color, `error [${code}]: ${message}`) + "\n";
  if (typeof hint === "string") s += `  hint: ${hint}\n`;
  for (const k of ["exit_code", "signal", "status", "arg", "land"]) if (rest[k] !== undefined && rest[k] !== null) s += c.dim(color, `  ${k}: ${String(rest[k])}`) + "\n";
  if (typeof rest.body === "string" && rest.body) s += c.dim(color, `  body: ${rest.body}`) + "\n";
  if (typeof stderr_tail === "string" && stderr_tail) s += c.dim(color, "  stderr (last lines):") + "\n" + stderr_tail.split("\n").slice(-10).map((l) => `    ${l}`).join("\n") + "\n";
  process.stderr.write(s);
}
