// What a client sends is answered, never a bare 500 (docs/http.md "Requests
// and errors"): a request target in absolute form (`POST http://host/mcp`, as
// a proxy may send) is served by its path, with the Host check on the Host
// header; `*` and a malformed Host are 400. And a port that is taken, or an
// address that is not this machine's, stops the start with what to do.
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addToken,
  MODERN,
  RAW_LIST_BODY,
  refusal,
  serve,
  teamProject,
  type Served,
  type TeamProject,
} from "./http-support";
import { until } from "../support/until";

/** One raw HTTP/1.1 exchange: the request line and headers as given (Connection: close added), then `body`. */
function raw(port: number, head: string[], body = ""): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1", () => {
      const len = body ? [`Content-Length: ${Buffer.byteLength(body)}`] : [];
      sock.write([...head, ...len, "Connection: close", "", body].join("\r\n"));
    });
    let got = "";
    sock.setEncoding("utf8").on("data", (d: string) => (got += d));
    sock.on("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0), text: got }));
    sock.on("error", reject);
    setTimeout(() => sock.destroy(), 10_000);
  });
}

const listBody = RAW_LIST_BODY;

describe("hcpx mcp --http: request targets and Host values", () => {
  let p: TeamProject;
  let s: Served;
  let token: string;
  let port: number;
  beforeAll(async () => {
    p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    token = addToken(p, "alice");
    s = await serve(p, ["--server-config", p.serverConfig]);
    port = Number(new URL(s.url).port);
  }, 60_000);
  afterAll(async () => s?.stop());

  const post = (target: string, host: string) => [
    `POST ${target} HTTP/1.1`,
    `Host: ${host}`,
    `Authorization: Bearer ${token}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `MCP-Protocol-Version: ${MODERN}`,
    "Mcp-Method: tools/list",
  ];

  it("an absolute-form target is served by its path; the Host check applies to the Host header", async () => {
    const ok = await raw(port, post(`http://127.0.0.1:${port}/mcp`, `127.0.0.1:${port}`), listBody);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).toContain('"name":"hcp"');
    const elsewhere = await raw(port, post(`http://127.0.0.1:${port}/other`, `127.0.0.1:${port}`), listBody);
    expect(elsewhere.status).toBe(404);
    const foreign = await raw(port, post(`http://127.0.0.1:${port}/mcp`, "evil.example"), listBody);
    expect(foreign.status).toBe(403);
  });

  it("`*`, a malformed Host or an unparseable target is 400, never 500", async () => {
    const star = await raw(port, ["OPTIONS * HTTP/1.1", `Host: 127.0.0.1:${port}`]);
    expect(star.status).toBe(400);
    for (const host of [`evil.example@127.0.0.1:${port}`, "a b", "127.0.0.1:port", "[::1"]) {
      const r = await raw(port, post("/mcp", host), listBody);
      expect(r.status, host).toBe(400);
      expect(r.text).toContain("Host");
    }
    const bad = await raw(port, post("http://[::1/mcp", `127.0.0.1:${port}`), listBody);
    expect(bad.status).toBe(400);
    expect(s.stderr()).not.toContain("Failed to parse URL");
    // the server serves on
    const ok = await raw(port, post("/mcp", `127.0.0.1:${port}`), listBody);
    expect(ok.status).toBe(200);
  });

  it("a refused request's words reach the server's log on one line, bounded: a client cannot write a line of its own", async () => {
    const forged = "hcpx mcp: tokens file not used, no static token authenticates";
    const body = (method: string) => listBody.replace('"method":"tools/list"', `"method":${JSON.stringify(method)}`);
    // the body's method disagrees with the Mcp-Method header: the SDK's refusal quotes it, and the server logs it
    const r = await raw(port, post("/mcp", `127.0.0.1:${port}`), body(`tools/x\n${forged}\r\n${forged}`));
    expect(r.status).toBe(400);
    const long = await raw(port, post("/mcp", `127.0.0.1:${port}`), body("tools/" + "y".repeat(100_000)));
    expect(long.status).toBe(400);
    await until(
      () =>
        s
          .stderr()
          .split("\n")
          .filter((l) => l.includes("method-header-mismatch")).length >= 2,
      5_000,
    );
    const lines = s.stderr().split("\n");
    expect(lines.filter((l) => l.startsWith(forged))).toEqual([]);
    expect(lines.filter((l) => l.includes("method-header-mismatch")).length).toBe(2);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(2000);
  });
});

describe("hcpx mcp --http: an address it cannot listen on", () => {
  it("a port in use, an address not this machine's: exit 1, the address and what to do (not 'a bug in hcpx')", async () => {
    const p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
    const port = (taken.address() as AddressInfo).port;
    try {
      const inUse = refusal(p, ["--http", `127.0.0.1:${port}`, "--server-config", p.serverConfig]);
      expect(inUse.status).toBe(1);
      expect(inUse.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`);
      expect(inUse.stderr).toContain("pick another port");
      expect(inUse.stderr).not.toMatch(/internal error|a bug in hcpx/);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
    // 192.0.2.1 (TEST-NET-1) is no machine's own address
    const args = ["--http", "192.0.2.1:8080", "--bind-public", "--server-config", p.serverConfig];
    const elsewhere = refusal(p, args);
    expect(elsewhere.status).toBe(1);
    expect(elsewhere.stderr).toContain("cannot listen on 192.0.2.1:8080: 192.0.2.1 is not an address of this machine");
    expect(elsewhere.stderr).not.toMatch(/internal error|a bug in hcpx/);
  }, 60_000);
});
