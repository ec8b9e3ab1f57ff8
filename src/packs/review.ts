// What a person must see before a pack from elsewhere is trusted, and what
// changed between two versions of one. A pack's reach is: the programs it
// starts (wrap.bin, mcp.bin + mcp.args) and from where they resolve, code it
// loads in-process (composite.module), where it sends HTTP (openapi), the
// environment names it reads (binding.env, openapi.auth.env) or sets
// (agent_env), and its Policy (which commands write, which need a confirm).
import { isAbsolute, resolve } from "node:path";
import type { Command, Pack, Project } from "../pack/model";
import { display } from "../util/paths";
import { ADAPTERS, adapterOf, type AdapterEntry } from "../pack/adapters/index";
import { neutralLine as o } from "../util/neutral";

export interface Reach {
  kind: string;
  /** programs it starts: the bin as written, and what it resolves to here */
  bins: { bin: string; field: string; args?: string[]; resolves: string }[];
  /** code loaded into the hcpx process */
  modules: string[];
  /** where HTTP requests go */
  http: string[];
  /** environment names read from the runtime (secrets: redacted from output) */
  env: string[];
  /** environment names it sets for its bin */
  setsEnv: string[];
  /** passThrough: a pass-through verb, which runs the agent's own argv (at most maxArgv words), options included */
  commands: {
    verb: string;
    operation: "read" | "write";
    confirm: boolean;
    land?: string;
    inferred: boolean;
    passThrough?: { maxArgv: number };
    runs?: string;
  }[];
  /** reach.network: endpoints its program talks to, and which calls get the network under sandbox.enforce "os" */
  network: string[];
  networkFor: string[];
  /** reach.paths: hidden paths (HOME's secrets) its program reads */
  paths: string[];
  /** reach.unix_sockets: its program connects to unix sockets (under sandbox.enforce "os": any it can see) */
  unixSockets?: true;
  /** kind mcp: the pins of the server's tools (what was reviewed of each: src/runtime/mcp-pins.ts) */
  pins?: Record<string, Record<string, string>>;
}

/** reach.unix_sockets, as the review says it */
const UNIX_SOCKETS =
  "connects to unix sockets (reach.unix_sockets: under sandbox.enforce \"os\" any it can see, a database's, an agent's, a container engine's)";

function resolvesTo(pack: Pack, project: Project | undefined, bin: string): string {
  if (!bin.includes("/") && !bin.includes("\\")) {
    const mapped = project?.sandbox.bins[bin];
    return mapped
      ? `sandbox.bins.${bin} → ${mapped}`
      : `not in sandbox.bins: refused until you add sandbox.bins.${bin} (never looked up on PATH)`;
  }
  const abs = isAbsolute(bin) ? bin : resolve(pack.dir, bin);
  return `${display(abs)}${abs.startsWith(pack.dir) ? " (inside the pack)" : ""}`;
}

/**
 * What a command runs, as an update compares it across versions: its argv (cli[] after the CLI name, or the wrap's
 * argv_template), the server's tool (mcp), its method and path (openapi), and how its args reach the argv (a flag,
 * a value that may start with '-'). The same verb and Policy row with another of these runs something else.
 */
function runsOf(s: Pack["surface"], c: Command): string {
  const parts: string[] = [];
  // a command without cli[] of a pack with a wrap section runs the section's argv_template ({{verb}} when it has none)
  const wrap = (s as { wrap?: { argv_template?: string[] } }).wrap;
  const template = wrap && !c.passThrough ? (wrap.argv_template ?? ["{{verb}}"]) : undefined;
  const argv = c.cli ? c.cli.slice(1) : template;
  if (argv) parts.push(`argv ${argv.join(" ")}`);
  if (c.tool !== undefined) parts.push(`tool ${c.tool}`);
  if (c.http) parts.push(`${c.http.method} ${c.http.path}`);
  for (const name of Object.keys(c.args).sort()) {
    const a = c.args[name]!;
    if (a.flag) parts.push(`${name} as ${a.flag}`);
    if (a.allow_dash) parts.push(`${name} may start with '-'`);
  }
  return parts.join("; ");
}

