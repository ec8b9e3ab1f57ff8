// Setup file (vitest.config.ts): after each test file, what its runs left held
// (a config edit's lock, src/util/held.ts) is released, and the 'exit' listener
// with it, as the file's own process would at exit. The in-process runs
// (test/support/inproc.ts) go through the program, which releases after each
// command; a file that calls a config edit (src/config/file.ts openConfig)
// directly holds its lock until here, not into the next file of a shared worker.
import { afterAll } from "vitest";
import { releaseHeld } from "../../src/util/held";

afterAll(() => releaseHeld());
