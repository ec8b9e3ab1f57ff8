// Codex's config.toml is edited as text (src/host/tomledit.ts): hcpx's own
// [mcp_servers.hcp] table changes, every other byte stays. These run the real
// CLI (dist/) on files a person may well have, and check the bytes.
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { HCPX, noStack, REPO } from "../support/cli";
import { checkRest } from "../../src/host/formats/toml";
import { scratch, snapshot } from "./helpers";

beforeAll(() => {
  if (!existsSync(HCPX)) execFileSync(process.execPath, [join(REPO, "scripts", "build.mjs")]);
});

const CONFIG = ".codex/config.toml";

/** A scratch project adopted for Codex: its config.toml holds hcpx's table alone. */
async function adopted() {
  const s = scratch();
  const r = await s.adopt("codex", "--write");
  expect(r.code, r.stderr).toBe(0);
  return { s, hcp: s.read(CONFIG) };
}

describe("an edit that would change anything outside hcpx's table is refused", () => {
  it("checkRest: the rest of the document as it was passes; a table lost or a value changed is refused", () => {
    const before = parseToml('model = "o3"\n[profiles.deep]\nmodel = "o3"\n[mcp_servers.hcp]\ncommand = "a"\n');
    const key = ["mcp_servers", "hcp"];
    // hcpx's own entry changed or gone (and mcp_servers with it): fine
    expect(() =>
      checkRest(before, 'model = "o3"\n[profiles.deep]\nmodel = "o3"\n', key, "c.toml", "removing"),
    ).not.toThrow();
    expect(() =>
      checkRest(
        before,
        'model = "o3"\n[profiles.deep]\nmodel = "o3"\n[mcp_servers.hcp]\ncommand = "b"\n',
        key,
        "c.toml",
        "writing",
      ),
    ).not.toThrow();
    // anything else changed: refused, with what, the file and "nothing was written"
    expect(() => checkRest(before, 'model = "o3"\n', key, "c.toml", "removing")).toThrow(
      /removing \[mcp_servers\.hcp\] would change other tables or keys of this file too; nothing was written/,
    );
    expect(() => checkRest(before, 'model = "o4"\n[profiles.deep]\nmodel = "o3"\n', key, "c.toml", "removing")).toThrow(
      /nothing was written/,
    );
    expect(() => checkRest(before, "[a]\n[a]\n", key, "c.toml", "writing")).toThrow(/does not parse/);
  });

  it('a removal hcpx misreads (a stray """ in a comment, before the table fix) is refused and the file stays', async () => {
    const { s, hcp } = await adopted();
    const mine =
      '# tip: Codex takes """ strings for long prompts\n[profiles.deep]\nmodel = "o3"\ndeveloper_instructions = """\nThink hard.\n"""\n\n[profiles.fast]\nmodel = "o4-mini"\n';
    s.write(CONFIG, hcp + mine);
    const before = snapshot(s.dir);
    const r = await s.adopt("codex", "--remove", "--write");
    noStack(r);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/nothing was written/);
    expect(s.read(CONFIG)).toBe(hcp + mine);
    expect(snapshot(s.dir)[CONFIG]).toEqual(before[CONFIG]);
  });
});
