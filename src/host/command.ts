// The command line an MCP entry starts: the portable `hcpx mcp` when `hcpx` on
// PATH is this same install, else absolute node + absolute dist/hcpx.mjs (and a
// note that the entry is machine-specific); `--command` overrides.
import { whichOnPath } from "../util/which";
import { realpathSync } from "node:fs";
import { HcpxError } from "../util/errors";

export interface McpCommand {
  argv: string[];
  /** why it is machine-specific, when it is */
  machineSpecific?: string;
}

/** Split a command line: whitespace separates words; '…' and "…" group. */
export function splitCommand(s: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3]!));
  return out;
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

export function whichSelf(selfEntry: string, path = process.env.PATH ?? ""): boolean {
  const self = real(selfEntry);
  // first hcpx on PATH wins, as the host's shell would pick it
  const found = self ? whichOnPath("hcpx", path) : undefined;
  return found !== undefined && real(found) === self;
}

export function resolveMcpCommand(override?: string, selfEntry = process.argv[1] ?? ""): McpCommand {
  if (override !== undefined) {
    const argv = splitCommand(override);
    if (argv.length === 0)
      throw new HcpxError({
        code: "bad_args",
        message: "--command is empty",
        hint: 'give the command line that starts the MCP server, e.g. --command "hcpx mcp"',
      });
    return { argv };
  }
  if (whichSelf(selfEntry)) return { argv: ["hcpx", "mcp"] };
  const entry = real(selfEntry) ?? selfEntry;
  return {
    argv: [process.execPath, entry, "mcp"],
    machineSpecific: `the MCP entry runs ${process.execPath} ${entry} mcp: it is machine-specific (no \`hcpx\` on PATH leads to this install); put hcpx on PATH, or choose with --command`,
  };
}
