// The schema of a descriptor's `gate.hooks` (docs/host-descriptors.md, src/host/hooks.ts), loaded with the
// rest of the descriptor's zod schemas (./descriptor-zod.ts).
import * as z from "zod/mini";
import { ShapeSchema } from "./shape-zod";
export { SkippedSchema } from "./shape-zod"; // gate.skipped, loaded with gate.hooks

const rel = z.string().check(z.minLength(1));
const key = z.array(z.string().check(z.minLength(1)));

/**
 * A file of hooks in a plugin (Claude Code's `hooks/hooks.json`): `key`, where its map event → groups is
 * (`["hooks"]`); `code`, keys that name code the host loads as hooks (`modules`: a hooks module), which
 * hcpx cannot read: one that is there and not empty counts as a hook for every tool.
 */
const HooksFileSchema = z.strictObject({ key, code: z.optional(z.array(rel)) });

/**
 * The host's plugins and where their hooks are (src/host/plugin-hooks.ts; Claude Code's enabled plugins). Their
 * hooks are tested like the entry's own (its `events`, `name`, matchers); hcpx fails closed: a plugin it cannot
 * follow to its files, a file that does not parse, hooks it does not understand count as a hook for every tool.
 *  - `enabled`: the settings files that turn plugins on, the one that decides first first (`path`), and the map
 *    `<name>@<marketplace>` → on at `key` (`enabledPlugins`): the first file that names a plugin decides, `false`
 *    is off, any other value on. Names without `@` are not plugins. `honoured`: the shape (./settings-shape.ts)
 *    of a settings file hcpx can confirm the host reads; an off-value in any other file counts for nothing (the
 *    host may skip the file: the next file, or the plugin's default, decides). `own`: marketplaces of the host's
 *    own plugins, not read (`builtin`);
 *  - `installed`: the install records (`path`), the map plugin → list of records at `key`, and the field of a
 *    record that holds the plugin's folder (`folder`, an absolute path). No record: counted;
 *  - `marketplaces`: the known marketplaces (`path`), each with its folder at `folder`; its catalog is the file
 *    `catalog` below that folder (or the folder's value itself when it is a file), the plugins at `entries`, each
 *    with `name`, `source` (a path in the marketplace: the plugin is read there too; a bare name below the folder
 *    `root` names) and `hooks` (an event map written in the entry);
 *  - `dirs`: folders whose every subfolder holding a `manifest` is a plugin `<name>@<marketplace>` (Claude Code's
 *    skills folders), on unless turned off;
 *  - `files`: hooks files in a plugin's folder; `manifest`: the plugin's manifest, whose `key` holds an event map,
 *    the path of a hooks file of the shape `named` (relative to the folder, never out of it), or a list of these;
 *    `name`: the manifest's field of the plugin's name;
 *  - `what`: what the host does with them, said to the person.
 */
const PluginsSchema = z.strictObject({
  enabled: z.strictObject({ path: z.array(rel).check(z.minLength(1)), key, honoured: ShapeSchema }),
  own: z.optional(z.array(rel)),
  installed: z.strictObject({ path: rel, key, folder: rel }),
  marketplaces: z.strictObject({
    path: rel,
    folder: rel,
    catalog: rel,
    entries: key,
    name: rel,
    source: rel,
    root: key,
    hooks: rel,
  }),
  dirs: z.optional(z.array(z.strictObject({ path: rel, marketplace: rel }))),
  files: z.array(z.strictObject({ path: rel, key, code: z.optional(z.array(rel)) })),
  manifest: z.strictObject({ path: rel, key, name: rel, named: HooksFileSchema }),
  what: rel,
});

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
 *  - `scope`: only for that scope's server; `what`: what the host reads there, said to the person;
 *  - `plugins`: the host's plugins, whose hooks are tested the same way (PluginsSchema).
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
  plugins: z.optional(PluginsSchema),
});
