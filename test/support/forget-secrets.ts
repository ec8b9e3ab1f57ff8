// Setup file (vitest.config.ts): after each test file, the redaction's values and
// names in play (src/util/redact.ts) are forgotten. A file whose in-process runs
// (test/support/inproc.ts) load packs holds their Binding names; in a worker that
// runs the next file in the same process (the shared project), that file's output
// would otherwise hide the values of names it never loaded.
import { afterAll } from "vitest";
import { forgetSecretsInPlay } from "../../src/util/redact";

afterAll(() => forgetSecretsInPlay());
