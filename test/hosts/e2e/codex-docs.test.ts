// What Codex itself reads of the prompt block adopt wrote, asked of the real program without a
// model: `codex debug prompt-input` prints the instructions message it would send (the folder's
// AGENTS.override.md instead of AGENTS.md, cut at project_doc_max_bytes). adopt writes the block
// where Codex reads it, and where Codex would read none or a cut one, `adopt --check` fails.
import { describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { availability, hc, hostHome, makeWorld, removeAfterAll } from "./support";

const avail = availability();
const cleanup = removeAfterAll();
const BEGIN = "<!-- hcp:begin -->";
const END = "<!-- hcp:end -->";

describe.skipIf(!avail.has.codex)("Codex reads the block where adopt put it (codex debug prompt-input)", () => {
  it("an AGENTS.override.md of the person's: the block goes into it, and Codex reads it there (not AGENTS.md's)", async () => {
    const w = makeWorld({
      "AGENTS.md": "# Team\nTEAM-ONLY-LINE\n",
      "AGENTS.override.md": "# Mine\nMY-OVERRIDE-LINE\n",
    });
    cleanup(w.dir, w.home);
    const a = await w.adopt("codex", "--write");
    expect(a.code, a.stderr + a.stdout).toBe(0);
    const r = await hc.codexInstructions({ home: cleanup(hostHome(w.home)), cwd: w.dir });
    expect(r.ok, r.raw.stderr).toBe(true);
    expect(r.text).toContain("MY-OVERRIDE-LINE");
    expect(r.text).not.toContain("TEAM-ONLY-LINE");
    expect(r.text).toContain(BEGIN);
    expect(r.text).toContain("### ledger");
    expect(r.text).toContain(END);
  });

  it("an empty override: Codex reads no instructions here, and --check says so", async () => {
    const w = makeWorld({ "AGENTS.override.md": "" });
    cleanup(w.dir, w.home);
    expect((await w.adopt("codex", "--write")).code).toBe(0);
    const r = await hc.codexInstructions({ home: cleanup(hostHome(w.home)), cwd: w.dir });
    expect(r.ok, r.raw.stderr).toBe(true);
    expect(r.text).toBeNull();
    const c = await w.adopt("codex", "--check");
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/AGENTS\.override\.md.*empty/);
  });

  it("project_doc_max_bytes below the block's end: Codex cuts the block, and --check fails naming the setting", async () => {
    const w = makeWorld();
    cleanup(w.dir, w.home);
    expect((await w.adopt("codex", "--write")).code).toBe(0);
    mkdirSync(dirname(w.abs("~/.codex/config.toml")), { recursive: true });
    writeFileSync(
      w.abs("~/.codex/config.toml"),
      `project_doc_max_bytes = 200\n\n[projects."${w.dir}"]\ntrust_level = "trusted"\n`,
    );
    const r = await hc.codexInstructions({ home: cleanup(hostHome(w.home)), cwd: w.dir });
    expect(r.ok, r.raw.stderr).toBe(true);
    expect(r.text).toContain(BEGIN);
    expect(r.text).not.toContain(END);
    const c = await w.adopt("codex", "--check");
    expect(c.code).toBe(1);
    expect(c.stderr + c.stdout).toContain("project_doc_max_bytes = 200 in ~/.codex/config.toml:1");
  });
});
