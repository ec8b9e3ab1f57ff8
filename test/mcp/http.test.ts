// `hcpx mcp --http 0 --no-auth` (src/mcp/http.ts): the same front over
// loopback Streamable HTTP, both eras, with the SDK v2 client's real HTTP
// transport and the v1 client's; a foreign Host header is refused (DNS rebinding).
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { HCPX } from "../support/cli";
import { grantedLedger } from "./support";

describe("hcpx mcp --http", () => {
  it("serves both eras on 127.0.0.1 and refuses a foreign Host", async () => {
    const p = grantedLedger();
    const child = spawn(process.execPath, [HCPX, "mcp", "--http", "0", "--no-auth"], {
      cwd: p.dir,
      env: { PATH: process.env.PATH ?? "", HOME: p.home, LEDGER_FILE: p.ledger },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = "";
        child.stderr.setEncoding("utf8").on("data", (d: string) => {
          err += d;
          const m = / at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
          if (m) resolve(m[1]!);
        });
        child.on("close", () => reject(new Error(err)));
      });
      const modern = new ClientV2({ name: "v2", version: "1" }, { versionNegotiation: { mode: "auto" } });
      await modern.connect(new HttpV2(new URL(url)));
      expect(modern.getProtocolEra()).toBe("modern");
      const r = await modern.callTool({
        name: "hcp",
        arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
      });
      expect((r.structuredContent as { ok: boolean }).ok).toBe(true);
      await modern.close();

      const legacy = new ClientV1({ name: "v1", version: "1" });
      await legacy.connect(new HttpV1(new URL(url)));
      const { tools } = await legacy.listTools();
      expect(tools.map((t) => t.name)).toEqual(["hcp", "hcp__read_skill"]);
      await legacy.close();

      // a page on another origin that resolved evil.example to 127.0.0.1 (fetch cannot set Host: node:http can)
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          url,
          {
            method: "POST",
            headers: {
              host: "evil.example",
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end("{}");
      });
      expect(status).toBe(403);

      // the body is read by the listener and handed to the SDK parsed: the SDK's own answers still hold
      const post = async (body: string | Uint8Array) => {
        const r = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
          },
          body,
        });
        return { status: r.status, text: await r.text() };
      };
      const call = JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } } },
      });
      const notJson = await post("{not json");
      expect(notJson.status).toBe(400);
      expect(notJson.text).toContain("-32700");
      expect((await post("")).status).toBe(400);
      // a UTF-8 BOM before the JSON: dropped, as the SDK's own read of a body drops it
      const bom = await post(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(call)]));
      expect(bom.status).toBe(200);
      expect(bom.text).toContain('"ok\\":true');
    } finally {
      child.kill("SIGTERM");
    }
  }, 60_000);

  it("binds loopback only", async () => {
    const { listenHttp } = await import("../../src/mcp/http");
    await expect(listenHttp({ fronts: new Map(), hooks: {} as never, port: 0, host: "0.0.0.0" })).rejects.toThrow(
      /loopback only/,
    );
  });
});
