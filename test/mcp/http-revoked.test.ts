// What the server config takes away while `hcpx mcp --http` runs is gone at
// the next request (docs/http.md "Changing the server config"): a JWT subject
// taken off a principal no longer authenticates as it (as `hcpx token remove`
// for a static token); a principal removed is answered 403 (unknown_principal)
// on every request, each an audit line, until it is added back; a server
// config that no longer loads serves no tools, no Skills and no prompts, and
// refuses every call; the log says why once, not on every request. A removed token's open
// streams (a 2025-era GET, a 2026-07-28 subscriptions/listen) are closed at the
// next announcement, before it is sent: they are told nothing more. A JWT's
// open streams are closed when it expires (exp, or iat + jwt.max_age_s),
// announcement or not.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  listenRequest,
  readStream,
  modern,
  serve,
  teamProject,
  testIssuer,
  type Served,
  type Stream,
  type TeamProject,
} from "./http-support";
import { until } from "../support/until";
import { runInProcess } from "../support/inproc";
import type { AuditRecord } from "../../src/runtime/audit";

type Env = { ok: boolean; error?: { code: string; message: string } };
const balance = { name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } } };
const envOf = (r: { body: Record<string, unknown> }) => (r.body.result as { structuredContent: Env }).structuredContent;
const count = (text: string, what: string) => text.split(what).length - 1;
/**
 * `hcpx token <args>` for the project's server config, in this process (test/support/inproc.ts) with the project's
 * own environment, as http-support's addToken/removeToken run it as a process: what the running server makes of
 * the tokens is under test here, not the token command's process (test/mcp/http-auth.test.ts races two adds).
 */
async function token(p: TeamProject, args: string[]): Promise<string> {
  const r = await runInProcess(["token", ...args, "--server-config", p.serverConfig, "--json"], {
    cwd: p.dir,
    env: p.env,
    pureEnv: true,
  });
  if (r.code !== 0) throw new Error(`token ${args.join(" ")} failed: ${r.stdout}${r.stderr}`);
  return r.stdout;
}
const addToken = async (p: TeamProject, principal: string): Promise<string> =>
  (JSON.parse(await token(p, ["add", principal])) as { data: { token: string } }).data.token;
const removeToken = async (p: TeamProject, principal: string): Promise<void> =>
  void (await token(p, ["remove", principal]));
/** how often the server's log (its stderr, a pipe apart from its answers) says `what`, once `n` have arrived and a moment passed */
const logged = async (s: Served, what: string, n: number) => {
  await until(() => count(s.stderr(), what) >= n, 5_000);
  await new Promise((r) => setTimeout(r, 200));
  return count(s.stderr(), what);
};

describe("hcpx mcp --http: what the server config takes away", () => {
  let iss: Awaited<ReturnType<typeof testIssuer>>;
  const servers: Served[] = [];
  const RESOURCE = "https://mcp.team.test/mcp";
  const alice = { grants: { allow: ["ledger.*"] } };
  const start = async (config: Record<string, unknown>): Promise<{ p: TeamProject; s: Served }> => {
    const p = teamProject(config, { confirm: "host" });
    const s = await serve(p, ["--server-config", p.serverConfig], { HCPX_AUDIT_LOG: "off" });
    servers.push(s);
    return { p, s };
  };
  beforeAll(async () => {
    iss = await testIssuer();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await iss?.close();
  });

  it("a JWT subject taken off a principal that remains no longer authenticates; a removed principal's subject is answered 403", async () => {
    const jwt = { issuer: iss.issuer, jwks_url: iss.jwksUrl };
    const { p, s } = await start({
      resource: RESOURCE,
      jwt,
      principals: { alice: { ...alice, subjects: ["u-alice", "u-mallory"] } },
    });
    const ofAlice = await iss.sign({ sub: "u-alice" }, { aud: RESOURCE });
    const ofMallory = await iss.sign({ sub: "u-mallory" }, { aud: RESOURCE });
    expect(envOf(await modern(s.url, ofMallory, "tools/call", balance)).ok).toBe(true);
    writeFileSync(
      p.serverConfig,
      JSON.stringify({ resource: RESOURCE, jwt, principals: { alice: { ...alice, subjects: ["u-alice"] } } }),
    );
    for (const method of ["tools/list", "tools/call"]) {
      const r = await modern(s.url, ofMallory, method, method === "tools/call" ? balance : {});
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toContain("the token's sub is no principal of this server");
    }
    expect(envOf(await modern(s.url, ofAlice, "tools/call", balance)).ok).toBe(true);
    // alice removed: her subject still authenticates as her, and the config does not name her (403 unknown_principal)
    writeFileSync(
      p.serverConfig,
      JSON.stringify({ resource: RESOURCE, jwt, principals: { bob: { ...alice, subjects: ["u-bob"] } } }),
    );
    for (const jwt of [ofAlice, ofMallory])
      for (const method of ["tools/list", "tools/call"]) {
        const r = await modern(s.url, jwt, method, method === "tools/call" ? balance : {});
        expect(r.status).toBe(403);
        expect(r.body.error).toBe("unknown_principal");
      }
  }, 30_000);
});

