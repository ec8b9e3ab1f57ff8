// The from-mcp use cases (`hcpx pack from-mcp`): typed options in, a report
// out; nothing here prints. Either a server to make a pack of (a stdio command
// line, or a remote server by URL with its headers as Binding references):
// its tools listed with the SDK's Client, an `mcp` pack written (one command
// per tool, a draft Policy from the annotations, a SKILL.md) and linted; or
// (`update`) a pack's server reviewed again, its tools against the pins.
// Nothing is activated or granted. The server's tools are read and the pack
// drafted and written by src/mcpimport/ (one step today: the draft needs the
// live connection).
import { HcpxError } from "../util/errors";
import { LiteralSecret, parseHeaderOption, type McpHeaderSpec } from "../pack/mcp-remote";
import {
  packFromMcp,
  packFromRemote,
  type FromMcpOptions as PackFromMcpOptions,
  type FromMcpResult,
} from "../mcpimport/write";
import { updateMcpPack, type McpUpdateResult } from "../mcpimport/update";

export type { FromMcpResult, McpUpdateResult };

/** What `hcpx pack from-mcp` is asked. */
/** What the pack writer takes (src/mcpimport/write-pack.ts), and a remote server instead of a command line. */
export interface FromMcpOptions extends PackFromMcpOptions {
  /** a remote server instead of a command line */
  url?: string;
  /** with url: NAME=VALUE, the value `env:VAR` or `<Scheme> env:VAR` (a literal credential is refused) */
  header?: string[];
}

/** The --header options as mcp.headers (a literal credential refused, exit 64, its value never shown). */
function headersOf(opts: string[]): Record<string, McpHeaderSpec> {
  const out: Record<string, McpHeaderSpec> = {};
  for (const h of opts) {
    try {
      const [name, spec] = parseHeaderOption(h);
      if (Object.keys(out).some((k) => k.toLowerCase() === name.toLowerCase())) {
        throw new Error(`--header ${name} is given twice`);
      }
      out[name] = spec;
    } catch (e) {
      if (e instanceof LiteralSecret) {
        throw new HcpxError(
          {
            code: "header_literal_secret",
            message: `${e.message}; nothing was sent or written`,
            hint: `put the value in an environment variable and pass --header "${e.header}=Bearer env:NAME"`,
          },
          64,
        );
      }
      throw new HcpxError({
        code: "usage",
        message: (e as Error).message,
        hint: '--header "Authorization=Bearer env:TOKEN"',
      });
    }
  }
  return out;
}

/** Make an `mcp` pack of a server: `command` (a stdio server's command line) or `opts.url` (a remote one). */
export async function fromMcp(command: string[], opts: FromMcpOptions): Promise<FromMcpResult> {
  if (opts.url !== undefined && command.length) {
    throw new HcpxError({
      code: "usage",
      message: "give a server command line or --url, not both",
      hint: "hcpx pack from-mcp --url https://…/mcp, or hcpx pack from-mcp -- <command …>",
    });
  }
  if (opts.header?.length && opts.url === undefined) {
    throw new HcpxError({
      code: "usage",
      message:
        "--header is for a remote server (--url); a stdio server reads its settings from the environment (--env NAME)",
      hint: 'hcpx pack from-mcp --url https://…/mcp --header "Authorization=Bearer env:TOKEN"',
    });
  }
  const fromOpts = {
    id: opts.id,
    out: opts.out,
    env: opts.env,
    force: opts.force,
    timeoutMs: opts.timeoutMs,
    config: opts.config,
  };
  return opts.url !== undefined
    ? await packFromRemote({ url: opts.url, headers: headersOf(opts.header ?? []) }, fromOpts)
    : await packFromMcp(command, fromOpts);
}

/** Review a pack's server again: its tools against the pins (mcp.pins); `yes` pins them as they are now. */
export async function updateFromMcp(
  dir: string,
  opts: { yes?: boolean; timeoutMs?: number; config?: string },
): Promise<McpUpdateResult> {
  return updateMcpPack(dir, opts);
}
