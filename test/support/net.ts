// What a TCP connect to host:port gives: "connected", "timeout" (3 s) or the error's code (ENETUNREACH…).
// The host and agent suites' checks that they run with only loopback (test/hosts, test/agents offline.test.ts).
import { connect } from "node:net";

export const tryConnect = (host: string, port: number): Promise<string> =>
  new Promise<string>((resolve) => {
    const s = connect({ host, port, timeout: 3000 });
    s.on("connect", () => (s.destroy(), resolve("connected")));
    s.on("timeout", () => (s.destroy(), resolve("timeout")));
    s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
  });
