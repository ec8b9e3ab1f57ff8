// Hooks that may approve a tool call (descriptor `gate.hooks`): Claude Code runs a PreToolUse hook before
// each call and a PermissionRequest hook at its permission prompt, and either may answer "allow", so that
// Claude Code never asks; Codex and Qwen Code run PermissionRequest hooks the same way. hcpx cannot know
// what a hook script decides: while a hook of such an event whose matcher may select the served tool is
// in a file the host reads, the host's prompt is not the person's question (src/host/approval.ts: hcpx
// asks itself), and adopt --check and doctor name the file, the event and the matcher
// (src/host/health.ts, `policy_widened`). Fail closed: a matcher hcpx cannot evaluate selects the tool.
// An entry's `plugins`: the hooks of the host's plugins that are on (src/host/plugin-hooks.ts), tested the same
// way; a plugin hcpx cannot follow to its files counts as a hook for every tool.
import type { Descriptor } from "./descriptor";
import type { Scope } from "./adopt-types";
import { readEntry, type Entry } from "../util/fsio";
import { hostValueAt } from "./value-at";
import { isObj } from "../util/is";
import type { Problem } from "../util/errors";
import { pluginHooks } from "./plugin-hooks";

export type Hook = NonNullable<NonNullable<Descriptor["gate"]>["hooks"]>[number];

/** One hook group that may approve served tools: where it is, its event, its matcher, and which of the tools. */
export interface HookFound {
  hook: Hook;
  /** the file as the descriptor names it */
  file: string;
  event: string;
  /** the group's matcher (undefined: none, every tool) */
  matcher: unknown;
  /** the tools asked about that it may select (as the server serves them: `ledger__transfer`) */
  tools: string[];
  /** a plugin's hooks (`gate.hooks[].plugins`): the plugin, `<name>@<marketplace>` */
  plugin?: string;
  /** hcpx cannot tell what the plugin's file holds: why (it counts for every tool) */
  why?: string;
  /** an off-value of the plugin that counted for nothing, and why */
  note?: string;
}

/**
 * The hook groups of `d` that may approve one of `tools` (the names the server serves them under,
 * `ledger__transfer`) for a server of `scope` named `server`: in every file of each `gate.hooks` entry
 * (`abs` turns the descriptor's path into the file), each group of an approving event whose matcher may
 * select one of them; and the same of the entry's `plugins` (a plugin hcpx cannot follow: found, with why,
 * for every tool). Each file is read once, whatever the number of tools. A settings file that does not
 * parse, or a duplicate key on the way, throws (the approval: not in force).
 */
export async function approvingHooks(
  d: Descriptor,
  o: {
    scope: Scope;
    abs: (p: string) => string;
    server: string;
    tools: readonly string[];
    /** readEntry, or one check's cache of it (the approval check has read the settings files already) */
    read?: (file: string) => Entry;
  },
): Promise<HookFound[]> {
  const out: HookFound[] = [];
  const read = o.read ?? readEntry;
  for (const hook of d.gate?.hooks ?? []) {
    if (hook.scope !== undefined && hook.scope !== o.scope) continue;
    const named = o.tools.map((tool) => ({
      tool,
      name: hook.name.replaceAll("{server}", o.server).replaceAll("{tool}", tool),
    }));
    // the groups of an event map that may approve one of the tools (a plugin's: `plugin` says which)
    const test = (events: unknown, file: string, plugin?: string, note?: string) => {
      const of = { ...(plugin === undefined ? {} : { plugin }), ...(note === undefined ? {} : { note }) };
      // hooks that are not a map of events: hcpx cannot tell which run (counted, for every tool)
      if (!isObj(events)) {
        out.push({ hook, file, event: hook.key.join("."), matcher: undefined, tools: [...o.tools], ...of });
        return;
      }
      for (const event of hook.events) {
        if (!Object.hasOwn(events, event)) continue;
        const groups = events[event];
        for (const g of Array.isArray(groups) ? groups : [groups]) {
          const matcher = isObj(g) ? g[hook.matcher ?? "matcher"] : g;
          const tools = named.filter((n) => !isObj(g) || selects(hook, matcher, n.name)).map((n) => n.tool);
          if (tools.length) out.push({ hook, file, event, matcher, tools, ...of });
        }
      }
    };
    for (const file of hook.path) {
      const e = read(o.abs(file));
      if (e.kind === "absent") continue;
      if (e.kind !== "file") throw new Error(`${file} cannot be read`); // a folder, a file hcpx may not read
      const events = await hostValueAt(e.text, hook.format, hook.key, file);
      if (events !== undefined) test(events, file);
    }
    // the hooks of the host's plugins that are on; what hcpx cannot follow counts for every tool
    if (!hook.plugins) continue;
    for (const f of await pluginHooks(hook.plugins, { abs: o.abs, read, format: hook.format })) {
      if (f.why === undefined) test(f.map, f.file, f.plugin, f.note);
      else
        out.push({
          hook,
          file: f.file,
          event: "",
          matcher: undefined,
          tools: [...o.tools],
          plugin: f.plugin,
          why: f.why,
          ...(f.note === undefined ? {} : { note: f.note }),
        });
    }
  }
  return out;
}

