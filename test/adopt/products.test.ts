// Products that merged or ended (issue 27 §1): Windsurf is Devin Desktop (`windsurf` an
// alias of `devin`, and a ledger that recorded the old id is read as the host's); Continue
// is end of life (descriptor `endOfLife`: adopt keeps working, `--detected`, adopt and
// doctor say so).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratch as scratchChild, snapshot, userConfigFromProject } from "./helpers";
import { inProcess } from "../support/inproc";

/** adopt (and the other commands its scratch project runs) as function calls in this process (test/support/inproc.ts): what adopt decides and writes is under test here */
const scratch = (opts?: Parameters<typeof scratchChild>[0]) => inProcess(scratchChild(opts));

describe("Windsurf is Devin Desktop", () => {
  it("a ledger that recorded `windsurf` is read as devin: --check in sync, --remove (by either id) gives the project back", async () => {
    const s = scratch();
    const before = snapshot(s.dir);
    expect((await s.adopt("devin", "--write")).code).toBe(0);
    // an older hcpx recorded the host as windsurf
    const ledger = join(s.dir, ".hcp", "adopted.json");
    const text = readFileSync(ledger, "utf8");
    expect(text).toContain('"devin"');
    writeFileSync(ledger, text.replace('"devin"', '"windsurf"'));
    const c = await s.adopt("devin", "--check");
    expect(c.code, c.stdout + c.stderr).toBe(0);
    const d = await s.run(["doctor", "--json"]);
    expect(d.stdout).toMatch(/host (windsurf|devin) \(project\): 6 file\(s\) in sync/);
    const r = await s.adopt("windsurf", "--remove", "--write");
    expect(r.code, r.stderr).toBe(0);
    expect(snapshot(s.dir)).toEqual(before);
  });
});

describe("Continue is end of life", () => {
  it("adopt works and says so; --detected and doctor say so too", async () => {
    const s = scratch();
    userConfigFromProject(s);
    mkdirSync(join(s.dir, ".continue", "rules"), { recursive: true });
    s.write(".continue/rules/style.md", "tabs\n");
    const det = await s.adopt("--detected", "--json");
    const found = (
      JSON.parse(det.stdout) as { data: { detected: { host: string; endOfLife?: string }[] } }
    ).data.detected.find((x) => x.host === "continue");
    expect(found?.endOfLife).toMatch(/^end of life since 2026-06-18: Continue joined Cursor/);
    const w = await s.adopt("continue", "--write");
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toMatch(/Continue: end of life since 2026-06-18/);
    const d = await s.run(["doctor"]);
    expect(d.stdout).toMatch(/host continue \(project\): .*Continue is end of life since 2026-06-18/);
  });
});

describe("health checks the hosts keep outside adopt's files (issue 27 §3)", () => {
  it("Gemini CLI: a project marked DO_NOT_TRUST in ~/.gemini/trustedFolders.json is named; a trusted one passes", async () => {
    const s = scratch();
    expect((await s.adopt("gemini", "--write")).code).toBe(0);
    s.write("~/.gemini/trustedFolders.json", JSON.stringify({ [s.dir]: "DO_NOT_TRUST" }) + "\n");
    const bad = await s.adopt("gemini", "--check");
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/ignores a project's \.gemini\/settings\.json .* marked untrusted/);
    s.write("~/.gemini/trustedFolders.json", JSON.stringify({ [s.dir]: "TRUST_FOLDER" }) + "\n");
    expect((await s.adopt("gemini", "--check")).code).toBe(0);
  });

  it("Amp: a workspace server not on amp.mcpTrustedServers is named, with what cannot be checked (the specHash); approved, it passes", async () => {
    const s = scratch();
    expect((await s.adopt("amp", "--write")).code).toBe(0);
    s.write(
      "~/.config/amp/settings.json",
      `{ "amp.mcpTrustedServers": [{ "serverName": "other", "specHash": "x", "allow": true }] }\n`,
    );
    const bad = await s.adopt("amp", "--check");
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(
      /hcp is not on amp\.mcpTrustedServers .*cannot check an approval's specHash/,
    );
    s.write(
      "~/.config/amp/settings.json",
      `{ "amp.mcpTrustedServers": [{ "serverName": "hcp", "specHash": "x", "allow": true }] }\n`,
    );
    expect((await s.adopt("amp", "--check")).code).toBe(0);
  });
});
