// 6a. A Binding value too short to hide (docs/output-safety.md "Binding values are never shown"): the
// redaction hides a value of SHORT_SECRET characters or more wherever it appears, a shorter one as a whole
// word only (hidden by substring, a value "a" would hide that letter in every word). So a shorter value is
// never handed to a pack: the call is refused before its program, server, request or module starts, and
// nothing of it can come back glued inside other text. The refusal names the variable, never the value.
// Checked for every call (execute.ts gate 6a) and wherever an mcp pack's server is reached outside one
// (mcp-adapter.ts serverRef: doctor, pack from-mcp --update).
import { failure, type Envelope } from "./envelope";
import { SHORT_SECRET } from "../util/redact";

/** The refusal of a call whose Binding holds a value of 1 to SHORT_SECRET - 1 characters, or undefined; `names`: the pack's Binding names (bindingNames), `values`: its kind's other credentials (a base URL's password). */
export function shortBinding(
  id: string,
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  values: readonly string[] = [],
): Envelope | undefined {
  const short = (v: string | undefined) => v !== undefined && v !== "" && [...v].length < SHORT_SECRET;
  const name = names.find((n) => short(env[n]));
  const what = name ?? (values.some(short) ? "the password in its base URL" : undefined);
  if (what === undefined) return undefined;
  return failure(
    "binding_too_short",
    `pack ${id}: the Binding value of ${what} is shorter than ${SHORT_SECRET} characters, too short to hide in what the pack prints; nothing was run`,
    {
      hint: `set ${name ?? "it"} to the real credential; a value that is not a secret does not belong in the pack's Binding`,
    },
  );
}
