// A Binding value of one to three characters (docs/output-safety.md "Binding values are never shown"): hidden
// by substring it hid that letter everywhere in the output (a value "a" turned "cat" into "c***t"). Now such a
// value is never handed to a pack (the call is refused before anything runs, naming the variable, never the
// value), and where it could still show (a composite reading the environment) it is hidden as a whole word.
import { describe, expect, it } from "vitest";
import { loadProject } from "../../src/pack/load";
import { execute } from "../../src/runtime/execute";
import { redactString, secretsFrom } from "../../src/util/redact";
import { serverRef } from "../../src/runtime/mcp-adapter";
import { userinfoKey } from "../../src/runtime/openapi-base";
import type { Pack, Project } from "../../src/pack/model";
import { fxPack, project } from "./support";

describe("a short Binding value", () => {
  it("is hidden as a whole word, not as a letter inside other words; a longer one is hidden anywhere", () => {
    const secrets = secretsFrom({}, [], ["a", "x7", "long-S3cret"]);
    expect(redactString('a cat sat; TOKEN=a "a" x7,ax7b', secrets)).toBe('*** cat sat; TOKEN=*** "***" ***,ax7b');
    expect(redactString("prefixlong-S3cretsuffix", secrets)).toBe("prefix***suffix");
  });

  it("is not handed to the pack: the call is refused, naming the variable and not the value; nothing runs", async () => {
    const echo = fxPack("echo", "argv-echo.mjs", [{ verb_key: "env", summary: "env", cli: ["e"], args: {} }], {
      wrap: { agent_env: { ARGV_ECHO_ENV: "ECHO_TOKEN" } },
      binding: { env: ["ECHO_TOKEN"] },
    });
    const sp = project({ packs: [echo] });
    const proj = loadProject({ config: sp.config });
    let started = false;
    const req = { pack: "echo", verb: "env", args: {} };
    const short = await execute(proj, req, {
      env: { ...process.env, ECHO_TOKEN: "ab" },
      started: () => (started = true),
    });
    expect(short).toMatchObject({ ok: false, error: { code: "binding_too_short" } });
    const msg = JSON.stringify(short);
    expect(msg).toMatch(/ECHO_TOKEN/);
    expect(msg).not.toMatch(/\bab\b/);
    expect(started).toBe(false);
    const long = await execute(proj, req, { env: { ...process.env, ECHO_TOKEN: "abcd-long" } });
    expect(long).toMatchObject({ ok: true, data: { env: { ECHO_TOKEN: "***" } } });
  });

  it("is not handed to an mcp pack's server reached outside a call either (doctor, pack from-mcp --update)", () => {
    const pack = {
      id: "m",
      surface: { kind: "mcp", mcp: { url: "https://example.com/mcp", headers: { Authorization: { env: "M_TOKEN" } } } },
    } as unknown as Pack;
    const ref = serverRef({ pack, project: {} as Project, env: { M_TOKEN: "ab" }, packBins: () => [] as never }, "m");
    expect(ref).toMatchObject({ ok: false, error: { code: "binding_too_short" } });
    expect(JSON.stringify(ref)).toMatch(/M_TOKEN/);
  });

  it("of a base URL is its password, or its user when it has none: a short user name beside a password is no refusal", () => {
    expect(userinfoKey("https://bob:pw@h/x")).toEqual(["pw"]);
    expect(userinfoKey("https://bob:a-long-password@h/x")).toEqual(["a-long-password"]);
    expect(userinfoKey("https://t0k@h/x")).toEqual(["t0k"]);
    expect(userinfoKey("https://bob:@h/x")).toEqual(["bob"]);
    expect(userinfoKey("https://h/x")).toEqual([]);
  });
});
