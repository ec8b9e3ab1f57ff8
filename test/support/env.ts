// Every test's child processes (the CLI, bins, servers: most of `npm test`'s
// CPU) start without NODE_EXTRA_CA_CERTS. With it set (as on this machine and
// many CI images), each Node process parses the whole CA bundle at start:
// ~55 ms CPU more for `node -e 0` (85 against 30 ms), ~65 ms more for an
// `hcpx adopt`. The tests talk to 127.0.0.1 over plain HTTP only (no TLS, no
// CA), so nothing they prove depends on it; the bench measures both ways.
//
// And the worker itself is hermetic, as its children are (baseEnv(),
// test/support/cli.ts, which spreads this environment): the library, execute()
// and the commands test/support/inproc.ts runs in this process read HOME and the
// XDG folders at each call, so without this a test read the developer's user
// config (~/.config/hcp) and wrote their audit log, caches and state (~/.local/state/hcpx,
// ~/.cache/hcpx); and a switch in the developer's shell (HCPX_AUDIT_LOG=off,
// HCPX_NO_CACHE=1, HCP_CONFIG) changed what the tests saw (12 failures in four
// files with the first two exported). Each file gets a scratch HOME of its own,
// removed after it (the lists: test/support/hermetic.ts; test/support/hermetic.test.ts
// checks them against src/ and that a library call writes only in that HOME).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { HCPX_SWITCHES, USER_PLACES } from "./hermetic";

delete process.env.NODE_EXTRA_CA_CERTS;
for (const k of [...HCPX_SWITCHES, ...USER_PLACES]) delete process.env[k];
// the file's HOME, in the run's scratch folder (test/support/run-tmp.ts), removed after the file
const home = mkdtempSync(join(tmpdir(), "home-"));
process.env.HOME = home;
afterAll(() => rmSync(home, { recursive: true, force: true }));
