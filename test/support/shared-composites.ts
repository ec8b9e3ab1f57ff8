// Setup file (vitest.config.ts): a file of the shared project (test/support/shared-worker.ts)
// may run exec in process (test/support/inproc.ts execInProcess), but not load a composite
// module there: the runtime keeps the module (src/runtime/composite.ts, and import()'s own
// cache) for the worker's next file. Such a file fails here; it belongs to the isolated project.
import { relative } from "node:path";
import { afterAll, expect } from "vitest";
import { REPO } from "./cli";
import { SHARED_FILES } from "./shared-worker";

afterAll(async () => {
  const file = relative(REPO, expect.getState().testPath ?? "");
  if (!SHARED_FILES.includes(file)) return;
  const { compositesLoaded } = await import("../../src/runtime/composite");
  expect(compositesLoaded(), `${file} loaded a composite module in a shared worker`).toBe(0);
});
