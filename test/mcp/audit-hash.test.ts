// The args hash of a tools/call's audit record (src/mcp/front.ts): taken while the bin runs
// (ExecuteOptions.started), as hcpx exec takes it, and the same hash the record has when it is taken
// after: of the call's args ({} when it names none), or of the tool's input when it is no call at all.
import { describe, expect, it } from "vitest";
import { McpFront } from "../../src/mcp/front";
import type { AuditRecord } from "../../src/runtime/audit";
import { argsHash } from "../../src/util/argshash";
import { scratchProject } from "../support/project";

describe("a tools/call's args hash in its audit record", () => {
  it("is the hash of its args, whether its bin ran or not, or of the input that named no call", async () => {
    const p = scratchProject({ packs: ["calc-wrap", "ledger"] });
    const recs: AuditRecord[] = [];
    const f = new McpFront({ shape: "single", cwd: p.dir, audit: (r) => void recs.push(r) });
    const call = async (input: Record<string, unknown>) => {
      const out = await f.callTool("hcp", input, { era: "legacy", signal: new AbortController().signal });
      return (out as { structuredContent?: { ok?: boolean } }).structuredContent?.ok;
    };
    // the bin ran: hashed while it ran
    expect(await call({ pack: "calc-wrap", verb: "ping", args: {} })).toBe(true);
    expect(await call({ pack: "calc-wrap", verb: "ping" })).toBe(true);
    // refused before anything ran: hashed with the record
    expect(await call({ pack: "ledger", verb: "balance", args: { bogus: true } })).toBe(false);
    expect(await call({ verb: "ping", args: { n: 1 } })).toBe(false);
    expect(recs.map((r) => [r.verb, r.result])).toEqual([
      ["ping", "ok"],
      ["ping", "ok"],
      ["balance", "bad_args"],
      [undefined, "bad_args"],
    ]);
    expect(recs.map((r) => r.args_sha256)).toEqual([
      argsHash({}),
      argsHash({}),
      argsHash({ bogus: true }),
      argsHash({ verb: "ping", args: { n: 1 } }),
    ]);
  });
});
