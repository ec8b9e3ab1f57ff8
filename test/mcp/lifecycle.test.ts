// The server's lifetime and its stdout, seen from a raw child process: it exits
// when stdin closes (clients leave timed-out servers running, HOSTS.md), stops on
// SIGTERM, and writes nothing but JSON-RPC on stdout.
import { type ChildProcessWithoutNullStreams } from "node:child_process";
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHcpx, spawnHcpx } from "../support/cli";
import { tmp } from "../support/project";
import { ledgerProject } from "./support";

function startRaw(
  dir: string,
  home: string,
  ledger: string,
): {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  const child = spawnHcpx(["mcp"], {
    cwd: dir,
    pureEnv: true,
    env: { PATH: process.env.PATH ?? "", HOME: home, LEDGER_FILE: ledger, NO_COLOR: "1" },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  // a guard against a hung server, not a timing assertion: the test fails if it never exits
  const guard = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal });
    }),
  );
  return { child, out: () => out, err: () => err, exited };
}

const send = (child: ChildProcessWithoutNullStreams, msg: unknown) => child.stdin.write(JSON.stringify(msg) + "\n");

async function waitFor(pred: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !pred(); i++) await new Promise((r) => setTimeout(r, 20));
}

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("hcpx mcp lifetime", () => {
  it("exits 0 when its stdin closes, before and after a session", async () => {
    const p = ledgerProject({ packs: ["ledger"] });
    const idle = startRaw(p.dir, p.home, p.ledger);
    idle.child.stdin.end();
    expect(await idle.exited).toEqual({ code: 0, signal: null });

    const s = startRaw(p.dir, p.home, p.ledger);
    send(s.child, INIT);
    send(s.child, { jsonrpc: "2.0", method: "notifications/initialized" });
    send(s.child, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "hcp", arguments: { pack: "ledger", verb: "accounts" } },
    });
    await waitFor(() => s.out().split("\n").filter(Boolean).length >= 2);
    s.child.stdin.end();
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });

  it("stops on SIGTERM", async () => {
    const p = ledgerProject({ packs: ["ledger"] });
    const s = startRaw(p.dir, p.home, p.ledger);
    send(s.child, INIT);
    await waitFor(() => s.out().includes('"id":1'));
    s.child.kill("SIGTERM");
    const r = await s.exited;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
  });

  it("writes only JSON-RPC messages on stdout, even for failing calls; logs go to stderr", async () => {
    const p = ledgerProject({ packs: ["ledger"], allow: ["ledger.balance"] });
    const s = startRaw(p.dir, p.home, p.ledger);
    send(s.child, INIT);
    send(s.child, { jsonrpc: "2.0", method: "notifications/initialized" });
    send(s.child, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    send(s.child, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "nosuch" } } },
    });
    send(s.child, {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "hcp", arguments: { pack: "ledger", verb: "transfer", args: {} } },
    });
    send(s.child, { jsonrpc: "2.0", id: 5, method: "no/such/method" });
    send(s.child, {
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "hcp", arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } } },
    });
    // the calls run concurrently: wait for every answer (closing stdin earlier would still get each answer: stdin-eof.test.ts)
    await waitFor(() => [2, 3, 4, 5, 6].every((id) => s.out().includes(`"id":${id}`)));
    s.child.stdin.end();
    await s.exited;
    const lines = s
      .out()
      .split("\n")
      .filter((l) => l !== "");
    const msgs = lines.map(
      (l) =>
        JSON.parse(l) as {
          jsonrpc: string;
          id?: number;
          result?: { isError?: boolean; structuredContent?: { ok: boolean; error?: { code: string } } };
          error?: unknown;
        },
    );
    expect(msgs.every((m) => m.jsonrpc === "2.0")).toBe(true);
    const byId = Object.fromEntries(msgs.map((m) => [m.id, m]));
    expect(byId[3]!.result!.isError).toBe(true);
    expect(byId[3]!.result!.structuredContent!.error!.code).toBe("exit_nonzero");
    expect(byId[4]!.result!.structuredContent!.error!.code).toBe("unknown_verb"); // not granted: to the agent, not there
    expect(byId[5]!.error).toBeTruthy();
    expect(byId[6]!.result!.structuredContent!.ok).toBe(true);
    expect(s.err()).toContain("hcpx mcp: serving 1 pack(s)");
  });

  it("a bad --shape or a broken config is reported on stderr with exit non-zero, never on stdout", async () => {
    const p = ledgerProject({ packs: ["ledger"] });
    const bad = await runHcpx(["mcp", "--shape", "tools"], { cwd: p.dir });
    expect(bad.code).toBe(64);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/unknown --shape 'tools'/);
    writeFileSync(p.config, '{ packs: ["./packs/ledger"], grants: { allow: [ledger.*] } }\n');
    const broken = await runHcpx(["mcp"], { cwd: p.dir });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe("");
    expect(broken.stderr).toMatch(/hcp\.config\.json5:1:\d+/);
  });

  it("with no config anywhere (a user-scope entry outside a project) it serves no packs and says why", async () => {
    const empty = tmp("hcpx-mcp-noconf-");
    const s = startRaw(empty, tmp("hcpx-mcp-home-"), join(empty, "ledger.json"));
    send(s.child, INIT);
    await waitFor(() => s.out().includes('"id":1'));
    send(s.child, { jsonrpc: "2.0", method: "notifications/initialized" });
    send(s.child, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    send(s.child, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "hcp", arguments: { pack: "ledger", verb: "accounts" } },
    });
    await waitFor(() => s.out().includes('"id":3'));
    s.child.stdin.end();
    expect((await s.exited).code).toBe(0);
    const msgs = s
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const byId = Object.fromEntries(msgs.map((m) => [m.id, m]));
    expect(byId[1].result.instructions).toMatch(/No hcp\.config\.json5 in .* no packs are served\. Run `hcpx init`/);
    expect(byId[2].result.tools.map((t: { name: string }) => t.name)).toEqual(["hcp", "hcp__read_skill"]);
    expect(byId[2].result.tools[0].description).toContain("(none granted)");
    expect(byId[3].result.isError).toBe(true);
    expect(byId[3].result.structuredContent.error.code).toBe("unknown_pack");
  });
});
