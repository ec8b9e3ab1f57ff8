// The format handlers (src/host/formats/): a key segment is one key whatever it
// holds (Amp's flat "amp.mcpServers"), and a re-adopt keeps what the person added
// to the hcp entry unless --force, as --remove keeps an entry they changed.
import { describe, expect, it } from "vitest";
import { parse as parseToml } from "smol-toml";
import { jsonDoc } from "../../src/host/formats/json";
import { tomlDoc, tomlTable } from "../../src/host/formats/toml";
import type { Target } from "../../src/host/descriptor";
import type { VFile } from "../../src/host/formats/types";
import type { LedgerEntry } from "../../src/host/ledger";
import { scratch as scratchChild } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

const vfile = (text: string): VFile => ({
  abs: "/x",
  real: "/x",
  show: "settings.json",
  orig: { kind: "file", text, mode: 0o644 },
  cur: text,
  hosts: new Set(),
  notes: [],
});
const noConflicts = { host: "x", force: false, conflicts: [], initialOf: () => undefined, targetOf: () => undefined };

describe("a flat dotted key is one key segment", () => {
  const key = ["amp.mcpServers", "hcp"];
  const value = { command: "hcpx", args: ["mcp"] };
  it("json: set writes the flat key, get reads it, remove gives the file back byte for byte", () => {
    const t = { id: "mcp", path: "settings.json", format: "json", key } as Target;
    const text = '{\n  "amp.other": 1,\n  "amp": { "mcpServers": { "keep": {} } }\n}\n';
    const doc = jsonDoc.read(text, "settings.json", t, "Amp");
    const r = jsonDoc.set(text, doc, key, value, vfile(text), t, "Amp");
    const parsed = JSON.parse(r.text) as Record<string, unknown>;
    expect(parsed["amp.mcpServers"]).toEqual({ hcp: value });
    // the nested amp.mcpServers object is another key: untouched
    expect(parsed.amp).toEqual({ mcpServers: { keep: {} } });
    expect(jsonDoc.get(jsonDoc.read(r.text, "settings.json", t, "Amp"), key)).toEqual(value);
    const e: LedgerEntry = {
      path: "settings.json",
      kind: "json",
      key,
      sha256: jsonDoc.hash(value),
      created: false,
      ...r.undo,
    };
    expect(jsonDoc.remove(r.text, jsonDoc.readBack(r.text, "settings.json"), e, vfile(r.text), noConflicts)).toBe(text);
  });
  it("toml: the segment is quoted in the table header and read back as one key", () => {
    const snippet = tomlTable(key, value);
    expect(snippet.split("\n")[0]).toBe('["amp.mcpServers".hcp]');
    expect(parseToml(snippet)).toEqual({ "amp.mcpServers": { hcp: value } });
    const text = '[amp.mcpServers.keep]\ncommand = "k"\n';
    const t = { id: "mcp", path: "c.toml", format: "toml", key } as Target;
    const r = tomlDoc.set(text, tomlDoc.read(text, "c.toml", t, "X"), key, value, vfile(text), t, "X");
    expect(tomlDoc.get(tomlDoc.read(r.text, "c.toml", t, "X"), key)).toEqual(value);
    expect((parseToml(r.text) as { amp: unknown }).amp).toEqual({ mcpServers: { keep: { command: "k" } } });
    const e: LedgerEntry = {
      path: "c.toml",
      kind: "toml",
      key,
      sha256: tomlDoc.hash(value),
      created: false,
      ...r.undo,
    };
    expect(tomlDoc.remove(r.text, tomlDoc.readBack(r.text, "c.toml"), e, vfile(r.text), noConflicts)).toBe(text);
  });
});

describe("re-adopt keeps the person's additions to the hcp entry unless --force", () => {
  const hcpOf = (text: string) =>
    (JSON.parse(text) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers.hcp!;
  it("json (claude): an `env` added to the entry stays through a re-adopt and --check; --remove leaves it; --force replaces it", async () => {
    const s = scratch({ hcpxOnPath: true }); // --command "hcpx mcp" below: --check asks that it resolves
    expect((await s.adopt("claude", "--write", "--command", "npx -y hcpx mcp")).code).toBe(0); // then a changed command line below
    const written = hcpOf(s.read(".mcp.json"));
    const mine = { ...written, env: { LOG_LEVEL: "debug" } };
    s.write(".mcp.json", JSON.stringify({ mcpServers: { hcp: mine } }, null, 2) + "\n");
    // a changed command line: hcpx's fields are set again, the person's env stays
    const r = await s.adopt("claude", "--write", "--command", "hcpx mcp");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("yours kept (env");
    const after = hcpOf(s.read(".mcp.json"));
    expect(after.env).toEqual({ LOG_LEVEL: "debug" });
    expect(after.command).toBe("hcpx");
    // in sync: nothing to change
    const check = await s.adopt("claude", "--check", "--command", "hcpx mcp");
    expect(check.code, check.stdout + check.stderr).toBe(0);
    // --remove keeps an entry the person changed (as it keeps a hand-edited file)
    const before = s.read(".mcp.json");
    const rm = await s.adopt("claude", "--remove", "--write");
    expect(rm.stdout + rm.stderr).toMatch(/changed since hcpx wrote it: left in place/);
    expect(s.read(".mcp.json")).toBe(before);
    // --force: the entry as hcpx writes it, the person's env gone
    s.write(".mcp.json", before);
    expect((await s.adopt("claude", "--write", "--command", "hcpx mcp", "--force")).code).toBe(0);
    expect(hcpOf(s.read(".mcp.json")).env).toBeUndefined();
  });
  it("toml (codex): a field added to [mcp_servers.hcp] stays through a re-adopt", async () => {
    const s = scratch({ hcpxOnPath: true });
    expect((await s.adopt("codex", "--write")).code).toBe(0);
    s.write(
      ".codex/config.toml",
      s.read(".codex/config.toml").replace("[mcp_servers.hcp]\n", "[mcp_servers.hcp]\nstartup_timeout_sec = 30\n"),
    );
    const r = await s.adopt("codex", "--write", "--command", "hcpx mcp");
    expect(r.code, r.stderr).toBe(0);
    const hcp = (parseToml(s.read(".codex/config.toml")) as { mcp_servers: { hcp: Record<string, unknown> } })
      .mcp_servers.hcp;
    expect(hcp.startup_timeout_sec).toBe(30);
    expect(hcp.command).toBe("hcpx");
    expect((await s.adopt("codex", "--check", "--command", "hcpx mcp")).code).toBe(0);
  });
});
