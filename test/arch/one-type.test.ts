// A type is declared once (issue 28): two modules that each declare the same
// shape under one name drift apart (HostApproval was declared in src/host/
// and src/mcp/, "same shape", kept so by hand). Each exported type or
// interface name is declared in one module; the others import it. The names
// below are declared twice on purpose: different things that share a name.
// HCPX_ARCH_SRC=<dir> checks another tree.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "../support/hcpx";
import { tsFilesUnder as files } from "../support/tree";

const SRC = process.env.HCPX_ARCH_SRC ?? join(REPO, "src");

/** Name → why its declarations are different things. */
const DIFFERENT: Record<string, string> = {
  AdoptOptions:
    "the planner's options (host/adopt-types.ts), the use case's request (app/adopt.ts), the library's public options (lib/index.ts)",
  GenerateOptions:
    "the use case's (app/generate.ts), the CLI's flags (cli/commands/generate.ts), the library's public ones",
  FromOpenapiOptions: "the use case's (app/from-openapi.ts) and the CLI's, which adds --json and --config",
  FromMcpOptions:
    "the use case's request (app/from-mcp.ts) extends the pack writer's (mcpimport/write-pack.ts) with a remote server (--url, --header)",
  ImportOptions:
    "`hcpx import` of a host's servers (app/import.ts) and an OpenAPI document's import (openapi/types.ts)",
  ArgSpec: "a CLI argument (cli/spec.ts) and a pack command's argument (pack/schema.ts)",
  CommandSpec: "a CLI command (cli/spec.ts) and a pack's command (pack/schema.ts)",
  ToolResult: "an MCP tool result (mcp/contract.ts) and Anthropic's tool_result block (lib/anthropic.ts)",
  Envelope:
    "the public spelling in lib/index.ts of runtime/envelope.ts's Envelope: the package ships src/lib's declarations only",
};

const DECL = /^export\s+(?:declare\s+)?(?:type|interface)\s+([A-Za-z_$][\w$]*)/gm;

/** Exported type names declared in more than one module, each with its modules. */
export function declaredTwice(modules: Record<string, string>): Record<string, string[]> {
  const by = new Map<string, string[]>();
  for (const [m, text] of Object.entries(modules))
    for (const d of text.matchAll(DECL)) by.set(d[1]!, [...(by.get(d[1]!) ?? []), m]);
  return Object.fromEntries([...by].filter(([, ms]) => ms.length > 1).map(([n, ms]) => [n, ms.sort()]));
}

describe("a type is declared once", () => {
  it("no exported type or interface name is declared in two modules, but the different things listed", () => {
    const modules = Object.fromEntries(files(SRC).map((f) => [relative(SRC, f), readFileSync(f, "utf8")]));
    const twice = declaredTwice(modules);
    expect(Object.keys(twice).filter((n) => !DIFFERENT[n])).toEqual([]);
    // a name that is declared once now comes off the list
    expect(Object.keys(DIFFERENT).filter((n) => !twice[n])).toEqual([]);
  });

  it("the check can fail: a type declared again in another module is found; a re-export is not a declaration", () => {
    const a = "export type HostApproval = (tool: string) => Promise<boolean>;\n";
    expect(declaredTwice({ "host/approval.ts": a, "mcp/contract.ts": a })).toEqual({
      HostApproval: ["host/approval.ts", "mcp/contract.ts"],
    });
    expect(declaredTwice({ "runtime/execute.ts": a, "mcp/contract.ts": "export type { HostApproval };\n" })).toEqual(
      {},
    );
  });
});
