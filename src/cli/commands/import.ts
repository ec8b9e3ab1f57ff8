// hcpx import <host> [--scope project|user] [--server <name…> | --all] [--json]
// Renders the import use case (src/app/import.ts): the MCP servers already in
// a host's config (stdio command lines and remote URLs), and for those named,
// the `mcp` pack written from each.
import { fail } from "../../util/errors";
import { msOption } from "../options";
import { importHost } from "../../app/import";
import { c, done, makeOut, neutralLine as o, printWarnings } from "../output";
import { grantedByLines } from "../grant-lines";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

export { readHostServers, type HostServer } from "../../app/import";

/** `hcpx import`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type ImportOpts = OptionsOf<"import"> & GlobalOpts;

export async function run(host: string, opts: ImportOpts): Promise<number> {
  const out = makeOut(opts);
  const scope = opts.scope ?? "project";
  if (scope !== "project" && scope !== "user")
    fail("usage", `--scope must be project or user, not '${scope}'`, { hint: "hcpx import claude --scope user" });
  const activate = opts.activate
    ? async (dir: string) => (await import("../../app/activate")).activateDir(dir, opts)
    : undefined;
  const r = await importHost(host, {
    scope,
    server: opts.server,
    all: opts.all,
    force: opts.force,
    config: opts.config,
    timeoutMs: msOption("--timeout", opts.timeout),
    activate,
  });
  // a note quotes the servers' tool and argument names: one line each (--json keeps them exact)
  printWarnings(
    r.warnings.map((w) => (w.code === "mcp_import" ? { ...w, message: o(w.message) } : w)),
    out,
  );
  const made = r.imported;
  done(out, { host, scope, file: r.file, servers: r.servers, imported: made }, (col) => {
    const lines = [`${r.hostName} (${r.file}): ${r.servers.length} MCP server(s)`];
    // each server on its line: its name, command, URL and env names are the host file's text (src/util/neutral.ts neutralLine)
    for (const s of r.servers)
      lines.push(
        `  ${o(s.name).padEnd(20)} ${s.skip ? c.dim(col, `skipped: ${o(s.skip)}`) : s.url !== undefined ? o(s.url) : s.argv!.map(o).join(" ")}${s.env.length ? `  env: ${s.env.map(o).join(", ")}` : ""}`,
      );
    if (made.length === 0) {
      if (r.servers.some((s) => !s.skip))
        lines.push(
          "",
          `to make packs of them: hcpx import ${host}${scope === "user" ? " --scope user" : ""} --server <name…> (or --all)`,
        );
      return lines.join("\n");
    }
    for (const m of made) {
      lines.push(
        `${c.green(col, "wrote")} ${o(m.dir)} (${m.commands} commands) from '${o(m.server)}'${m.env.length ? `; set ${m.env.map(o).join(", ")} in hcpx's environment (values are not copied)` : ""}`,
      );
      if (m.activated)
        lines.push(
          `  ${c.green(col, "✓")} activated; granted ${m.activated.granted.length} read command(s); a write is granted by name: hcpx grant ${o(m.id)}.<verb>`,
          ...grantedByLines(m.id, m.activated.grantedBy),
        );
    }
    lines.push(
      made.every((m) => m.activated)
        ? "next: review each policy.json; every host you adopted serves them now (`hcpx adopt <host> --write` once for a new host); once they work, remove the servers from the host's config yourself"
        : "next: review each policy.json, then `hcpx activate <dir>`; once the packs work, remove the servers from the host's config yourself",
    );
    return lines.join("\n");
  });
  return made.some((m) => m.lintErrors) ? 1 : 0;
}
