#!/usr/bin/env node
// hcpx entry: the start path of every `hcpx exec` an agent runs, so it is kept
// to what exec needs. The plain exec form is parsed here, without commander
// (callgrind: commander's import and the program's definition are ~45 M
// instructions, ~9% of a bare Node start); everything else, including
// `hcpx exec --help` and any exec form with other options, goes to the
// commander program in program.ts, which gives the same result for the same
// exec arguments.
import { HcpxError } from "../util/errors";
import { makeOut, reportError } from "./output";

export interface FastExec {
  pack: string;
  verb: string;
  operands: string[];
  confirm: boolean;
  json: boolean;
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

async function main(argv: string[]): Promise<void> {
  try {
    const fast = parseFastExec(argv.slice(2));
    if (fast) {
      const m = await import("./commands/exec");
      const code = await m.run(fast.pack, fast.verb, fast.operands, { confirm: fast.confirm, json: fast.json });
      if (code !== 0) process.exitCode = code;
      return;
    }
    const p = await import("./program");
    await p.runProgram(argv);
  } catch (e) {
    const json = argv.includes("--json");
    if (e instanceof HcpxError) {
      process.exitCode = reportError(e, makeOut({ json }));
      return;
    }
    const err = e as Error;
    const message = `internal error: ${err?.message ?? String(e)}`;
    const hint = "this is a bug in hcpx; rerun with HCPX_DEBUG=1 for details and report it";
    if (json) process.stdout.write(JSON.stringify({ ok: false, error: { code: "internal", message, hint } }) + "\n");
    else process.stderr.write(`${message}\n  hint: ${hint}\n`);
    if (process.env.HCPX_DEBUG) process.stderr.write(`${err?.stack ?? ""}\n`);
    process.exitCode = 70;
  }
}

void main(process.argv);
