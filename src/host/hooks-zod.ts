// The schema of a descriptor's `gate.hooks` (docs/host-descriptors.md, src/host/hooks.ts), loaded with the
// rest of the descriptor's zod schemas (./descriptor-zod.ts).
import * as z from "zod/mini";

/**
 * Where the host keeps hooks it runs before a tool call or at its permission prompt, of which one can
 * approve the call so the host never asks (Claude Code's PreToolUse `permissionDecision: "allow"` and
 * PermissionRequest `allow`; Codex's and Qwen Code's PermissionRequest). hcpx cannot know what a hook
 * script decides: while a hook of one of `events` whose matcher may select the served tool is in one
 * of the files, the host's approval is not in force, and adopt --check and doctor say so
 * (`policy_widened`).
 *  - `path`: every file the host reads hooks from in this shape (all of them: the host joins their
 *    lists), the project's, `~/…` or absolute (a managed or system file);
 *  - `key`: where the map event → [{ matcher, hooks }] is in the file (`["hooks"]`);
 *  - `events`: the events whose hooks can approve a call (never PostToolUse: the call already ran);
 *  - `name`: the tool name the host tests a matcher against, `{server}` and `{tool}` filled
 *    (`mcp__{server}__{tool}`);
 *  - `matcher`: the field of a group that holds its matcher (default `matcher`); no field selects
 *    every tool;
 *  - `all`: matchers that select every tool (default `""` and `*`);
 *  - `names`: a regular expression: a matcher wholly of its shape is a list of exact tool names,
 *    split by `split` (a regular expression, default `\|`); any other matcher is a regular
 *    expression tested anywhere in the name. A matcher hcpx cannot evaluate (one that is not a
 *    string, a regular expression JavaScript refuses) counts as selecting the tool.
 *  - `scope`: only for that scope's server; `what`: what the host reads there, said to the person.
 */
export const HookSchema = z.strictObject({
  path: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  format: z.enum(["json", "jsonc", "toml"]),
  key: z.array(z.string().check(z.minLength(1))),
  events: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  matcher: z.optional(z.string().check(z.minLength(1))),
  all: z.optional(z.array(z.string())),
  names: z.optional(z.string().check(z.minLength(1))),
  split: z.optional(z.string().check(z.minLength(1))),
  scope: z.optional(z.enum(["project", "user"])),
  what: z.string().check(z.minLength(1)),
});
