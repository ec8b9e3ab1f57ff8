// The host e2e suite runs in a network namespace with only loopback
// (scripts/test-hosts.sh): nothing a host tries reaches beyond 127.0.0.1, and
// nothing waits on the machine's network.
import { createServer } from "node:net";
import { lookup } from "node:dns/promises";
import { describe, expect, it } from "vitest";
import { tryConnect } from "../support/net";

describe.skipIf(process.env.HCPX_HOSTS_NETNS !== "1")("network namespace", () => {
  it("a public address is unreachable at once, a name does not resolve, loopback works", async () => {
    const t0 = Date.now();
    expect(await tryConnect("1.1.1.1", 443)).toBe("ENETUNREACH");
    await expect(lookup("registry.npmjs.org")).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(2000);
    const server = createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      expect(await tryConnect("127.0.0.1", (server.address() as { port: number }).port)).toBe("connected");
    } finally {
      server.close();
    }
  });
});
