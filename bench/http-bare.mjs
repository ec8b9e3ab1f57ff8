#!/usr/bin/env node
// The floor of bench/http.bench.mjs: a bare MCP SDK v2 Streamable HTTP server
// with one tool (`ping` → {pong: true}), on the same entry hcpx uses
// (createMcpHandler, both eras per request) behind node:http, with the same
// Request/Response bridging as src/mcp/http.ts. No Policy, no config, no audit.
// `--defer`: the tool answers one event-loop turn later (after a setImmediate),
// as hcpx's calls do while their audit records of the turn are written
// together (src/runtime/audit.ts): that alone changes the throughput, so the
// bench shows the bare server both ways.
// Usage: node bench/http-bare.mjs [port] [--defer]; prints "listening <url>" on stderr.
/* global Headers, ReadableStream, Request */
import { createServer } from "node:http";
import { createMcpHandler, Server } from "@modelcontextprotocol/server";

const TOOL = {
  name: "ping",
  description: "Health check: answers pong",
  inputSchema: { type: "object", properties: {} },
};

const DEFER = process.argv.includes("--defer");

function build() {
  const server = new Server({ name: "bare", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async () => ({ tools: [TOOL] }));
  server.setRequestHandler("tools/call", async () => {
    if (DEFER) await new Promise((r) => setImmediate(r));
    const env = { ok: true, data: { pong: true } };
    return { content: [{ type: "text", text: JSON.stringify(env) }], structuredContent: env, isError: false };
  });
  return server;
}

const handler = createMcpHandler(() => build());

function toRequest(req) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  const body = hasBody
    ? new ReadableStream({
        start(c) {
          req.on("data", (d) => c.enqueue(new Uint8Array(d)));
          req.on("end", () => c.close());
          req.on("error", (e) => c.error(e));
        },
      })
    : undefined;
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
    method,
    headers,
    ...(hasBody ? { body, duplex: "half" } : {}),
  });
}

async function send(response, res) {
  const headers = {};
  response.headers.forEach((v, k) => {
    const prev = headers[k];
    headers[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

const http = createServer(async (req, res) => {
  try {
    await send(await handler.fetch(toRequest(req)), res);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(e?.message ?? e));
  }
});
http.listen(Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 0), "127.0.0.1", () => {
  process.stderr.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`);
});
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
