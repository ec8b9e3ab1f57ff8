// Stateless across instances (docs/http.md): several `hcpx mcp --http`
// instances that share the requestState key (the server config's key_file)
// answer each other's confirm questions, each answer runs exactly once across
// them (the shared spent store), and an instance with another key says so
// ("signed by another key") instead of a bare refusal. A state is bound to
// its principal: another principal cannot answer it; and to the question the
// person was shown: an answer after the command's Policy changed runs nothing.
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addToken, modern, serve, teamProject, tmp, type Served, type TeamProject } from "./http-support";

const transfer = {
  name: "hcp",
  arguments: { pack: "ledger", verb: "transfer", args: { from: "checking", to: "savings", amount: 7 } },
};
const accept = { confirm: { action: "accept", content: {} } };

function keyFile(): string {
  const f = join(tmp("hcpx-key-"), "state.key");
  writeFileSync(f, randomBytes(32).toString("hex") + "\n", { mode: 0o600 });
  return f;
}

describe("hcpx mcp --http: requestState across instances", () => {
  let p: TeamProject;
  let a: Served;
  let b: Served;
  let c: Served;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    const principals = { alice: { grants: { allow: ["ledger.*"] } }, bob: { grants: { allow: ["ledger.*"] } } };
    p = teamProject({ request_state: { key_file: keyFile() }, principals });
    const other = join(p.dir, "other.json5");
    // the other instance's key comes from an environment variable (request_state.key_env)
    writeFileSync(
      other,
      JSON.stringify({
        request_state: { key_env: "TEAM_STATE_KEY" },
        tokens_file: join(p.state, "hcpx", "tokens.json"),
        principals,
      }),
    );
    alice = addToken(p, "alice");
    bob = addToken(p, "bob");
    [a, b, c] = await Promise.all([
      serve(p, ["--server-config", p.serverConfig]),
      serve(p, ["--server-config", p.serverConfig]),
      serve(p, ["--server-config", other], { TEAM_STATE_KEY: randomBytes(32).toString("hex") }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
  });

  const ask = async (s: Served, token: string) => {
    const r = await modern(s.url, token, "tools/call", transfer);
    const res = r.body.result as { resultType: string; requestState: string };
    expect(res.resultType).toBe("input_required");
    return res.requestState;
  };

  it("a question asked on one instance is answered on another: the write runs once; a replay on either runs nothing", async () => {
    const before = readFileSync(p.ledger, "utf8");
    const state = await ask(a, alice);
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
    const ok = await modern(b.url, alice, "tools/call", { ...transfer, inputResponses: accept, requestState: state });
    expect((ok.body.result as { structuredContent: { ok: boolean } }).structuredContent.ok).toBe(true);
    const after = readFileSync(p.ledger, "utf8");
    expect(after).not.toBe(before);
    for (const s of [a, b]) {
      const replay = await modern(s.url, alice, "tools/call", {
        ...transfer,
        inputResponses: accept,
        requestState: state,
      });
      expect(replay.body.error).toMatchObject({ code: -32602, data: { reason: "request_state_replayed" } });
    }
    expect(readFileSync(p.ledger, "utf8")).toBe(after);
  });

  it("an answer with other args is refused and leaves the state good for its own call; of three answers at once, one runs", async () => {
    const legs = () => (readFileSync(p.ledger, "utf8").match(/"transfer":/g) ?? []).length;
    const before = legs();
    const state = await ask(a, alice);
    const otherArgs = {
      ...transfer,
      arguments: { ...transfer.arguments, args: { ...transfer.arguments.args, amount: 8 } },
    };
    const other = await modern(a.url, alice, "tools/call", {
      ...otherArgs,
      inputResponses: accept,
      requestState: state,
    });
    expect(other.body.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
    expect(legs()).toBe(before);
    // the person's yes is not lost: the call it was asked about still takes it, on either instance
    const ok = await modern(b.url, alice, "tools/call", { ...transfer, inputResponses: accept, requestState: state });
    expect((ok.body.result as { structuredContent: { ok: boolean } }).structuredContent.ok).toBe(true);
    expect(legs()).toBe(before + 2);
    const state2 = await ask(a, alice);
    const answers = await Promise.all(
      [a, b, a].map((s) =>
        modern(s.url, alice, "tools/call", { ...transfer, inputResponses: accept, requestState: state2 }),
      ),
    );
    const ran = answers.filter(
      (r) => (r.body.result as { structuredContent?: { ok: boolean } })?.structuredContent?.ok,
    );
    expect(ran.length).toBe(1);
    const replayed = answers.filter(
      (r) => (r.body.error as { data?: { reason?: string } })?.data?.reason === "request_state_replayed",
    );
    expect(replayed.length).toBe(2);
    expect(legs()).toBe(before + 4);
  });

  it("an instance with another key says the state was signed by another key; nothing runs", async () => {
    const before = readFileSync(p.ledger, "utf8");
    const state = await ask(a, alice);
    const r = await modern(c.url, alice, "tools/call", { ...transfer, inputResponses: accept, requestState: state });
    expect(r.body.error).toMatchObject({ code: -32602, data: { reason: "request_state_other_key" } });
    expect((r.body.error as { message: string }).message).toMatch(
      /signed by another key: instances must share one requestState key/,
    );
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
    // the state was not spent by the refusal: its own key's instances still take it
    const ok = await modern(b.url, alice, "tools/call", { ...transfer, inputResponses: accept, requestState: state });
    expect((ok.body.result as { structuredContent: { ok: boolean } }).structuredContent.ok).toBe(true);
  });

  it("another principal cannot answer a principal's question", async () => {
    const before = readFileSync(p.ledger, "utf8");
    const state = await ask(a, alice);
    const r = await modern(b.url, bob, "tools/call", { ...transfer, inputResponses: accept, requestState: state });
    expect(r.body.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
    expect((r.body.error as { message: string }).message).toContain(
      "the answer is for another principal's call of ledger.transfer, not bob's",
    );
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
  });

  it("a 2025-era client over HTTP cannot be asked: under confirm person its confirm: true runs nothing (confirm_required)", async () => {
    const before = readFileSync(p.ledger, "utf8");
    const l = new ClientV1({ name: "v1", version: "1" }, { capabilities: { elicitation: {} } });
    await l.connect(new HttpV1(new URL(a.url), { requestInit: { headers: { authorization: `Bearer ${alice}` } } }));
    const r = await l.callTool({ ...transfer, arguments: { ...transfer.arguments, confirm: true } });
    expect((r.structuredContent as { error: { code: string } }).error.code).toBe("confirm_required");
    await l.close();
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
  });
});

describe("hcpx mcp --http: a requestState is bound to the question the person was shown", () => {
  let p: TeamProject;
  let s: Served;
  let alice: string;
  beforeAll(async () => {
    p = teamProject({ principals: { alice: { grants: { allow: ["ledger.*"] } } } });
    alice = addToken(p, "alice");
    s = await serve(p, ["--server-config", p.serverConfig]);
  }, 60_000);
  afterAll(async () => s?.stop());

  const policy = () => join(p.dir, "packs", "ledger", "policy.json");
  const land = (from: string, to: string) =>
    writeFileSync(
      policy(),
      readFileSync(policy(), "utf8").replace(
        `"transfer":     { operation: "write", land: "${from}"`,
        `"transfer":     { operation: "write", land: "${to}"`,
      ),
    );

  it("the command's Policy changed between the question and the answer (land remote → external): refused (mismatch), nothing runs", async () => {
    const first = await modern(s.url, alice, "tools/call", transfer);
    const res = first.body.result as {
      requestState: string;
      inputRequests: { confirm: { params: { message: string } } };
    };
    expect(res.inputRequests.confirm.params.message).toContain("lands: remote");
    land("remote", "external");
    expect(readFileSync(policy(), "utf8")).toContain('land: "external"');
    const before = readFileSync(p.ledger, "utf8");
    const r = await modern(s.url, alice, "tools/call", {
      ...transfer,
      inputResponses: accept,
      requestState: res.requestState,
    });
    expect(r.body.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
    expect((r.body.error as { message: string }).message).toContain("changed since the person was asked");
    expect(readFileSync(p.ledger, "utf8")).toBe(before);
    // asked anew, the question says where it lands now, and that yes runs it
    const again = await modern(s.url, alice, "tools/call", transfer);
    const res2 = again.body.result as {
      requestState: string;
      inputRequests: { confirm: { params: { message: string } } };
    };
    expect(res2.inputRequests.confirm.params.message).toContain("lands: external");
    const ok = await modern(s.url, alice, "tools/call", {
      ...transfer,
      inputResponses: accept,
      requestState: res2.requestState,
    });
    expect((ok.body.result as { structuredContent: { ok: boolean } }).structuredContent.ok).toBe(true);
    expect(readFileSync(p.ledger, "utf8")).not.toBe(before);
    land("external", "remote");
  });
});