/**
 * Does a group's matcher select the tool named `name`, as the host tests it? No matcher, or one of `all`:
 * every tool. A matcher of the shape `names`: a list of exact names. Any other: a regular expression
 * tested anywhere in the name. Not a string, or a regular expression JavaScript refuses: selects it
 * (hcpx cannot tell). Tested as written and trimmed (Qwen Code trims it; either counts).
 */
export function selects(hook: Hook, matcher: unknown, name: string): boolean {
  if (matcher === undefined || matcher === null) return true;
  if (typeof matcher !== "string") return true;
  const all = hook.all ?? ["", "*"];
  for (const m of new Set([matcher, matcher.trim()])) {
    if (all.includes(m)) return true;
    try {
      if (hook.names !== undefined && new RegExp(hook.names).test(m)) {
        const split = new RegExp(hook.split ?? "\\|");
        if (m.split(split).some((n) => n.trim() === name)) return true;
        continue;
      }
      if (new RegExp(m).test(name)) return true;
    } catch {
      return true;
    }
  }
  return false;
}

/** How a found hook is shown: `PreToolUse hook (matcher "mcp__hcp__.*")`. */
function hookShown(f: HookFound): string {
  const m = f.matcher === undefined ? "no matcher: every tool" : `matcher ${JSON.stringify(f.matcher)}`;
  return `a ${f.event} hook (${m})`;
}

/** What adopt --check and doctor say of a hook that may approve a gated write: `policy_widened`. */
export function hookProblem(d: Descriptor, f: HookFound, tools: string[]): Problem {
  const tool = tools.length === 1 ? tools[0]! : `the gated tools ${tools.join(", ")}`;
  const asks = `so it does not count ${d.name}'s prompt for a write the Policy gates with confirm: it asks the person itself where it can`;
  const p = f.hook.plugins;
  if (f.plugin !== undefined && p) {
    const sure = f.note === undefined ? "" : ": a file of plain JSON holding only keys hcpx checks";
    const off = `turn the plugin off (${JSON.stringify(f.plugin)}: false at ${p.enabled.key.join(".")} in one of ${d.name}'s settings files${sure})`;
    const message =
      f.why !== undefined
        ? `${d.name}: the enabled plugin ${f.plugin}: ${f.file} ${f.why}. hcpx cannot tell whether a hook of it may ` +
          `select ${tool} (${p.what}), so it counts as one that does, ${asks}`
        : `${d.name}: the enabled plugin ${f.plugin} has ${hookShown(f)} in ${f.file} that may select ${tool}: ` +
          `${p.what}. hcpx cannot know what the hook decides, ${asks}`;
    const noted = f.note === undefined ? message : `${message}. ${f.note}`;
    const hint =
      f.why !== undefined
        ? `${off}, or fix what hcpx cannot read, or accept that hcpx asks for gated writes itself`
        : `${off}, or give its hook a matcher that does not select the gated tools, or accept that hcpx asks for gated writes itself`;
    return { code: "policy_widened", severity: "warning", file: f.file, message: noted, hint };
  }
  return {
    code: "policy_widened",
    severity: "warning",
    file: f.file,
    message:
      `${d.name}: ${f.file} has ${hookShown(f)} that may select ${tool}: ${f.hook.what}. hcpx cannot know ` +
      `what the hook decides, ${asks}`,
    hint: `give the hook a matcher that does not select the gated tools (or remove it), or accept that hcpx asks for gated writes itself`,
  };
}
