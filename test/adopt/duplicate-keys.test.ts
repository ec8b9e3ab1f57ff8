// Read host files the way the host reads them: a key twice on a path adopt reads
// or edits (JSON, JSONC, TOML, YAML) is refused with file:line, by adopt
// --write, --check and doctor alike; hcpx never judges the first of two copies
// while the host (JSON.parse: the last wins) runs the other.
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { envelope, HCPX, noStack, REPO, type RunResult } from "../support/cli";
import { scratch as scratchChild, snapshot, userConfigFromProject } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

/** `text` with `"hcp": {…}` (the entry hcpx wrote) followed by a second `hcp` that runs `evil`. */
/** A `--json` adopt refused with exit 1 (no stack trace): its envelope's error. */
function refused(r: RunResult) {
  expect(r.code).toBe(1);
  noStack(r);
  const env = envelope(r);
  expect(env.ok).toBe(false);
  return env.error;
}

function withSecondHcp(text: string): string {
  return text.replace(
    /("hcp": \{[\s\S]*?\n {4}\})/,
    `$1,\n    "hcp": { "type": "stdio", "command": "evil", "args": [] }`,
  );
}

describe("a duplicate key on the path adopt reads or edits is refused with file:line", () => {
  it("JSON: `mcpServers.hcp` twice after adopt — --check is not in sync, doctor fails, --write edits nothing", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const twice = withSecondHcp(s.read(".mcp.json"));
    expect(twice).toContain('"command": "evil"');
    s.write(".mcp.json", twice);
    // what the host runs: the last copy
    expect(JSON.parse(twice).mcpServers.hcp.command).toBe("evil");
    const line = twice.split("\n").findIndex((l) => l.includes('"command": "evil"')) + 1;

    const c = refused(await s.adopt("claude", "--check", "--json"));
    expect(c).toMatchObject({
      code: "duplicate_key",
      file: ".mcp.json",
      line,
      column: expect.any(Number),
      message: expect.stringContaining("`mcpServers.hcp` appears twice"),
      hint: expect.any(String),
    });

    const before = snapshot(s.dir);
    const w = refused(await s.adopt("claude", "--write", "--json"));
    expect(w).toMatchObject({ code: "duplicate_key", file: ".mcp.json", line });
    expect(snapshot(s.dir)).toEqual(before);

    const d = await s.run(["doctor", "--json"]);
    expect(d.code).not.toBe(0);
    const host = (
      JSON.parse(d.stdout).error.details.checks as {
        id: string;
        status: string;
        message: string;
        problems?: { code: string }[];
      }[]
    ).find((x) => x.id === "host:claude")!;
    expect(host.status).toBe("fail");
    expect(host.message).toMatch(new RegExp(`\\.mcp\\.json:${line}:\\d+: \`mcpServers\\.hcp\` appears twice`));
    expect(host.problems![0]!.code).toBe("duplicate_key");
  });

  it("JSON: `mcpServers` twice at the top level (an ancestor of the entry) is refused before anything is written", async () => {
    const s = scratch();
    s.write(
      ".mcp.json",
      '{\n  "mcpServers": { "hcp": { "command": "mine" } },\n  "mcpServers": { "other": { "command": "x" } }\n}\n',
    );
    const before = snapshot(s.dir);
    const e = refused(await s.adopt("claude", "--write", "--force", "--json"));
    expect(e).toMatchObject({
      code: "duplicate_key",
      file: ".mcp.json",
      line: 3,
      message: expect.stringContaining("`mcpServers` appears twice"),
    });
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("JSON: a key twice inside the entry (its command) is refused; a key twice elsewhere in the file is not hcpx's concern", async () => {
    const s = scratch();
    expect((await s.adopt("claude", "--write")).code).toBe(0);
    const text = s.read(".mcp.json");
    s.write(".mcp.json", text.replace(/("command": "[^"]*")/, `$1, "command": "evil"`));
    const c = await s.adopt("claude", "--check", "--json");
    expect(c.code).toBe(1);
    expect(JSON.parse(c.stdout).error.code).toBe("duplicate_key");
    // restored, plus an unrelated key twice at the top: --check is in sync
    s.write(".mcp.json", text.replace(/^\{/, '{\n  "x": 1,\n  "x": 2,'));
    expect((await s.adopt("claude", "--check")).code).toBe(0);
  });

  it("JSONC: the permission list's object twice (.claude/settings.json `permissions`) is refused with its line", async () => {
    const s = scratch();
    s.write(".claude/settings.json", '{\n  "permissions": { "allow": [] },\n  "permissions": { "ask": [] }\n}\n');
    const before = snapshot(s.dir);
    const e = refused(await s.adopt("claude", "--write", "--json"));
    expect(e).toMatchObject({
      code: "duplicate_key",
      file: ".claude/settings.json",
      line: 3,
      message: expect.stringContaining("`permissions` appears twice"),
    });
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("TOML: [mcp_servers.hcp] twice is refused with its line", async () => {
    const s = scratch();
    s.write(".codex/config.toml", '[mcp_servers.hcp]\ncommand = "mine"\n\n[mcp_servers.hcp]\ncommand = "evil"\n');
    const before = snapshot(s.dir);
    const e = refused(await s.adopt("codex", "--write", "--force", "--json"));
    expect(e).toMatchObject({
      code: "duplicate_key",
      file: ".codex/config.toml",
      line: 4,
      message: expect.stringMatching(/^a table or key is defined twice/),
    });
    expect(snapshot(s.dir)).toEqual(before);
  });

  it("YAML: `extensions.hcp` twice (Goose) is refused with its line", async () => {
    const s = scratch();
    mkdirSync(join(s.home, ".config/goose"), { recursive: true });
    writeFileSync(
      join(s.home, ".config/goose/config.yaml"),
      "extensions:\n  hcp:\n    cmd: mine\n  hcp:\n    cmd: evil\n",
    );
    userConfigFromProject(s);
    const e = refused(await s.run(["adopt", "goose", "--scope", "user", "--write", "--force", "--json"]));
    expect(e).toMatchObject({
      code: "duplicate_key",
      file: expect.stringMatching(/config\.yaml$/),
      line: 4,
      message: expect.stringMatching(/^a key appears twice in one map/),
      hint: expect.stringMatching(/^keep the copy you mean/),
    });
  });
});
