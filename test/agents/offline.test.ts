// The agent-loop suite runs in a network namespace with only loopback
// (scripts/test-agents.sh): nothing a host tries reaches beyond 127.0.0.1.
import { describe, expect, it } from "vitest";
import { tryConnect } from "../support/net";
import { startFakeModel } from "../support/fake-model";

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
