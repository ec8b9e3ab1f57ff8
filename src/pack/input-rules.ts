// The rules of a command's inputs (surface.json `inputs`, docs/inputs.md) and
// of its prompt's (`prompt.inputs`, docs/prompts.md): each fills one declared
// arg of a type its answer can take, one input per arg, a form has a message,
// a sampling input a prompt, and no input is keyed `confirm` (hcpx's own
// question). A prompt's input never fills an arg the command's own inputs
// fill: the tool call refuses that arg from the model, so the prompt's
// message could not pass it on. Loaded by load.ts only for a pack that
// declares inputs (a lazily run bundled module): `hcpx exec` of any other
// pack never evaluates it.
import type { ErrorCode, Problem } from "../util/errors";
import type { Command, CommandInput } from "./model";

type At = (file: string, path: (string | number)[], code: ErrorCode, message: string, hint: string) => Problem;

export function inputRuleProblems(commands: Command[], surfaceFile: string, at: At): Problem[] {
  const out: Problem[] = [];
  commands.forEach((c, i) => {
    if (c.inputs) out.push(...rulesOf(c, c.inputs, ["commands", i, "inputs"], "input", surfaceFile, at));
    if (c.prompt?.inputs) {
      out.push(...rulesOf(c, c.prompt.inputs, ["commands", i, "prompt", "inputs"], "prompt input", surfaceFile, at));
      const own = new Map(Object.entries(c.inputs ?? {}).map(([k, inp]) => [inp.arg, k]));
      for (const [key, inp] of Object.entries(c.prompt.inputs)) {
        const by = own.get(inp.arg);
        if (by !== undefined)
          out.push(
            at(
              surfaceFile,
              ["commands", i, "prompt", "inputs", key],
              "input_decl",
              `${c.verb_key}: prompt input '${key}' fills arg '${inp.arg}', which the command's input '${by}' fills: the tool call asks for it itself and refuses it from the model`,
              "leave it to the command's input, or fill another arg",
            ),
          );
      }
    }
  });
  return out;
}

function rulesOf(
  c: Command,
  inputs: Record<string, CommandInput>,
  base: (string | number)[],
  what: string,
  surfaceFile: string,
  at: At,
): Problem[] {
  const out: Problem[] = [];
  const filled = new Map<string, string>();
  for (const [key, inp] of Object.entries(inputs)) {
    const path = [...base, key];
    const bad = (msg: string, hint: string) =>
      out.push(at(surfaceFile, path, "input_decl", `${c.verb_key}: ${what} '${key}' ${msg}`, hint));
    const arg = Object.hasOwn(c.args, inp.arg) ? c.args[inp.arg] : undefined;
    if (key === "confirm")
      bad("is named 'confirm', the key of hcpx's own confirm question", "give the input another key");
    if (!arg)
      bad(
        `fills arg '${inp.arg}', which the command does not declare`,
        `declare '${inp.arg}' in args, or name one of: ${Object.keys(c.args).join(", ") || "(none)"}`,
      );
    else if (
      inp.ask === "form"
        ? !["string", "integer", "number", "boolean", "enum"].includes(arg.type)
        : arg.type !== "string"
    )
      bad(
        `fills arg '${inp.arg}' of type ${arg.type}`,
        inp.ask === "form"
          ? "a form answer fills a string, integer, number, boolean or enum arg"
          : `a ${inp.ask} answer is text: it fills a string arg`,
      );
    if (filled.has(inp.arg))
      bad(`fills arg '${inp.arg}', which ${what} '${filled.get(inp.arg)}' fills too`, "one input per arg");
    filled.set(inp.arg, key);
    if (inp.ask === "form" && !inp.message)
      bad("asks a form without a message", "add message: the question the person reads");
    if (inp.ask === "sampling" && !inp.prompt)
      bad("asks for sampling without a prompt", "add prompt: the text the client's model answers");
    if (inp.ask !== "form" && (inp.message !== undefined || inp.field !== undefined))
      bad(`sets message/field, which only a form input takes (ask is ${inp.ask})`, "remove them");
    if (inp.ask !== "sampling" && (inp.prompt !== undefined || inp.max_tokens !== undefined))
      bad(`sets prompt/max_tokens, which only a sampling input takes (ask is ${inp.ask})`, "remove them");
  }
  return out;
}
