// `hcpx mcp --http`: a pack, grant or config change reaches the clients over
// HTTP, each era's way (real HTTP on 127.0.0.1, token auth):
// - 2025 era (the v1 and v2 SDK clients): `notifications/tools/list_changed`
//   on the GET stream the client opens after `initialize` (served statelessly
//   by the SDK's transport: no session, any instance serves it);
// - 2026-07-28 (the v2 client pinned to it): on the client's
//   `subscriptions/listen` stream; and tools/list carries the cache hints
//   `ttlMs: 0`, `cacheScope: "private"` (a principal's list, never cached
//   past a change).
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addToken, modern, serve, teamProject, type Served, type TeamProject } from "./http-support";
import { writeConfig } from "./support";
import { until } from "../support/until";

const auth = (token: string) => ({ requestInit: { headers: { authorization: `Bearer ${token}` } } });

/**
 * A client transport's fetch that tells when its 2025-era GET stream is open:
 * the server made the stream's instance live (src/mcp/http.ts legacyStream)
 * before it answered the GET, so a tools/list_changed sent after this reaches it.
 */
function streamWatch(): { fetch: typeof fetch; open: Promise<void> } {
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  return {
    fetch: async (input, init) => {
      const r = await fetch(input, init);
      if ((init?.method ?? "GET") === "GET" && r.ok && r.body) opened();
      return r;
    },
    open,
  };
}

describe("hcpx mcp --http: tools/list_changed, each era's way", () => {
  let p: TeamProject;
  let s: Served;
  let token: string;
  const grant = (allow: string[]) =>
    writeConfig(p.config, {
      packs: ["./packs/ledger"],
      principal: { id: "dev", kind: "agent" },
      grants: { allow, deny: [] },
      sandbox: { bins: {}, roots: ["."], cwd: "." },
      confirm: { by: "host" },
    });
  beforeAll(async () => {
    p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } }, { confirm: "host" });
    token = addToken(p, "alice");
    s = await serve(p, ["--server-config", p.serverConfig, "--shape", "per-command"]);
  }, 60_000);
  afterAll(async () => s?.stop());

  it("2025 era, v1 and v2 clients: the notification on their GET stream when a grant changes; the new list follows", async () => {
    grant(["ledger.*"]);
    await new Promise((r) => setTimeout(r, 300));
    const v1 = new ClientV1({ name: "v1", version: "1" });
    const v2 = new ClientV2({ name: "v2", version: "1" });
    let n1 = 0;
    let n2 = 0;
    v1.setNotificationHandler(ToolListChangedNotificationSchema, async () => void n1++);
    v2.setNotificationHandler("notifications/tools/list_changed", async () => void n2++);
    const w1 = streamWatch();
    const w2 = streamWatch();
    await v1.connect(new HttpV1(new URL(s.url), { ...auth(token), fetch: w1.fetch }));
    await v2.connect(new HttpV2(new URL(s.url), { ...auth(token), fetch: w2.fetch }));
    try {
      expect(v2.getProtocolEra()).toBe("legacy");
      const before = (await v1.listTools()).tools.map((t) => t.name);
      expect(before).toContain("ledger__transfer");
      // the clients open their GET streams after initialize: wait until both are open (at most 10 s)
      let timer: NodeJS.Timeout | undefined;
      const opened = await Promise.race([
        Promise.all([w1.open, w2.open]).then(() => true),
        new Promise<false>((r) => (timer = setTimeout(() => r(false), 10_000))),
      ]);
      clearTimeout(timer);
      expect(opened, "both clients' GET streams open").toBe(true);
      grant(["ledger.balance"]);
      expect(await until(() => n1 > 0 && n2 > 0), `v1 ${n1}, v2 ${n2}\n${s.stderr()}`).toBe(true);
      const after = (await v1.listTools()).tools.map((t) => t.name);
      expect(after).toContain("ledger__balance");
      expect(after).not.toContain("ledger__transfer");
      expect((await v2.listTools()).tools.map((t) => t.name)).toEqual(after);
    } finally {
      await v1.close();
      await v2.close();
    }
  }, 60_000);

  it("2026-07-28, v2 client: the notification on its subscriptions/listen stream; tools/list says ttlMs 0, cacheScope private", async () => {
    grant(["ledger.*"]);
    await new Promise((r) => setTimeout(r, 300));
    const list = await modern(s.url, token, "tools/list");
    expect(list.status).toBe(200);
    expect(list.body.result).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    const c = new ClientV2(
      { name: "v2-modern", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    let n = 0;
    c.setNotificationHandler("notifications/tools/list_changed", async () => void n++);
    await c.connect(new HttpV2(new URL(s.url), auth(token)));
    try {
      expect(c.getProtocolEra()).toBe("modern");
      const sub = await c.listen({ toolsListChanged: true });
      expect(sub.honoredFilter.toolsListChanged).toBe(true);
      expect((await c.listTools()).tools.map((t) => t.name)).toContain("ledger__transfer");
      grant(["ledger.balance"]);
      expect(await until(() => n > 0), s.stderr()).toBe(true);
      const after = (await c.listTools({}, { cacheMode: "bypass" } as never)).tools.map((t) => t.name);
      expect(after).not.toContain("ledger__transfer");
      await sub.close();
    } finally {
      await c.close();
    }
  }, 60_000);
});
