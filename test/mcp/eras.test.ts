// Both MCP eras on one `hcpx mcp` (issue 23): the v1 SDK client (legacy,
// initialize), the v2 SDK client (modern 2026-07-28, and `auto`), and raw
// JSON-RPC lines over the real process's stdio for what a client library
// hides (server/discover, the unsupported-version error, a tampered,
// replayed or mismatched requestState). The ledger's real bin writes the
// ledger file: its bytes say whether a write ran.
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HCPX } from "../support/cli";
import { grantedLedger, startMcp, writeConfig, type Ledgered } from "./support";

const MODERN = "2026-07-28";
const envOf = (p: Ledgered): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: p.home,
  NO_COLOR: "1",
  LEDGER_FILE: p.ledger,
  LEDGER_NOW: "2026-01-01T00:00:00Z",
});

function project(confirm?: unknown): Ledgered {
  return grantedLedger(confirm === undefined ? {} : { confirm });
}

/** `hcpx mcp` as a child with line-delimited JSON-RPC on its stdio. */
class Raw {
  private child: ChildProcessWithoutNullStreams;
  private buf = "";
  private waiting = new Map<number | string, (m: Record<string, unknown>) => void>();
  readonly lines: Record<string, unknown>[] = [];
  private id = 0;
  constructor(p: Ledgered, args: string[] = []) {
    this.child = spawn(process.execPath, [HCPX, "mcp", ...args], { cwd: p.dir, env: envOf(p) });
    this.child.stdout.setEncoding("utf8").on("data", (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf("\n")) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        if (!line.trim()) continue;
        const m = JSON.parse(line) as Record<string, unknown>;
        this.lines.push(m);
        const w = m.id !== undefined ? this.waiting.get(m.id as number) : undefined;
        if (w) w(m);
      }
    });
  }
  request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = ++this.id;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer to ${method}`)), 15000);
      this.waiting.set(id, (m) => {
        clearTimeout(t);
        resolve(m);
      });
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }
  notify(method: string, params: Record<string, unknown> = {}): void {
    this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
  }
  /** A modern request: the per-request _meta envelope. */
  modern(
    method: string,
    params: Record<string, unknown> = {},
    caps: Record<string, unknown> = { elicitation: {} },
    version = MODERN,
  ): Promise<Record<string, unknown>> {
    return this.request(method, {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      },
    });
  }
  close(): Promise<void> {
    return new Promise((r) => {
      this.child.on("close", () => r());
      this.child.stdin.end();
    });
  }
}

const transfer = (amount = 7) => ({
  name: "hcp",
  arguments: { pack: "ledger", verb: "transfer", args: { from: "checking", to: "savings", amount } },
});
const result = (m: Record<string, unknown>) => m.result as Record<string, unknown>;
const envelope = (r: Record<string, unknown>) =>
  r.structuredContent as { ok: boolean; error?: { code: string; message: string } };

describe("hcpx mcp: the 2026-07-28 era on stdio", () => {
  it("answers server/discover, lists tools with resultType and cache fields, and names its versions for an unsupported one", async () => {
    const p = project();
    const s = new Raw(p);
    try {
      const d = result(await s.modern("server/discover"));
      expect(d.resultType).toBe("complete");
      expect(d.supportedVersions).toContain(MODERN);
      expect(d.capabilities).toMatchObject({ tools: { listChanged: true } });
      expect(typeof d.ttlMs).toBe("number");
      expect(d.cacheScope).toBeDefined();
      const l = result(await s.modern("tools/list"));
      expect(l.resultType).toBe("complete");
      expect(typeof l.ttlMs).toBe("number");
      expect(l.cacheScope).toBeDefined();
      const names = (l.tools as { name: string }[]).map((t) => t.name);
      expect(names).toEqual(["hcp", "hcp__read_skill"]);
      const bad = await s.modern("tools/list", {}, {}, "1900-01-01");
      expect(bad.error).toMatchObject({ code: -32022, data: { requested: "1900-01-01" } });
      expect((bad.error as { data: { supported: string[] } }).data.supported).toContain(MODERN);
      // a read runs, statelessly
      const r = result(
        await s.modern("tools/call", {
          name: "hcp",
          arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
        }),
      );
      expect(r.resultType).toBe("complete");
      expect(envelope(r).ok).toBe(true);
    } finally {
      await s.close();
    }
  });

  it("answers initialize at 2025-06-18 and 2025-11-25 (legacy) with that version", async () => {
    const p = project();
    for (const v of ["2025-06-18", "2025-11-25"]) {
      const s = new Raw(p);
      try {
        const r = result(
          await s.request("initialize", {
            protocolVersion: v,
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          }),
        );
        expect(r.protocolVersion).toBe(v);
        expect(r.resultType).toBeUndefined();
        s.notify("notifications/initialized");
        const l = result(await s.request("tools/list"));
        expect(l.ttlMs).toBeUndefined();
        expect((l.tools as unknown[]).length).toBe(2);
      } finally {
        await s.close();
      }
    }
  });

  it("the v2 SDK client pinned to 2026-07-28 and in auto mode lands modern; the v1 client lands legacy; tool metadata comes from the Policy in both", async () => {
    const p = project();
    for (const mode of [{ pin: MODERN } as const, "auto" as const]) {
      const client = new ClientV2({ name: "v2", version: "1" }, { versionNegotiation: { mode } });
      await client.connect(
        new StdioV2({
          command: process.execPath,
          args: [HCPX, "mcp", "--shape", "per-command"],
          cwd: p.dir,
          env: envOf(p),
          stderr: "ignore",
        }),
      );
      try {
        expect(client.getProtocolEra()).toBe("modern");
        const { tools } = await client.listTools();
        const transfer = tools.find((t) => t.name === "ledger__transfer")!;
        expect(transfer.title).toMatch(/^ledger: /);
        expect(transfer.annotations).toMatchObject({
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
        });
        const balance = tools.find((t) => t.name === "ledger__balance")!;
        expect(balance.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
        // input validation failures are tool errors, not protocol errors
        const bad = await client.callTool({ name: "ledger__balance", arguments: { nope: 1 } });
        expect(bad.isError).toBe(true);
        expect((bad.structuredContent as { error: { code: string } }).error.code).toBe("bad_args");
      } finally {
        await client.close();
      }
    }
    const v1 = await startMcp(p, { shape: "per-command" });
    try {
      expect(v1.client.getServerVersion()?.name).toBe("hcpx");
      const { tools } = await v1.client.listTools();
      const t = tools.find((x) => x.name === "ledger__transfer")!;
      expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
      expect(tools.map((x) => x.name)).toEqual(
        [...tools.map((x) => x.name)].sort((a, b) => (a === "hcp__read_skill" ? 1 : b === "hcp__read_skill" ? -1 : 0)),
      );
    } finally {
      await v1.close();
    }
  });
});

describe("tools/list_changed, each era's way", () => {
  it("modern: on the client's subscriptions/listen stream, tagged with its subscription id, when a grant changes", async () => {
    const p = project();
    const s = new Raw(p);
    try {
      const listen = s.modern("subscriptions/listen", { notifications: { toolsListChanged: true } });
      void listen.catch(() => {});
      // wait for the acknowledgement, then revoke a grant
      for (let i = 0; i < 50 && !s.lines.some((m) => m.method === "notifications/subscriptions/acknowledged"); i++)
        await new Promise((r) => setTimeout(r, 100));
      writeConfig(p.config, {
        packs: ["./packs/ledger"],
        principal: { id: "test", kind: "agent" },
        grants: { allow: ["ledger.balance"], deny: [] },
        sandbox: { bins: {}, roots: ["."], cwd: "." },
      });
      let changed: Record<string, unknown> | undefined;
      for (let i = 0; i < 80 && !changed; i++) {
        await new Promise((r) => setTimeout(r, 100));
        changed = s.lines.find((m) => m.method === "notifications/tools/list_changed");
      }
      expect(changed).toBeDefined();
      expect(
        (changed!.params as { _meta: Record<string, unknown> })._meta["io.modelcontextprotocol/subscriptionId"],
      ).toBeDefined();
    } finally {
      await s.close();
    }
  });
});

describe("a confirm is one question: modern clients get an InputRequiredResult", () => {
  it("the v2 SDK client answers the question: accept runs the write once, decline runs nothing", async () => {
    for (const action of ["accept", "decline"] as const) {
      const p = project({ by: "person" });
      const before = readFileSync(p.ledger, "utf8");
      const client = new ClientV2(
        { name: "v2", version: "1" },
        { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } },
      );
      const asked: string[] = [];
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push((req.params as { message: string }).message);
        return action === "accept" ? { action, content: {} } : { action };
      });
      await client.connect(
        new StdioV2({ command: process.execPath, args: [HCPX, "mcp"], cwd: p.dir, env: envOf(p), stderr: "ignore" }),
      );
      try {
        const r = await client.callTool(transfer());
        expect(asked).toHaveLength(1);
        expect(asked[0]).toContain("verb: transfer");
        const env = r.structuredContent as { ok: boolean; error?: { code: string } };
        if (action === "accept") {
          expect(env.ok).toBe(true);
          expect(readFileSync(p.ledger, "utf8")).not.toBe(before);
        } else {
          expect(env.error?.code).toBe("confirm_declined");
          expect(readFileSync(p.ledger, "utf8")).toBe(before);
        }
      } finally {
        await client.close();
      }
    }
  });

  it("a tampered, replayed, mismatched or foreign requestState runs nothing and says why; the right one runs once", async () => {
    const p = project({ by: "person" });
    const before = readFileSync(p.ledger, "utf8");
    const s = new Raw(p);
    const accept = { [`confirm`]: { action: "accept", content: {} } };
    try {
      const first = result(await s.modern("tools/call", transfer()));
      expect(first.resultType).toBe("input_required");
      expect(first.inputRequests).toMatchObject({
        confirm: { method: "elicitation/create", params: { mode: "form" } },
      });
      expect((first.inputRequests as { confirm: { params: { message: string } } }).confirm.params.message).toContain(
        "verb: transfer",
      );
      const state = first.requestState as string;
      expect(readFileSync(p.ledger, "utf8")).toBe(before);

      const tampered = await s.modern("tools/call", {
        ...transfer(),
        inputResponses: accept,
        requestState: state.slice(0, -3) + (state.endsWith("AAA") ? "BBB" : "AAA"),
      });
      expect(tampered.error).toMatchObject({ code: -32602, data: { reason: "request_state_tampered" } });
      expect((tampered.error as { message: string }).message).toMatch(/integrity check.*nothing was run/);

      const otherArgs = await s.modern("tools/call", { ...transfer(8), inputResponses: accept, requestState: state });
      expect(otherArgs.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
      expect(readFileSync(p.ledger, "utf8")).toBe(before);

      // a mismatched call spends no state (the right call may still take it); a fresh question for this case
      const again = result(await s.modern("tools/call", transfer()));
      const state2 = again.requestState as string;
      const otherVerb = await s.modern("tools/call", {
        name: "hcp",
        arguments: { pack: "ledger", verb: "entry.add", args: { account: "checking", amount: 1, memo: "x" } },
        inputResponses: accept,
        requestState: state2,
      });
      expect(otherVerb.error).toMatchObject({ code: -32602, data: { reason: "request_state_mismatch" } });
      expect((otherVerb.error as { message: string }).message).toContain("another call (ledger.transfer)");
      expect(readFileSync(p.ledger, "utf8")).toBe(before);

      const third = result(await s.modern("tools/call", transfer()));
      const state3 = third.requestState as string;
      const ok = result(await s.modern("tools/call", { ...transfer(), inputResponses: accept, requestState: state3 }));
      expect(ok.resultType).toBe("complete");
      expect(envelope(ok).ok).toBe(true);
      const after = readFileSync(p.ledger, "utf8");
      expect(after).not.toBe(before);

      const replay = await s.modern("tools/call", { ...transfer(), inputResponses: accept, requestState: state3 });
      expect(replay.error).toMatchObject({ code: -32602, data: { reason: "request_state_replayed" } });
      expect(readFileSync(p.ledger, "utf8")).toBe(after);
    } finally {
      await s.close();
    }
  });

  it("a modern client without elicitation gets no question: under person nothing runs (confirm_required)", async () => {
    const p = project({ by: "person" });
    const before = readFileSync(p.ledger, "utf8");
    const s = new Raw(p);
    try {
      const r = result(
        await s.modern("tools/call", { ...transfer(), arguments: { ...transfer().arguments, confirm: true } }, {}),
      );
      expect(r.resultType).toBe("complete");
      expect(envelope(r).error?.code).toBe("confirm_required");
      expect(readFileSync(p.ledger, "utf8")).toBe(before);
      // and hcpx never writes a request to stdout on a modern connection
      expect(s.lines.every((m) => m.method === undefined || String(m.method).startsWith("notifications/"))).toBe(true);
    } finally {
      await s.close();
    }
  });
});
