// Each bundle in dist/ has its own copy of src/util/redact.ts (a command's, dist/failure.cjs that reports
// an error reaching the entry, the library's chunks). What one copy was given to hide, every copy hides:
// the values and names in play are the process's (a global symbol), not a module's. Before, failure.cjs's
// copy knew of no value in play, and an error it reported showed a Binding value in clear.
// (An isolated file: it sets process.env, and what it gives to hide stays for the process.)
import { describe, expect, it } from "vitest";
import { holdSecretNames, redactOut, secretsFrom } from "../../src/util/redact";

describe("the redaction's values in play, across copies of its module", () => {
  it("a second copy of the module hides what the first was given", async () => {
    // the same source as a module of its own (another URL: evaluated again, as another bundle's copy)
    const url = "../../src/util/redact.ts?copy=failure"; // a variable: the type checker knows no module by that name
    const other = (await import(/* @vite-ignore */ url)) as typeof import("../../src/util/redact");
    expect(other.redactOut).not.toBe(redactOut);
    secretsFrom({}, [], ["value-from-the-command-bundle"]);
    process.env.HCPX_TEST_COPY_TOKEN = "env-held-by-the-command";
    try {
      holdSecretNames(["HCPX_TEST_COPY_TOKEN"]);
      expect(other.redactOut("a value-from-the-command-bundle b env-held-by-the-command")).toBe("a *** b ***");
      // and the other way round
      other.secretsFrom({}, [], ["given-to-the-failure-copy"]);
      expect(redactOut("given-to-the-failure-copy")).toBe("***");
    } finally {
      delete process.env.HCPX_TEST_COPY_TOKEN;
    }
  });
});
