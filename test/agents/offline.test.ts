// The agent-loop suite runs in a network namespace with only loopback
// (scripts/test-agents.sh): nothing a host tries reaches beyond 127.0.0.1.
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { startFakeModel } from "../support/fake-model";

const tryConnect = (host: string, port: number) =>
  new Promise<string>((resolve) => {
    const s = connect({ host, port, timeout: 3000 });
    s.on("connect", () => (s.destroy(), resolve("connected")));
    s.on("timeout", () => (s.destroy(), resolve("timeout")));
    s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
  });

describe.skipIf(process.env.HCPX_AGENTS_OFFLINE !== "1")("network namespace", () => {
  it("a public address is unreachable, loopback works", async () => {
    expect(await tryConnect("1.1.1.1", 443)).toBe("ENETUNREACH");
    const fake = await startFakeModel();
    try {
      expect(await tryConnect("127.0.0.1", Number(new URL(fake.url).port))).toBe("connected");
    } finally {
      await fake.close();
    }
  });
});
