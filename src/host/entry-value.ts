// What an adopt plan writes into a host's MCP entry: its fields from the
// descriptor's slots (the command, args, env), and the approval rules of each
// served tool by the class of its command (read, confirm, write).
import type { Projection } from "../projection/types";
import type { Descriptor, Slot, Target } from "./descriptor";
import type { CommandClass } from "./formats";
import { expandItems } from "./formats/rules";

/**
 * The classes of one projection's commands for one server name, kept while its packs are: the hosts
 * of one plan (generate's previews, adopt of several hosts) share the packs, and so one list (~50,000
 * commands at 5,000 packs), and the rules expanded from it (src/host/formats/rules.ts expandItems).
 */
const CLASSES = new WeakMap<Projection["packs"], Map<string, CommandClass[]>>();

/** `exec`: the shell route's command as the block names it (block-route.ts shellCommandOf); none, no shell rules. */
export function commandClasses(
  projection: Projection,
  desc: Descriptor,
  scope: "project" | "user",
  exec?: string,
): CommandClass[] {
  const server = desc.servers?.[scope] ?? desc.server ?? "hcp";
  let byServer = CLASSES.get(projection.packs);
  if (byServer === undefined) CLASSES.set(projection.packs, (byServer = new Map()));
  const key = `${server}\0${exec ?? ""}`;
  let out = byServer.get(key);
  if (out === undefined) byServer.set(key, (out = classesOf(projection.packs, server, exec)));
  return out;
}

function classesOf(packs: Projection["packs"], server: string, exec: string | undefined): CommandClass[] {
  return packs.flatMap((p) =>
    p.commands.map((c) => ({
      cls:
        c.command.policy.operation === "read"
          ? ("read" as const)
          : c.command.policy.confirm
            ? ("confirm" as const)
            : ("write" as const),
      vars: {
        tool: c.toolName,
        pack: p.pack.id,
        verb: c.command.verb_key,
        server,
        ...(exec !== undefined ? { exec } : {}),
      },
    })),
  );
}

/** The MCP entry a target's `entry` describes: its fields in order, each slot filled (an empty one left out). */
export function entryValue(
  t: Target,
  served: string[],
  envVars: string[],
  desc: Descriptor,
  classes: CommandClass[],
): Record<string, unknown> {
  const slots: Record<Slot, () => unknown> = {
    command: () => served[0]!,
    args: () => served.slice(1),
    argv: () => served,
    env: () =>
      envVars.length ? Object.fromEntries(envVars.map((n) => [n, t.envSyntax!.replaceAll("VAR", n)])) : undefined,
    envNames: () => (envVars.length ? envVars : undefined),
    toolApprovals: () => (desc.toolApprovals ? toolApprovals(desc.toolApprovals, classes) : undefined),
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(t.entry!.fields)) {
    const value = typeof v === "string" ? slots[v]() : "items" in v ? expandItems(v.items, classes) : v.value;
    if (value !== undefined) out[k] = value;
  }
  return out;
}

/** Descriptor `toolApprovals` → { <tool>: { <field>: value } } for every served tool (hcp__read_skill is a read). */
export function toolApprovals(
  spec: NonNullable<Descriptor["toolApprovals"]>,
  classes: CommandClass[],
): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const c of classes) out[c.vars.tool!] = { [spec.field]: spec[c.cls] };
  out[READ_SKILL] ??= { [spec.field]: spec.read }; // a remote server that lists it otherwise is taken at its word
  return out;
}
const READ_SKILL = "hcp__read_skill";
