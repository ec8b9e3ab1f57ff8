// pack from-mcp drafts a tool the server marks readOnlyHint as a read, reviewed (the mapping is specified) —
// but not one whose own name or description says it deletes, wipes, destroys, purges, drops, resets or
// removes something: that is drafted write + confirm, marked inferred, with the words that decided it.
import { describe, expect, it } from "vitest";
import { draftFromTools, policyFrom, renderPolicy } from "../../src/mcpimport/import";
import { parseJson5 } from "../../src/pack/json5";

const ro = { readOnlyHint: true };

describe("pack from-mcp: a read-only tool whose words say it destroys", () => {
  it("is drafted write + confirm, inferred, and says why; a read-only tool that does not stays a reviewed read", () => {
    expect(policyFrom({ name: "list_files", description: "Lists the files.", annotations: ro })).toEqual({
      operation: "read",
      confirm: false,
      inferred: false,
      why: "readOnlyHint",
    });
    expect(policyFrom({ name: "wipeCache", description: "Shows the cache.", annotations: ro })).toMatchObject({
      operation: "write",
      land: "external",
      confirm: true,
      inferred: true,
      why: 'readOnlyHint, but its name or description says "wipe": drafted write + confirm',
    });
    expect(
      policyFrom({
        name: "status",
        description: "Reports the state, then removes stale locks.",
        annotations: { ...ro, openWorldHint: false },
      }),
    ).toMatchObject({ operation: "write", land: "local", confirm: true, inferred: true });
    // "deleted" names what it lists: not a tool that deletes
    expect(policyFrom({ name: "list_deleted", description: "Lists deleted items.", annotations: ro })).toMatchObject({
      operation: "read",
      inferred: false,
    });
  });

  it("a tool that says it is both read-only and destructive is drafted write + confirm, inferred", () => {
    expect(
      policyFrom({ name: "status", description: "Shows it.", annotations: { ...ro, destructiveHint: true } }),
    ).toEqual({
      operation: "write",
      land: "external",
      confirm: true,
      inferred: true,
      why: "readOnlyHint and destructiveHint both: drafted write + confirm",
    });
  });

  it("the draft's policy.json carries the row and the reason", () => {
    const d = draftFromTools([{ name: "purge", description: "Purges every queue.", annotations: ro }], {
      id: "q",
      bin: "node",
      args: [],
      env: [],
      server: {},
    });
    const text = renderPolicy(d);
    expect(text).toContain(
      '"purge": { operation: "write", land: "external", confirm: true, inferred: true }, // readOnlyHint, but its name or description says "purge", "purges"',
    );
    const rows = (parseJson5(text, "policy.json").value as { rows: Record<string, unknown> }).rows;
    expect(rows.purge).toEqual({ operation: "write", land: "external", confirm: true, inferred: true });
  });
});
