// `hcpx import` reads a host's remote servers as its descriptor says (in-process,
// src/app/import.ts readHostServers): the Streamable HTTP field, the host's own
// env-reference syntax in a header, Codex's bearer_token_env_var; another
// transport (SSE), a URL with a variable and a literal secret are not imported,
// and the secret is never in what is reported.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDescriptor } from "../../src/host/descriptor";
import { readHostServers } from "../../src/app/import";
import { tmp } from "../support/hcpx";

const SECRET = "sk-live-7d1e2a9c0b3f4e5d";

async function servers(host: string, file: string, text: string) {
  const d = loadDescriptor(host);
  const t = d.scopes.project!.targets.find((x) => x.entry)!;
  const abs = join(tmp("hcpx-import-shapes-"), file.split("/").pop()!);
  writeFileSync(abs, text);
  const list = await readHostServers(abs, t, d.name);
  expect(JSON.stringify(list)).not.toContain(SECRET);
  return Object.fromEntries(list.map((s) => [s.name, s]));
}

describe("import: remote servers by host", () => {
  it("Cursor: ${env:NAME} in a header becomes a Binding header; a literal one is refused by name", async () => {
    const s = await servers(
      "cursor",
      ".cursor/mcp.json",
      JSON.stringify({
        mcpServers: {
          gh: { url: "https://api.example.com/mcp", headers: { Authorization: "Bearer ${env:GH_TOKEN}" } },
          lit: { url: "https://api.example.com/mcp", headers: { "X-Api-Key": SECRET } },
        },
      }),
    );
    expect(s.gh).toEqual({
      name: "gh",
      env: ["GH_TOKEN"],
      remote: true,
      url: "https://api.example.com/mcp",
      headers: { Authorization: { env: "GH_TOKEN", scheme: "Bearer" } },
    });
    expect(s.lit!.skip).toMatch(/X-Api-Key holds a literal credential .*\$\{env:NAME\}/);
  });

  it("Gemini CLI: httpUrl is Streamable HTTP (imported), url is SSE (skipped); $VAR references", async () => {
    const s = await servers(
      "gemini",
      ".gemini/settings.json",
      JSON.stringify({
        mcpServers: {
          http: { httpUrl: "https://h.example.com/mcp", headers: { Authorization: "Bearer $TOKEN" } },
          sse: { url: "https://h.example.com/sse" },
        },
      }),
    );
    expect(s.http).toMatchObject({
      url: "https://h.example.com/mcp",
      headers: { Authorization: { env: "TOKEN", scheme: "Bearer" } },
    });
    expect(s.sse!.skip).toMatch(/another transport/);
  });

  it("Codex: bearer_token_env_var becomes the Authorization header from the Binding", async () => {
    const s = await servers(
      "codex",
      ".codex/config.toml",
      `[mcp_servers.gh]\nurl = "https://api.example.com/mcp"\nbearer_token_env_var = "GH_TOKEN"\n`,
    );
    expect(s.gh).toMatchObject({
      url: "https://api.example.com/mcp",
      env: ["GH_TOKEN"],
      headers: { Authorization: { env: "GH_TOKEN", scheme: "Bearer" } },
    });
  });

  it("Claude Code: a URL with a variable, a token in the query or a user:password is not imported, and not repeated", async () => {
    const s = await servers(
      "claude",
      ".mcp.json",
      JSON.stringify({
        mcpServers: {
          v: { type: "http", url: "https://${HOST}/mcp" },
          q: { type: "http", url: `https://x.example.com/mcp?api_key=${SECRET}` },
          u: { type: "http", url: `https://me:${SECRET}@x.example.com/mcp` },
          ok: { type: "http", url: "https://x.example.com/mcp", headers: { "X-Client": "mine" } },
        },
      }),
    );
    expect(s.v!.skip).toMatch(/variable/);
    expect(s.q!.skip).toMatch(/api_key.*credential/);
    expect(s.u!.skip).toMatch(/user:password/);
    expect(s.ok).toMatchObject({ url: "https://x.example.com/mcp", headers: { "X-Client": "mine" }, env: [] });
  });
});