export function reachOf(pack: Pack, project?: Project): Reach {
  const s = pack.surface;
  const bins: Reach["bins"] = [];
  const env = [...(s.binding?.env ?? [])];
  const modules: string[] = [];
  const http: string[] = [];
  const setsEnv: string[] = [];
  // every entry of the adapter table says what its own section reaches
  for (const a of ADAPTERS as readonly AdapterEntry[]) {
    const r = a.review?.(s) ?? {};
    for (const b of r.bins ?? []) bins.push({ ...b, resolves: resolvesTo(pack, project, b.bin) });
    for (const n of r.env ?? []) if (!env.includes(n)) env.push(n);
    modules.push(...(r.modules ?? []));
    http.push(...(r.http ?? []));
    setsEnv.push(...(r.setsEnv ?? []));
  }
  return {
    kind: s.kind,
    bins,
    modules,
    http,
    env: env.sort(),
    setsEnv: setsEnv.sort(),
    commands: pack.commands.map((c) => ({
      verb: c.verb_key,
      operation: c.policy.operation,
      confirm: c.policy.confirm,
      ...(c.policy.land ? { land: c.policy.land } : {}),
      inferred: c.policy.inferred,
      ...(c.passThrough ? { passThrough: { maxArgv: c.passThrough.maxArgv } } : {}),
      runs: runsOf(s, c),
    })),
    network: [...(s.reach?.network ?? [])],
    networkFor: s.reach?.network?.length ? [...(s.reach.network_for ?? ["remote", "external"])] : [],
    paths: [...(s.reach?.paths ?? [])],
    ...(s.reach?.unix_sockets ? { unixSockets: true as const } : {}),
    ...(s.mcp?.pins ? { pins: s.mcp.pins } : {}),
  };
}

/** The review's lines; every field from the pack is kept on its line (src/util/neutral.ts neutralLine), so a newline in it cannot forge one. */
export function reachLines(r: Reach): string[] {
  const lines = [`  kind: ${o(r.kind)}`];
  for (const b of r.bins)
    lines.push(
      `  runs: ${o(b.bin)}${b.args?.length ? ` ${b.args.map(o).join(" ")}` : ""}  (${b.field}: ${o(b.resolves)})`,
    );
  for (const m of r.modules)
    lines.push(`  loads code into hcpx: ${o(m)} (composite.module, runs in-process with hcpx's rights)`);
  for (const h of r.http) lines.push(`  sends HTTP to: ${o(h)}`);
  lines.push(`  reads env: ${r.env.length ? r.env.map(o).join(", ") : "none"}`);
  if (r.setsEnv.length) lines.push(`  sets env for its program: ${r.setsEnv.map(o).join(", ")}`);
  if (r.network.length)
    lines.push(
      `  network: ${r.network.map(o).join(", ")} for its ${r.networkFor.join(", ")} calls (under sandbox.enforce "os" a declared network is the host's whole network: not filtered by host)`,
    );
  if (r.paths.length) lines.push(`  reads paths hcpx hides (HOME's secrets): ${r.paths.map(o).join(", ")}`);
  if (r.unixSockets) lines.push(`  ${UNIX_SOCKETS}`);
  if (adapterOf(r.kind)?.capabilities.serverTools)
    lines.push(
      `  its MCP server is one process serving every verb: under sandbox.enforce "os" it runs with the widest land among the verbs you grant`,
    );
  const writes = r.commands.filter((c) => c.operation === "write");
  lines.push(
    `  commands: ${r.commands.length} (${r.commands.length - writes.length} read, ${writes.length} write${writes.filter((c) => !c.confirm).length ? `, ${writes.filter((c) => !c.confirm).length} without confirm` : ""})`,
  );
  for (const c of writes)
    lines.push(
      `    write ${o(c.verb)}${c.land ? ` (${o(c.land)})` : ""}${c.confirm ? ", confirm" : ", NO confirm"}${c.inferred ? ", inferred" : ""}`,
    );
  for (const c of r.commands.filter((c) => c.passThrough))
    lines.push(
      `    pass-through ${o(c.verb)} (${c.operation}): ${passThroughText(c.passThrough!)}; granted by a person only (\`hcpx grant\`)`,
    );
  return lines;
}

