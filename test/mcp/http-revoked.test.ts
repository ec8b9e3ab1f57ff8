// What the server config takes away while `hcpx mcp --http` runs is gone at
// the next request (docs/http.md "Changing the server config"): a JWT subject
// taken off a principal no longer authenticates as it (as `hcpx token remove`
// for a static token); a principal removed, or a server config that no longer
// loads, is served no tools, no Skills and no prompts, and its tool calls are
// refused; the log says why once, not on every request.
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modern, serve, teamProject, testIssuer, type Served, type TeamProject } from "./http-support";

type Env = { ok: boolean; error?: { code: string; message: string } };
const balance = { name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } } };
const envOf = (r: { body: Record<string, unknown> }) => (r.body.result as { structuredContent: Env }).structuredContent;

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

  it("a JWT subject taken off a principal that remains no longer authenticates; a removed principal's subject is refused per call", async () => {
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
    // alice removed: her subject still authenticates as her, and her calls are refused (unknown_principal)
    writeFileSync(
      p.serverConfig,
      JSON.stringify({ resource: RESOURCE, jwt, principals: { bob: { ...alice, subjects: ["u-bob"] } } }),
    );
    for (const jwt of [ofAlice, ofMallory])
      expect(envOf(await modern(s.url, jwt, "tools/call", balance)).error?.code).toBe("unknown_principal");
  }, 30_000);
});
