// `hcpx mcp --http` decides each call on the files as they are now, though it
// reuses the loaded project, pack and server config while their stamp is
// unchanged (src/mcp/stamp.ts): a grant revoked in the project config, a pack
// broken since, a principal's grant removed from the server config (no
// restart), each applies at the next call — also a same-size edit, right
// after a call or once the files have aged past the stamp's racy window. A
// server config that no longer loads refuses every call with a clear error
// (fail closed) until it is fixed; a principal removed from it is answered 403
// (served before or not); a principal added to it is served from its next request.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RACY_MS } from "../../src/mcp/stamp";
import { addToken, modern, serve, teamProject, type Served, type TeamProject } from "./http-support";

type Env = { ok: boolean; error?: { code: string; message: string; file?: string } };
const call = async (
  s: Served,
  token: string | undefined,
  verb = "balance",
  args: Record<string, unknown> = { account: "checking" },
): Promise<Env> => {
  const r = await modern(s.url, token, "tools/call", { name: "hcp", arguments: { pack: "ledger", verb, args } });
  expect(r.status).toBe(200);
  return (r.body.result as { structuredContent: Env }).structuredContent;
};
const aged = () => new Promise((r) => setTimeout(r, RACY_MS + 300));
/** Replace `from` by `to` (same length) in a file, in place. */
function sameSize(file: string, from: string, to: string): void {
  expect(to.length).toBe(from.length);
  const text = readFileSync(file, "utf8");
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

// Each case edits the files its server reads, and each waits for them to age
// (RACY_MS): one project and server a case, and the cases run at once.
describe("hcpx mcp --http: each call on the files as they are now", () => {
  type Case = { p: TeamProject; s: Served; alice: string };
  const cases: Case[] = [];
  const fixture = async (): Promise<Case> => {
    const p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } }, { confirm: "host" });
    const alice = addToken(p, "alice");
    const c = { p, alice, s: await serve(p, ["--server-config", p.serverConfig], { HCPX_AUDIT_LOG: "off" }) };
    cases.push(c);
    return c;
  };
  let config: Case, pack: Case, server: Case;
  beforeAll(async () => {
    [config, pack, server] = await Promise.all([fixture(), fixture(), fixture()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(cases.map((c) => c.s.stop()));
  });

  it.concurrent(
    "the project config: a grant revoked by a same-size edit applies at the next call, right after a call and after the files aged",
    async () => {
      const { p, s, alice } = config;
      expect((await call(s, alice)).ok).toBe(true);
      sameSize(p.config, '"ledger.*"', '"ledgex.*"');
      // nothing of ledger granted now: to the agent, a pack that is not there
      expect((await call(s, alice)).error?.code).toBe("unknown_pack");
      sameSize(p.config, '"ledgex.*"', '"ledger.*"');
      expect((await call(s, alice)).ok).toBe(true);
      // aged: now the stamp vouches for the files, and the next edit still changes it
      await aged();
      expect((await call(s, alice)).ok).toBe(true);
      expect((await call(s, alice)).ok).toBe(true);
      sameSize(p.config, '"ledger.*"', '"ledgex.*"');
      // nothing of ledger granted now: to the agent, a pack that is not there
      expect((await call(s, alice)).error?.code).toBe("unknown_pack");
      sameSize(p.config, '"ledgex.*"', '"ledger.*"');
      expect((await call(s, alice)).ok).toBe(true);
    },
    30_000,
  );

  it.concurrent(
    "the pack: a same-size edit that breaks its policy, after the files aged, is refused at the next call",
    async () => {
      const { p, s, alice } = pack;
      await aged();
      expect((await call(s, alice)).ok).toBe(true);
      const policy = join(p.dir, "packs", "ledger", "policy.json");
      const text = readFileSync(policy, "utf8");
      sameSize(policy, '"read"', '"reed"');
      try {
        expect((await call(s, alice)).error?.code).toBe("bad_pack");
      } finally {
        writeFileSync(policy, text);
      }
      expect((await call(s, alice)).ok).toBe(true);
    },
    30_000,
  );

  it.concurrent(
    "the server config: a principal's grant removed applies at the next call without a restart; a config that no longer loads refuses every call; a principal removed is answered 403",
    async () => {
      const { p, s, alice } = server;
      const original = readFileSync(p.serverConfig, "utf8");
      try {
        await aged();
        expect((await call(s, alice)).ok).toBe(true);
        // the grant narrowed to entry.add: balance is no longer granted to alice
        writeFileSync(
          p.serverConfig,
          JSON.stringify({ principals: { alice: { grants: { allow: ["ledger.entry.add"] } } } }),
        );
        const no = await call(s, alice);
        // to the agent, a command it was not granted is one its pack does not have (the audit keeps not_granted)
        expect(no.error?.code).toBe("unknown_verb");
        expect(no.error?.message).toBe("pack ledger has no command 'balance'");
        // the tool list follows too
        const listed = await modern(s.url, alice, "tools/list");
        expect(JSON.stringify(listed.body)).not.toMatch(/- ledger:.*balance/);
        // a config that no longer loads: refused, saying why, never the old grants
        writeFileSync(
          p.serverConfig,
          JSON.stringify({ principals: { alice: { grants: { allow: ["ledger.*"] } } }, typo_key: 1 }),
        );
        const broken = await call(s, alice);
        expect(broken.ok).toBe(false);
        expect(broken.error?.code).toBe("unknown_key");
        expect(broken.error?.message).toContain("the server config no longer loads");
        expect(broken.error?.message).toContain("typo_key");
        expect(s.stderr()).toContain("server config no longer loads, every call is refused until it is fixed");
        // fixed: served again, with the grants it says now
        writeFileSync(p.serverConfig, JSON.stringify({ principals: { alice: { grants: { allow: ["ledger.*"] } } } }));
        expect((await call(s, alice)).ok).toBe(true);
        // alice removed (bob added): her token still authenticates, her requests are 403; bob is served without a restart
        writeFileSync(p.serverConfig, JSON.stringify({ principals: { bob: { grants: { allow: ["ledger.*"] } } } }));
        await forbidden(s.url, alice, "alice");
        expect(s.stderr()).toContain("principal(s) bob added; served from their next request");
        const bob = addToken(p, "bob");
        expect((await call(s, bob)).ok).toBe(true);
        // and with his own grants, read at each call as alice's are
        writeFileSync(
          p.serverConfig,
          JSON.stringify({ principals: { bob: { grants: { allow: ["ledger.entry.add"] } } } }),
        );
        expect((await call(s, bob)).error?.code).toBe("unknown_verb");
        const bobs = await modern(s.url, bob, "tools/list");
        expect(JSON.stringify(bobs.body)).not.toMatch(/- ledger:.*balance/);
        // carol added, given a token, removed before her first call: authenticated, refused before anything is served
        writeFileSync(
          p.serverConfig,
          JSON.stringify({
            principals: { bob: { grants: { allow: ["ledger.*"] } }, carol: { grants: { allow: ["ledger.*"] } } },
          }),
        );
        const carol = addToken(p, "carol");
        writeFileSync(p.serverConfig, JSON.stringify({ principals: { bob: { grants: { allow: ["ledger.*"] } } } }));
        await forbidden(s.url, carol, "carol");
      } finally {
        writeFileSync(p.serverConfig, original);
      }
      expect((await call(s, alice)).ok).toBe(true);
    },
    30_000,
  );
});

/** A call with `token` of `principal`, whom the server config does not name now: 403 unknown_principal, saying who. */
async function forbidden(url: string, token: string, principal: string): Promise<void> {
  const r = await modern(url, token, "tools/call", {
    name: "hcp",
    arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
  });
  expect(r.status).toBe(403);
  expect(r.body).toEqual({
    error: "unknown_principal",
    error_description: `principal '${principal}' is not in the server config`,
  });
}