/** One command's Policy as it decides what runs: a read has no land and no confirm; a pass-through verb runs the agent's own argv. */
export interface PolicyView {
  operation: "read" | "write";
  land?: string;
  confirm?: boolean;
  passThrough?: { maxArgv: number };
}

/** A command present before and after whose operation, land or confirm changed. */
export interface PolicyChange {
  verb: string;
  from: PolicyView;
  to: PolicyView;
  /** how the change widens what runs without a person's say (empty: a narrowing) */
  widened: string[];
}

export interface ReachDiff {
  /** every change of operation, land or confirm of a command kept across versions */
  changed: PolicyChange[];
  /** commands that are writes now and were not (new, or were reads) */
  newWrites: string[];
  /** writes without confirm now that were not (new, were reads, or lost their confirm) */
  newConfirmless: string[];
  newReads: string[];
  /** new commands (in newReads or newWrites) that are pass-through verbs: never granted by default */
  newPassThrough?: string[];
  removed: string[];
  newBins: string[];
  newEnv: string[];
  newSetsEnv: string[];
  newModules: string[];
  newHttp: string[];
  /** reach.network endpoints, or calls given the network, new in this version */
  newNetwork: string[];
  newPaths: string[];
  kindChanged?: { from: string; to: string };
  /** kind mcp: tools pinned anew (the server's tool changed and the new version accepted it), with the fields that changed */
  repinned?: { tool: string; fields: string[] }[];
  /** commands kept across versions that run something else now (runsOf: argv, tool, method and path, flags, allow_dash) */
  rerun?: { verb: string; from: string; to: string }[];
}

/** Where a write lands, narrowest first; a write without a land could land anywhere. */
const LAND_RANK: Record<string, number> = { local: 0, remote: 1, external: 2 };
const landRank = (land: string | undefined): number =>
  land !== undefined && Object.hasOwn(LAND_RANK, land) ? LAND_RANK[land]! : 3;

function policyView(c: Reach["commands"][number]): PolicyView {
  const pt = c.passThrough ? { passThrough: { maxArgv: c.passThrough.maxArgv } } : {};
  return c.operation === "read"
    ? { operation: "read", ...pt }
    : { operation: "write", ...(c.land ? { land: c.land } : {}), confirm: c.confirm, ...pt };
}

const sameView = (a: PolicyView, b: PolicyView) =>
  a.operation === b.operation &&
  a.land === b.land &&
  a.confirm === b.confirm &&
  a.passThrough?.maxArgv === b.passThrough?.maxArgv;

const passThroughText = (p: { maxArgv: number }) => `pass-through (the agent's argv, up to ${p.maxArgv})`;

/** How `to` widens `from`: what a grant given for `from` would now let run unasked. */
export function widening(from: PolicyView, to: PolicyView): string[] {
  const w: string[] = [];
  if (from.operation === "write" && to.operation === "read") w.push("write → read");
  if (from.operation === "read" && to.operation === "write") w.push("read → write");
  if (from.operation === "write" && from.confirm && !(to.operation === "write" && to.confirm))
    w.push("confirm dropped");
  if (from.operation === "write" && to.operation === "write" && landRank(to.land) > landRank(from.land))
    w.push(`land ${from.land ?? "not declared"} → ${to.land ?? "not declared"}`);
  // a pass-through verb runs the agent's own argv, options included: its row cannot vouch for what that does
  if (to.passThrough && !from.passThrough) w.push("named → pass-through");
  if (to.passThrough && from.passThrough && to.passThrough.maxArgv > from.passThrough.maxArgv)
    w.push(`maxArgv ${from.passThrough.maxArgv} → ${to.passThrough.maxArgv}`);
  return w;
}

