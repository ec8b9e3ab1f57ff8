// The prompt block an adopt plan writes for a host: whether it may advertise
// the shell route (`hcpx exec …`), and what it says of the tools and the gate,
// for every host that reads the same file.
import type { Descriptor } from "./descriptor";
import { loadDescriptor } from "./descriptor";
import { remoteFor } from "./adopt-remote";
import type { RunView } from "./adopt-types";

// ---- the shell route: may a host's prompt block advertise `hcpx exec …`? ----
// Where the host's shell can run it: the MCP entry runs a bare `hcpx` (found on PATH),
// and the descriptor does not say its shell tool cannot (`shellRoute: false`). A file
// two hosts read (AGENTS.md: Codex and opencode) holds one block, so it advertises the
// route only if every host that reads it (adopted in this run, or recorded) can run it;
// a target with alternatives counts as reading each of them.
// The route is the MCP command without its last word `mcp`: `hcpx` when hcpx is on PATH,
// else what the entry runs (absolute node + hcpx), named so that the block says how to run it.
export function shellCommandOf(run: RunView, d: Descriptor): string | undefined {
  const argv = run.mcpOf(d.host).argv;
  // a remote entry runs no local command: the route would run this machine's packs, not the server's
  if (isRemote(run, d.host)) return undefined;
  if (d.shellRoute === false || argv.length < 2 || argv[argv.length - 1] !== "mcp") return undefined;
  return argv
    .slice(0, -1)
    .map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : "'" + w.replaceAll("'", "'\\''") + "'"))
    .join(" ");
}
export function shellFor(run: RunView, desc: Descriptor): boolean {
  const can = (d: Descriptor) => shellCommandOf(run, d) !== undefined;
  return can(desc) && blockReaders(run, desc).every(can);
}

/**
 * The other hosts (adopted in this run, or recorded at this scope) whose prompt block lands in
 * a file `desc`'s block lands in: one block serves them all, so it names only what each serves.
 */
export function blockReaders(run: RunView, desc: Descriptor): Descriptor[] {
  // every file a block may land in: a target with alternatives (Zed's first existing rules file) counts with all of them
  const blocks = (d: Descriptor) =>
    new Set(
      (d.scopes[run.scope]?.targets ?? [])
        .filter((t) => t.format === "markdown-block")
        .flatMap((t) => (Array.isArray(t.path) ? t.path : [t.path]).map((p) => run.pathOf(d, p))),
    );
  const mine = blocks(desc);
  const others = new Map(run.descriptors.map((d) => [d.host, d]));
  for (const h of Object.keys(run.ledger.hosts)) {
    if (others.has(h) || run.ledger.hosts[h]!.scope !== run.scope) continue;
    try {
      others.set(h, loadDescriptor(h));
    } catch {
      // a host hcpx no longer knows: its own plan reports it
    }
  }
  return [...others.values()].filter((d) => d.host !== desc.host && [...blocks(d)].some((p) => mine.has(p)));
}

/** What the prompt block tells the model about the tools and the gate: what every host reading it is served (descriptor `tools`, `gate.model`). */
export function blockForms(
  run: RunView,
  desc: Descriptor,
): { tools: "single" | "per-command" | "mixed"; gate?: string; server: string; remote?: boolean } {
  const all = [desc, ...blockReaders(run, desc)];
  const shapes = new Set(all.map((d) => d.tools ?? "single"));
  const gates = new Set(all.map((d) => d.gate?.model));
  const gate = gates.size === 1 ? [...gates][0] : undefined;
  // the server name the model sees in this scope (descriptor `servers`); hosts reading one block with different names: both
  const server = [...new Set(all.map((d) => d.servers?.[run.scope] ?? d.server ?? "hcp"))].sort().join("/");
  // a remote entry among them: the server's own shape, named only as its tool list gives it
  const remote = all.some((d) => isRemote(run, d.host));
  return {
    tools: shapes.size === 1 && !remote ? [...shapes][0]! : "mixed",
    ...(gate ? { gate } : {}),
    server,
    ...(remote ? { remote } : {}),
  };
}

/** Whether `host`'s entry is a remote one: this run's (--url, or kept from the ledger), else what the ledger records. */
export function isRemote(run: RunView, host: string): boolean {
  return run.descriptors.some((d) => d.host === host)
    ? remoteFor(run, host) !== undefined
    : run.ledger.hosts[host]?.remote !== undefined;
}
