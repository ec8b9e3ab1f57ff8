// An arg's `default` is a value the arg takes as it stands (docs/pack-format.md):
// of its type (a whole number for `integer`), one of an enum's `values` (the
// same JSON value, not its text), never an array's or object's, and in a wrap
// pack not starting with `-` unless the arg allows it (src/runtime/wrap.ts
// refuses that value). The tool schemas advertise the default as written and
// the runtime fills it in when a call omits the arg, so a default that is not a
// value would be advertised and then fail every such call: the pack does not
// load (load.ts), and lint, generate, mcp and exec say so alike.
import type { ErrorCode, Problem } from "../util/errors";
import type { Command } from "./model";
import type { ArgSpec } from "./schema";

type At = (file: string, path: (string | number)[], code: ErrorCode, message: string, hint: string) => Problem;

/** Why `d` is not a value of `spec` (undefined: it is one). `wrap`: the arg is passed on a bin's argv. */
export function defaultProblem(spec: ArgSpec, d: string | number | boolean, wrap: boolean): string | undefined {
  const is = (ok: boolean, what: string) => (ok ? undefined : `is not ${what}`);
  let why: string | undefined;
  switch (spec.type) {
    case "string":
      why = is(typeof d === "string", "a string");
      break;
    case "integer":
      why = is(typeof d === "number" && Number.isSafeInteger(d), "a whole number");
      break;
    case "number":
      why = is(typeof d === "number" && Number.isFinite(d), "a number");
      break;
    case "boolean":
      why = is(typeof d === "boolean", "true or false");
      break;
    case "enum":
      why = is(
        (spec.values ?? []).some((v) => v === d),
        `one of its values (${(spec.values ?? []).map((v) => JSON.stringify(v)).join(", ")})`,
      );
      break;
    case "array":
    case "object":
      why = `is not a JSON ${spec.type}`;
      break;
    case "json":
      break;
  }
  if (!why && wrap && !spec.allow_dash && String(d).startsWith("-"))
    why = "starts with '-', which the bin would read as an option (the arg has no allow_dash: true)";
  return why;
}

/** The surface's args whose default is not a value of the arg. `commands[i]` is `commands[i]` of surface.json. */
export function argRuleProblems(commands: Command[], wrap: boolean, surfaceFile: string, at: At): Problem[] {
  const out: Problem[] = [];
  commands.forEach((c, i) => {
    if (c.passThrough) return;
    for (const [name, spec] of Object.entries(c.args)) {
      if (spec.default === undefined) continue;
      const why = defaultProblem(spec, spec.default, wrap);
      if (why)
        out.push(
          at(
            surfaceFile,
            ["commands", i, "args", name, "default"],
            "arg_default",
            `${c.verb_key}: the default ${JSON.stringify(spec.default)} of arg '${name}' ${why}: every call without '${name}' would fail`,
            `give a default of type ${spec.type}${spec.type === "enum" ? " that is one of its values, as written there" : ""}, or drop it`,
          ),
        );
    }
  });
  return out;
}