export function viewText(v: PolicyView): string {
  const op =
    v.operation === "read"
      ? "read"
      : `write (${v.land ?? "land not declared"}, ${v.confirm ? "confirm" : "no confirm"})`;
  return v.passThrough ? `${op}, ${passThroughText(v.passThrough)}` : op;
}

const binKey = (b: Reach["bins"][number]) => `${b.bin}${b.args?.length ? ` ${b.args.join(" ")}` : ""}`;

export function diffReach(before: Reach, after: Reach): ReachDiff {
  const old = new Map(before.commands.map((c) => [c.verb, c]));
  const now = new Map(after.commands.map((c) => [c.verb, c]));
  const d: ReachDiff = {
    changed: [],
    newWrites: [],
    newConfirmless: [],
    newReads: [],
    removed: [],
    newBins: [],
    newEnv: [],
    newSetsEnv: [],
    newModules: [],
    newHttp: [],
    newNetwork: [],
    newPaths: [],
  };
  for (const c of after.commands) {
    const o = old.get(c.verb);
    if (o) {
      const from = policyView(o);
      const to = policyView(c);
      if (!sameView(from, to)) d.changed.push({ verb: c.verb, from, to, widened: widening(from, to) });
      if (o.runs !== undefined && c.runs !== undefined && o.runs !== c.runs)
        (d.rerun ??= []).push({ verb: c.verb, from: o.runs, to: c.runs });
    }
    if (c.operation === "write") {
      if (!o || o.operation === "read") d.newWrites.push(c.verb);
      if (!c.confirm && (!o || o.operation === "read" || o.confirm)) d.newConfirmless.push(c.verb);
    } else if (!o) d.newReads.push(c.verb);
    if (!o && c.passThrough) (d.newPassThrough ??= []).push(c.verb);
  }
  for (const c of before.commands) if (!now.has(c.verb)) d.removed.push(c.verb);
  const oldBins = new Set(before.bins.map(binKey));
  d.newBins = after.bins.map(binKey).filter((b) => !oldBins.has(b));
  d.newEnv = after.env.filter((e) => !before.env.includes(e));
  d.newSetsEnv = after.setsEnv.filter((e) => !before.setsEnv.includes(e));
  d.newModules = after.modules.filter((m) => !before.modules.includes(m));
  d.newHttp = after.http.filter((h) => !before.http.includes(h));
  // a Reach from an older hcp.lock may lack the sandbox fields: nothing declared then
  d.newNetwork = [
    ...(after.network ?? []).filter((n) => !(before.network ?? []).includes(n)),
    ...(after.networkFor ?? []).filter((n) => !(before.networkFor ?? []).includes(n)).map((k) => `${k} calls`),
    ...(after.unixSockets && !before.unixSockets ? [UNIX_SOCKETS] : []),
  ];
  d.newPaths = (after.paths ?? []).filter((p) => !(before.paths ?? []).includes(p));
  if (before.kind !== after.kind) d.kindChanged = { from: before.kind, to: after.kind };
  const repinned: { tool: string; fields: string[] }[] = [];
  for (const [tool, pin] of Object.entries(after.pins ?? {})) {
    const was = before.pins && Object.hasOwn(before.pins, tool) ? before.pins[tool]! : undefined;
    const fields = was ? Object.keys(pin).filter((f) => pin[f] !== was[f]) : ["not pinned before"];
    if (fields.length) repinned.push({ tool, fields });
  }
  if (repinned.length) d.repinned = repinned;
  return d;
}