describe("hcpx mcp --http: a principal removed, a server config that no longer loads", () => {
  let p: TeamProject;
  let s: Served;
  let alice: string;
  let audit: string;
  beforeAll(async () => {
    p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } }, { confirm: "host" });
    alice = await addToken(p, "alice");
    audit = join(p.state, "hcpx", "audit.jsonl");
    s = await serve(p, ["--server-config", p.serverConfig]);
  }, 60_000);
  afterAll(async () => s?.stop());

  const skill = { name: "hcp__read_skill", arguments: { pack: "ledger" } };
  const uri = "skill://ledger/SKILL.md";
  /** What alice is served: her tools, the Skill (as a tool and as a resource), her prompts and a call. */
  const served = async () => {
    const list = (await modern(s.url, alice, "tools/list")).body.result as { tools: unknown[] };
    const read = await modern(s.url, alice, "tools/call", skill);
    const resources = (await modern(s.url, alice, "resources/list")).body.result as { resources: unknown[] };
    const resource = await modern(s.url, alice, "resources/read", { uri });
    const prompts = (await modern(s.url, alice, "prompts/list")).body.result as { prompts: unknown[] };
    const call = envOf(await modern(s.url, alice, "tools/call", balance));
    return { list, read, resources, resource, prompts, call };
  };
  /** Nothing is served, and each refusal says why (`code`, `why`). */
  const nothing = async (code: string, why: string) => {
    const r = await served();
    expect(r.list.tools).toEqual([]);
    expect(r.resources.resources).toEqual([]);
    expect(r.prompts.prompts).toEqual([]);
    expect(envOf(r.read).error?.code).toBe(code);
    expect(envOf(r.read).error?.message).toContain(why);
    expect(r.resource.body.result).toBeUndefined();
    expect((r.resource.body.error as { message: string }).message).toContain(why);
    expect(r.call.error?.code).toBe(code);
  };
  /** Every request of alice's is answered 403 unknown_principal: the lists, the calls, the reads, both eras' streams, initialize; how many were sent. */
  const forbidden = async (): Promise<number> => {
    const answers = [
      await modern(s.url, alice, "tools/list"),
      await modern(s.url, alice, "tools/call", skill),
      await modern(s.url, alice, "resources/list"),
      await modern(s.url, alice, "resources/read", { uri }),
      await modern(s.url, alice, "prompts/list"),
      await modern(s.url, alice, "tools/call", balance),
      await answer(listenRequest(s.url, alice)),
      await answer(legacyGet(s.url, alice)),
      await answer(legacyInitialize(s.url, alice)),
    ];
    for (const r of answers) {
      expect(r.status).toBe(403);
      expect((r.body as { error: string }).error).toBe("unknown_principal");
    }
    return answers.length;
  };
  /** alice's 403s in the audit log: forbidden, unknown_principal, "not in the server config"; how many they count. */
  const forbiddenCounted = () =>
    existsSync(audit)
      ? readFileSync(audit, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as AuditRecord)
          .filter((r) => r.decision === "forbidden")
          .reduce((n, r) => {
            expect(r).toMatchObject({
              principal: "alice",
              tool: "(none)",
              result: "unknown_principal",
              refused: { reason: "not in the server config", address: "127.0.0.1" },
            });
            return n + (r.refused?.count ?? 0);
          }, 0)
      : 0;

  it("a removed principal is answered 403 on every request, each an audit line, and is served again once added back; a config that does not load serves no tools, no Skill, no prompts, refuses every call, and the log says why once", async () => {
    const original = JSON.stringify({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    const before = await served();
    expect(before.list.tools.length).toBeGreaterThan(0);
    expect(JSON.stringify(before.read.body)).toContain("ledger");
    expect(JSON.stringify(before.resource.body.result)).toContain("# ledger");
    expect(before.call.ok).toBe(true);
    try {
      writeFileSync(p.serverConfig, JSON.stringify({ principals: { bob: { grants: { allow: ["ledger.*"] } } } }));
      const sent = (await forbidden()) + (await forbidden());
      expect(await until(() => forbiddenCounted() >= sent, 5_000)).toBe(true);
      expect(forbiddenCounted()).toBe(sent);
      // added back: served again from the next request
      writeFileSync(p.serverConfig, original);
      const back = await served();
      expect(back.list.tools).toEqual(before.list.tools);
      expect(back.call.ok).toBe(true);
      // a server config that no longer loads: not the principal's doing, it is not refused (403) but served nothing
      writeFileSync(p.serverConfig, original.replace("{", '{"typo_key":1,'));
      await nothing("unknown_key", "typo_key");
      await nothing("unknown_key", "typo_key");
      expect(await logged(s, "config not reloaded: the server config no longer loads", 1)).toBe(1);
      writeFileSync(p.serverConfig, original);
      const again = await served();
      expect(again.list.tools).toEqual(before.list.tools);
      expect(again.call.ok).toBe(true);
      expect(again.resource.body.result).toEqual(before.resource.body.result);
      expect(forbiddenCounted()).toBe(sent);
    } finally {
      writeFileSync(p.serverConfig, original);
    }
  }, 60_000);
});

