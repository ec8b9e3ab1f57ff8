// The verb_key of an MCP server's tool: its name as lower-case words, fitted to
// the hosts' tool-name limit the one way an import fits a verb (src/openapi/names.ts
// fitVerb), and free among the pack's other verbs and the host tool names they make.
import { VERB_KEY_RE } from "../pack/schema";
import { fitVerb } from "../openapi/names";
import { MAX_SERVER_TOOL, SERVER_NAME } from "../openapi/types";

/** A tool name → a verb_key: lower-case words, `-` and `_` kept, other characters → `_`. */
export function verbFromTool(name: string): string | undefined {
  const v = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, "_")
    .replace(/\.+/g, ".")
    .split(".")
    .map((seg) => seg.replace(/^[_-]+|[_-]+$/g, ""))
    .filter(Boolean)
    .map((seg) => (/^[a-z]/.test(seg) ? seg : `t${seg}`))
    .join(".");
  return v && VERB_KEY_RE.test(v) ? v : undefined;
}

/**
 * The verb_key of the tool `name` (its natural verb `natural`): free (`taken` says which are not), and short
 * enough that `<server>` + `<pack>__<verb>` stays within the hosts' tool-name limit, shortened the one way an
 * import shortens (src/openapi/names.ts fitVerb: whole words kept from the front, a hash of the tool's full name),
 * so the same tool list always gives the same keys. The command keeps the tool's name (`tool`) for the call.
 */
export function fittedVerb(
  natural: string,
  name: string,
  id: string,
  taken: (v: string) => boolean,
  notes: string[],
): string {
  const verb = fitVerb(natural, id, name);
  if (taken(verb)) {
    let n = 2;
    let v = fitVerb(`${natural}-${n}`, id, `${name}#${n}`);
    while (taken(v)) v = fitVerb(`${natural}-${++n}`, id, `${name}#${n}`);
    notes.push(`tool '${name}': verb_key '${verb}' was taken, named '${v}'`);
    return v;
  }
  if (verb !== natural)
    notes.push(
      `tool '${name}': verb_key shortened to '${verb}' (a host tool name, server '${SERVER_NAME}' + '${id}__<verb>', stays within ${MAX_SERVER_TOOL} characters: ${MAX_SERVER_TOOL - SERVER_NAME.length - id.length - 2} for the verb; a shorter pack id, --id, leaves more); the command calls the tool by its full name`,
    );
  return verb;
}