export function diffEmpty(d: ReachDiff): boolean {
  return (
    !d.kindChanged &&
    !d.repinned?.length &&
    !d.rerun?.length &&
    [
      d.changed,
      d.newWrites,
      d.newConfirmless,
      d.newReads,
      d.removed,
      d.newBins,
      d.newEnv,
      d.newSetsEnv,
      d.newModules,
      d.newHttp,
      d.newNetwork,
      d.newPaths,
    ].every((x) => x.length === 0)
  );
}

/** The commands whose grants an update must withdraw: new writes, lost confirms, any widening. */
export function widenedVerbs(d: ReachDiff): string[] {
  return [
    ...new Set([
      ...d.newWrites,
      ...d.newConfirmless,
      ...d.changed.filter((ch) => ch.widened.length).map((ch) => ch.verb),
    ]),
  ];
}

export function diffLines(d0: ReachDiff): string[] {
  // every field from the pack kept on its line, as in reachLines
  const d: ReachDiff = {
    ...d0,
    newWrites: d0.newWrites.map(o),
    newConfirmless: d0.newConfirmless.map(o),
    newReads: d0.newReads.map(o),
    removed: d0.removed.map(o),
    newBins: d0.newBins.map(o),
    newEnv: d0.newEnv.map(o),
    newSetsEnv: d0.newSetsEnv.map(o),
    newModules: d0.newModules.map(o),
    newHttp: d0.newHttp.map(o),
    newNetwork: d0.newNetwork.map(o),
    newPaths: d0.newPaths.map(o),
    changed: d0.changed.map((ch) => ({ ...ch, verb: o(ch.verb) })),
    ...(d0.kindChanged ? { kindChanged: { from: o(d0.kindChanged.from), to: o(d0.kindChanged.to) } } : {}),
  };
  const l: string[] = [];
  if (d.kindChanged) l.push(`  kind: ${d.kindChanged.from} → ${d.kindChanged.to}`);
  for (const ch of d.changed)
    l.push(
      `  ~ ${ch.verb}: ${viewText(ch.from)} → ${viewText(ch.to)}${ch.widened.length ? `  (widens: ${ch.widened.join(", ")}; any grant of it is withdrawn)` : ""}`,
    );
  for (const v of d.newWrites.filter((v) => !d.changed.some((ch) => ch.verb === v)))
    l.push(`  + new write: ${v}${d.newConfirmless.includes(v) ? " (without confirm)" : ""}`);
  for (const v of d.newConfirmless.filter((v) => !d.newWrites.includes(v) && !d.changed.some((ch) => ch.verb === v)))
    l.push(`  + write without confirm now: ${v}`);
  const pt = new Set((d0.newPassThrough ?? []).map(o));
  for (const v of d.newReads)
    l.push(
      `  + new read: ${v}${pt.has(v) ? " (pass-through: the agent's own argv, options included; not granted until a person does)" : ""}`,
    );
  for (const v of d.removed) l.push(`  - removed: ${v}`);
  for (const b of d.newBins) l.push(`  + new program: ${b}`);
  for (const e of d.newEnv) l.push(`  + reads env: ${e}`);
  for (const e of d.newSetsEnv) l.push(`  + sets env: ${e}`);
  for (const m of d.newModules) l.push(`  + loads code: ${m}`);
  for (const h of d.newHttp) l.push(`  + sends HTTP to: ${h}`);
  for (const n of d.newNetwork) l.push(`  + network: ${n}`);
  for (const p of d.newPaths) l.push(`  + reads hidden path: ${p}`);
  for (const r of d0.rerun ?? [])
    l.push(`  ~ ${o(r.verb)}: runs ${o(r.to) || "nothing of its own"} (was ${o(r.from) || "nothing of its own"})`);
  for (const p of d.repinned ?? [])
    l.push(
      `  ~ the server's tool ${o(JSON.stringify(p.tool))} is pinned anew: ${p.fields.map(o).join(", ")} (the new version accepted a changed tool; review what it does)`,
    );
  return l;
}