/** A raw response's status and JSON body; a stream (200: served, not refused) is cancelled, not read. */
const answer = async (res: Promise<Response>) => {
  const r = await res;
  if (r.ok) await r.body?.cancel();
  return { status: r.status, body: r.ok ? {} : ((await r.json()) as Record<string, unknown>) };
};

/** A 2025-era client's GET (the stream it opens after initialize), raw: the response. */
const legacyGet = (url: string, token: string) =>
  fetch(url, {
    method: "GET",
    headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", authorization: `Bearer ${token}` },
  });

/** A 2025-era client's initialize, raw: the response. */
const legacyInitialize = (url: string, token: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });

/** An open event stream: what it received so far, and whether the server ended it. */
async function streamOf(res: Response): Promise<Stream> {
  expect(res.status).toBe(200);
  return readStream(res);
}

/** A 2025-era client's GET stream (opened after initialize; served without a session). */
const legacyStream = async (url: string, token: string) =>
  streamOf(
    await fetch(url, {
      method: "GET",
      headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", authorization: `Bearer ${token}` },
    }),
  );

/** A 2026-07-28 client's subscriptions/listen stream for the tool list. */
const listenStream = async (url: string, token: string) => {
  const s = await streamOf(await listenRequest(url, token));
  expect(await until(() => s.got().includes("acknowledged"), 5_000)).toBe(true);
  return s;
};

/** A team server whose config names alice and bob, each granted ledger.*, each with a token. */
async function aliceAndBob() {
  const principals = { alice: { grants: { allow: ["ledger.*"] } }, bob: { grants: { allow: ["ledger.*"] } } };
  const p = teamProject({ principals });
  const alice = await addToken(p, "alice");
  const bob = await addToken(p, "bob");
  const s = await serve(p, ["--server-config", p.serverConfig]);
  return { principals, p, alice, bob, s };
}

/** After an announcement: the `kept` streams are told of it and stay open; the `gone` ones are closed and told nothing. */
async function afterAnnouncement({ gone, kept }: { gone: Stream[]; kept: Stream[] }): Promise<void> {
  const told = (x: Stream) => x.got().includes("notifications/tools/list_changed");
  expect(await until(() => kept.every(told), 10_000)).toBe(true);
  expect(await until(() => gone.every((x) => x.ended()), 5_000)).toBe(true);
  for (const x of gone) expect(told(x)).toBe(false);
  expect(kept.some((x) => x.ended())).toBe(false);
}

describe("hcpx mcp --http: a removed token's open streams", () => {
  it("a 2025-era GET stream and a 2026-07-28 listen stream of a removed token are closed at the next announcement and told nothing; another token's are told", async () => {
    const { principals, p, alice, bob, s } = await aliceAndBob();
    const streams: Stream[] = [];
    try {
      const [aGet, aListen, bGet, bListen] = await Promise.all([
        legacyStream(s.url, alice),
        listenStream(s.url, alice),
        legacyStream(s.url, bob),
        listenStream(s.url, bob),
      ]);
      streams.push(aGet, aListen, bGet, bListen);
      await removeToken(p, "alice");
      expect((await modern(s.url, alice, "tools/list")).status).toBe(401);
      // a grant change: an announcement
      principals.alice.grants.allow = ["ledger.balance"];
      principals.bob.grants.allow = ["ledger.balance"];
      writeFileSync(p.serverConfig, JSON.stringify({ principals }));
      await afterAnnouncement({ gone: [aGet, aListen], kept: [bGet, bListen] });
    } finally {
      await Promise.all(streams.map((x) => x.cancel()));
      await s.stop();
    }
  }, 60_000);
});

describe("hcpx mcp --http: a removed principal's open streams", () => {
  it("a principal taken out of the server config: its streams (token still there) are closed at the announcement and told nothing", async () => {
    const { p, alice, bob, s } = await aliceAndBob();
    const streams: Stream[] = [];
    try {
      const [aGet, bGet, bListen] = await Promise.all([
        legacyStream(s.url, alice),
        legacyStream(s.url, bob),
        listenStream(s.url, bob),
      ]);
      streams.push(aGet, bGet, bListen);
      // bob out, alice's grants changed: an announcement
      writeFileSync(
        p.serverConfig,
        JSON.stringify({ principals: { alice: { grants: { allow: ["ledger.balance"] } } } }),
      );
      await afterAnnouncement({ gone: [bGet, bListen], kept: [aGet] });
    } finally {
      await Promise.all(streams.map((x) => x.cancel()));
      await s.stop();
    }
  }, 60_000);
});

