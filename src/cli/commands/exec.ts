// hcpx exec <pack_id> <verb_key> [--confirm] [--json] -- k=v …
// Runs one command through the runtime and prints its envelope: one JSON line
// with --json, a readable form otherwise (data on stdout, errors on stderr).
// Exit 0 on ok, 64 when the pack or verb does not exist (a usage error: the
// hint says which one was meant), 1 on any other failure. Never prompts. On the hot path: keep imports
// to the runtime and output helpers.
import { loadProject } from "../../pack/load";
import { useValidationCache } from "../../pack/validcache";
import { execute, type Envelope } from "../../runtime/execute";
import { terminateDescendants } from "../../runtime/wrap";
import { StopSignal } from "../../runtime/cancel";
import { AuditWriter, auditTime, execRecord, type ExecEarly } from "../../runtime/audit";
import { argsHash } from "../../util/argshash";
import { answered } from "../../runtime/stray";
import { consoleTo } from "../../util/console";
import { c, isTerminal, neutralLine, neutralise, say, sayErr, sayErrRaw, sayRaw, useColor, writeJson } from "../output";

export { useFdOut } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx exec`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type ExecCliOptions = OptionsOf<"exec"> & GlobalOpts;

/** The signals that end the caller: each stops the bin's tree, then hcpx prints `cancelled` and exits 1. */
const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

export async function run(pack: string, verb: string, operands: string[], opts: ExecCliOptions): Promise<number> {
  // The bin runs in its own process group (a terminal's Ctrl-C never reaches it):
  // a signal to hcpx is passed on by aborting the call (wrap.ts terminateTree). A StopSignal, not an
  // AbortController: the same cancel to the runtime, without compiling Node's EventTarget on the
  // start path (src/runtime/cancel.ts)
  // what a composite module prints with the console goes to stderr, through the exit: never on the envelope's stdout
  consoleTo(sayErrRaw);
  const stop = new StopSignal();
  const onSignal = (sig: NodeJS.Signals) => stop.abort(sig);
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  useValidationCache();
  const project = loadProject({ config: opts.config });
  const t0 = Date.now();
  // on record (src/runtime/audit.ts): one line, after the call, never failing it. The log is opened
  // (the door's guarded open, held) and the operands hashed while the bin runs, once it has started
  // (ExecuteOptions.started), when this process only waits for it: from the bin's exit to hcpx's,
  // 2.8 -> 2.1 ms (median of 30 calls). Otherwise (a call refused, another kind) it is opened after.
  // The record's time stamp too: a process's first Date#toISOString() costs ~0.1 ms (V8 sets up its
  // date handling then), which after the bin's exit is on the way to the envelope.
  const audit = new AuditWriter((m) => sayErr(`hcpx: ${m}`), true);
  const early: ExecEarly = {};
  const env = await execute(
    project,
    { pack, verb, kv: operands, confirm: opts.confirm === true },
    {
      signal: stop,
      terminal: isTerminal(0) && isTerminal(2),
      started: () => {
        if (!audit.open()) return;
        early.hashed = argsHash([...operands]);
        early.time = auditTime(t0);
      },
    },
  );
  audit.write(() => execRecord(pack, verb, operands, env, t0, early));
  audit.close();
  const code = env.ok ? 0 : env.error.code === "unknown_pack" || env.error.code === "unknown_verb" ? 64 : 1;
  if (!stop.aborted) {
    print(env, opts.json === true);
    // what the module left running may still throw: the process then ends with this code (src/cli/failure.ts onStray)
    answered(code);
    return code;
  }
  // The caller is gone: what the call left running under this process (an
  // in-process composite module's children) is stopped too, and hcpx exits
  // now, so no timer of that module can still land its write.
  await terminateDescendants(process.pid);
  print(env, opts.json === true);
  process.exit(code);
}

export function print(env: Envelope, json: boolean): void {
  if (json) {
    // JSON.stringify escapes C0 controls; writeJson escapes C1, DEL and bidi controls too, so the line is plain text
    writeJson(env, { line: true });
    return;
  }
  // Readable form: whatever the bin wrote is neutralised (ESC/CSI/OSC, C1, BEL, backspace … shown, never acted on)
  if (env.ok) {
    const d = env.data as { text?: unknown } | null;
    if (d && typeof d === "object" && !Array.isArray(d) && Object.keys(d).length === 1 && typeof d.text === "string") {
      const t = neutralise(d.text);
      sayRaw(t.endsWith("\n") || t === "" ? t : t + "\n");
    } else say(neutralise(JSON.stringify(env.data, null, 2)));
    return;
  }
  const color = useColor(process.stderr);
  const { code, message, hint, stderr_tail, ...rest } = env.error;
  // each field on its own line (neutralLine): the message quotes what the agent gave and what the pack and
  // the program said, and a newline there would forge a line of what the person reads
  let s = c.red(color, neutralLine(`error [${code}]: ${message}`)) + "\n";
  if (typeof hint === "string") s += neutralLine(`  hint: ${hint}`) + "\n";
  for (const k of ["exit_code", "signal", "status", "arg", "land"])
    if (rest[k] !== undefined && rest[k] !== null) s += c.dim(color, neutralLine(`  ${k}: ${String(rest[k])}`)) + "\n";
  if (typeof rest.body === "string" && rest.body) s += c.dim(color, neutralLine(`  body: ${rest.body}`)) + "\n";
  if (typeof stderr_tail === "string" && stderr_tail)
    s +=
      c.dim(color, "  stderr (last lines):") +
      "\n" +
      neutralise(stderr_tail)
        .split("\n")
        .slice(-10)
        .map((l) => `    ${l}`)
        .join("\n") +
      "\n";
  sayErr(s);
}
