// A tool call's name and input → the runtime's request (pack, verb, args,
// argv, confirm), or the bad_args / unknown_verb envelope that says why not:
// the single shape's `hcp` input, a per-command tool of the view (its name
// mapped by the view, its input read by the command as its pack's files are
// now), and (the library) a `<pack>__<verb>` name the view does not serve, for
// the runtime to judge in hcpx exec's words. Nothing here decides what may run.
import { findPack } from "../pack/load";
import { toolName, type Command, type Project } from "../pack/model";
import { failure, type Envelope } from "../runtime/envelope";
import type { ExecRequest } from "../runtime/execute";
import { isObj } from "../util/is";
import type { ExportView } from "./view";

const isArgv = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/** The `hcp` tool's input → a runtime request (or a bad_args envelope). */
export function requestFromHcp(input: Record<string, unknown>): ExecRequest | Envelope {
  const { pack, verb, args, confirm, argv, ...rest } = input;
  const extra = Object.keys(rest);
  if (extra.length)
    return failure("bad_args", `unknown input ${extra.map((k) => `'${k}'`).join(", ")} for tool hcp`, {
      hint: "hcp takes {pack, verb, args, confirm}; put the verb's own args inside args",
    });
  if (typeof pack !== "string" || !pack)
    return failure("bad_args", "'pack' must be a pack id (string)", {
      hint: "see the pack list in the hcp tool description",
    });
  if (typeof verb !== "string" || !verb)
    return failure("bad_args", "'verb' must be a verb_key (string)", {
      hint: "see the pack list in the hcp tool description",
    });
  if (args !== undefined && !isObj(args))
    return failure("bad_args", "'args' must be an object of the verb's args", {
      hint: 'e.g. {"account": "checking"}; pass-through verbs take argv: ["…"]',
    });
  if (confirm !== undefined && typeof confirm !== "boolean")
    return failure("bad_args", "'confirm' must be true or false");
  // The schema (src/projection/tools.ts shellTool) has a pass-through argv at the top
  // level; models also put it in args.argv. Accept either, not both.
  if (argv !== undefined) {
    if (!isArgv(argv)) return failure("bad_args", "'argv' must be an array of strings");
    if (args && "argv" in args) return failure("bad_args", "give the pass-through argv once: args.argv or argv");
    return split(pack, verb, { ...(args ?? {}), argv }, confirm === true);
  }
  return split(pack, verb, args ?? {}, confirm === true);
}

function split(pack: string, verb: string, args: Record<string, unknown>, confirm: boolean): ExecRequest {
  // An array-valued `argv` can only be a pass-through argv: declared args are scalars.
  if (isArgv(args.argv)) {
    const { argv, ...named } = args;
    return { pack, verb, args: named, argv: argv as string[], confirm };
  }
  return { pack, verb, args, confirm };
}

/** A per-command tool's call: the pack and verb its name maps to in the view, and its input as given. */
export interface ToolCall {
  pack: string;
  verb: string;
  input: Record<string, unknown>;
}

/**
 * A per-command tool's name → its pack and verb. `view` is asked first; on a
 * miss, `refreshed()` rebuilds it when a file changed and returns the view to
 * ask again (undefined: nothing changed). Only the mapping comes from the
 * view: requestFromTool reads the input by the command as its files are now.
 */
export function toolCallOf(
  view: ExportView,
  name: string,
  input: Record<string, unknown>,
  refreshed: () => ExportView | undefined,
): ToolCall | Envelope {
  let hit = view.byTool.get(name);
  if (!hit) hit = refreshed()?.byTool.get(name);
  if (!hit)
    return failure("unknown_verb", `no tool '${name}' (not a granted command of an activated pack)`, {
      hint: "list the tools again; hcpx only serves granted commands",
    });
  return { pack: hit.pack, verb: hit.verb, input };
}

/**
 * A per-command tool's call → a runtime request. `command`: the one called, as its pack's files are now
 * (undefined: gone or not granted now; execute() says why nothing runs).
 */
export function requestFromTool(call: ToolCall, command: Command | undefined): ExecRequest | Envelope {
  const { confirm, ...rest } = call.input;
  // `confirm` is the tool-call confirm unless the command declares an arg of that name.
  if (command && "confirm" in command.args) return split(call.pack, call.verb, call.input, false);
  if (confirm !== undefined && typeof confirm !== "boolean")
    return failure("bad_args", "'confirm' must be true or false");
  return split(call.pack, call.verb, rest, confirm === true);
}

/** A tool name `<pack>__<verb>` as a request for the runtime to judge (not granted, no such pack or verb); undefined when it names no one command. */
export function requestByName(
  project: () => Project,
  name: string,
  input: Record<string, unknown>,
): ExecRequest | undefined {
  const cut = name.indexOf("__");
  if (cut <= 0) return undefined;
  const packId = name.slice(0, cut);
  let verb = name.slice(cut + 2);
  let declared = false;
  try {
    const pack = findPack(project(), packId);
    const hits = pack.commands.filter((c) => toolName(pack.id, c.verb_key) === name);
    if (hits.length > 1) return undefined;
    if (hits[0]) [verb, declared] = [hits[0].verb_key, "confirm" in hits[0].args];
  } catch {
    // an unknown or broken pack: execute() says which
  }
  const { confirm: _c, ...rest } = input;
  return split(packId, verb, declared ? input : rest, false);
}