describe("hcpx mcp --http: the audit record of a call refused by the server config", () => {
  it("a removed principal's call is recorded as forbidden (403), a call while the server config does not load as refused, not ran", async () => {
    const original = { principals: { alice: { grants: { allow: ["ledger.*"] } } } };
    const p = teamProject(original, { confirm: "host" });
    const alice = await addToken(p, "alice");
    const s = await serve(p, ["--server-config", p.serverConfig]);
    const audit = join(p.state, "hcpx", "audit.jsonl");
    const records = () =>
      readFileSync(audit, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AuditRecord);
    try {
      expect(envOf(await modern(s.url, alice, "tools/call", balance)).ok).toBe(true);
      writeFileSync(p.serverConfig, JSON.stringify({ principals: { bob: { grants: { allow: ["ledger.*"] } } } }));
      expect((await modern(s.url, alice, "tools/call", balance)).status).toBe(403);
      writeFileSync(p.serverConfig, JSON.stringify({ typo_key: 1, ...original }));
      expect(envOf(await modern(s.url, alice, "tools/call", balance)).error?.code).toBe("unknown_key");
      const skill = { name: "hcp__read_skill", arguments: { pack: "ledger" } };
      expect(envOf(await modern(s.url, alice, "tools/call", skill)).error?.code).toBe("unknown_key");
      expect(await until(() => existsSync(audit) && records().length >= 4, 5_000)).toBe(true);
      expect(records().map((r) => [r.principal, r.tool, r.decision, r.result])).toEqual([
        ["alice", "hcp", "ran", "ok"],
        ["alice", "(none)", "forbidden", "unknown_principal"],
        ["alice", "hcp", "refused", "unknown_key"],
        ["alice", "hcp__read_skill", "refused", "unknown_key"],
      ]);
    } finally {
      await s.stop();
    }
  }, 30_000);
});

describe("hcpx mcp --http: a JWT's open streams", () => {
  it("are closed when the JWT expires (exp, or iat + jwt.max_age_s, + the 30 s clock tolerance), with no announcement; a longer JWT's stay open", async () => {
    const iss = await testIssuer();
    const RESOURCE = "https://mcp.team.test/mcp";
    const p = teamProject({
      resource: RESOURCE,
      jwt: { issuer: iss.issuer, jwks_url: iss.jwksUrl, max_age_s: 600 },
      principals: { alice: { subjects: ["u-alice"], grants: { allow: ["ledger.*"] } } },
    });
    const s = await serve(p, ["--server-config", p.serverConfig], { HCPX_AUDIT_LOG: "off" });
    const streams: Stream[] = [];
    try {
      // expired 27 s ago (or issued 628 s ago, 600 s the most): still taken for about 3 s (the 30 s
      // clock tolerance), and not a moment longer
      const now = Math.floor(Date.now() / 1000);
      const closing = (now - 27 + 30) * 1000;
      const short = await iss.sign({ sub: "u-alice" }, { aud: RESOURCE, exp: now - 27 });
      // (jose takes a token exactly max_age_s old: refused from a second later)
      const aged = await iss.sign({ sub: "u-alice" }, { aud: RESOURCE, iat: now - 628, exp: now + 3600 });
      const long = await iss.sign({ sub: "u-alice" }, { aud: RESOURCE });
      const closed = await Promise.all([
        legacyStream(s.url, short),
        listenStream(s.url, short),
        legacyStream(s.url, aged),
      ]);
      const kept = await Promise.all([legacyStream(s.url, long), listenStream(s.url, long)]);
      streams.push(...closed, ...kept);
      // closed on the token's expiry, not before (nor at once), and not much later
      expect(await until(() => closed.every((x) => x.ended()), 10_000)).toBe(true);
      for (const x of closed) expect(x.endedAt()).toBeGreaterThanOrEqual(closing);
      for (const x of closed) expect(x.endedAt()).toBeLessThan(closing + 2_000);
      // nothing was announced: the other streams are open and were told nothing
      expect(kept.map((x) => x.ended())).toEqual([false, false]);
      expect(kept.map((x) => x.got()).join("")).not.toContain("list_changed");
      for (const jwt of [short, aged]) expect((await modern(s.url, jwt, "tools/list")).status).toBe(401);
    } finally {
      await Promise.all(streams.map((x) => x.cancel()));
      await s.stop();
      await iss.close();
    }
  }, 30_000);
});
