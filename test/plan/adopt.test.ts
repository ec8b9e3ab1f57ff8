// `planAdopt` with the disk injected (AdoptOptions.fs): an adopt plan made
// against an in-memory project, nothing read from or written to a real one.
// The CLI tests (test/adopt/) write the same plans to disk.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { loadPack } from "../../src/pack/load";
import type { Project } from "../../src/pack/model";
import { buildProjection } from "../../src/projection/build";
import { planAdopt } from "../../src/host/engine";
import { driftOf } from "../../src/plan/drift";
import { HcpxError } from "../../src/util/errors";
import { REPO } from "../support/hcpx";
import { memFs } from "../support/memfs";

const ROOT = "/virtual/proj";
const project: Project = {
  root: ROOT,
  packDirs: [],
  principal: { id: "t", kind: "agent" },
  grants: { allow: ["ledger.*"], deny: [] },
  sandbox: { bins: {}, roots: [ROOT], cwd: ROOT },
  confirm: { by: "host", timeoutMs: 120_000 },
  warnings: [],
};
const packs = [loadPack(join(REPO, "packs", "ledger"))];
const projectionFor = (skillsPath: string, o?: { shell?: boolean }) =>
  buildProjection(project, packs, { skillsPath, ...o });
const plan = (files: Record<string, string>, more: Parameters<typeof memFs>[1] = {}) =>
  planAdopt(project, ["claude"], projectionFor, {
    scope: "project",
    command: "hcpx mcp",
    home: "/virtual/home",
    fs: memFs(files, { dirs: [ROOT], ...more }),
  });

describe("planAdopt on an injected disk", () => {
  it("an empty project: every file is created; the ledger records them; --check's drift is `missing` for each", async () => {
    const p = await plan({});
    const paths = p.changes.map((c) => c.path);
    expect(paths).toEqual(expect.arrayContaining([".mcp.json", "CLAUDE.md", ".claude/skills/ledger/SKILL.md"]));
    expect(p.changes.every((c) => c.kind === "create" && c.real.startsWith(ROOT + "/"))).toBe(true);
    expect(p.record).toMatchObject({
      kind: "ledger",
      file: join(ROOT, ".hcp", "adopted.json"),
      old: undefined,
      journalPending: false,
    });
    expect(Object.keys(JSON.parse(p.record.new!).hosts)).toEqual(["claude"]);
    expect(driftOf(p).every((d) => d.kind === "missing")).toBe(true);
    // what of each file is hcpx's: the block, the key, the whole Skill copy
    const parts = Object.fromEntries(p.changes.map((c) => [c.path, c.parts]));
    expect(parts["CLAUDE.md"]).toEqual([{ kind: "markdown-block" }]);
    expect(parts[".mcp.json"]).toEqual([{ kind: "json", key: ["mcpServers", "hcp"] }]);
    expect(parts[".claude/skills/ledger/SKILL.md"]).toEqual([{ kind: "file" }]);
  });

  it("a host file it cannot parse is refused, naming file and line: nothing is planned over it", async () => {
    const err = await plan({ [join(ROOT, ".mcp.json")]: '{ "mcpServers": { "x": 1, } \n' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HcpxError);
    expect((err as HcpxError).problems[0]).toMatchObject({ file: ".mcp.json", line: expect.any(Number) });
  });

  it("a target through a symlink out of the project, and a directory it cannot write in, are refused before anything is planned", async () => {
    const link = await plan({}, { outside: [join(ROOT, ".claude")] }).catch((e: unknown) => e);
    expect((link as HcpxError).problems.map((x) => x.code)).toContain("symlink_refused");
    const ro = await plan({}, { readOnly: [ROOT] }).catch((e: unknown) => e);
    expect((ro as HcpxError).problems.map((x) => x.code)).toContain("read_only");
  });

  it("a ledger entry naming a file outside the project is ignored with a warning and never read", async () => {
    const ledger = {
      version: 1,
      hosts: {
        claude: {
          scope: "project",
          entries: [{ path: "../victim.txt", kind: "file", sha256: "0".repeat(64), created: true }],
          dirs: [],
        },
      },
    };
    const fs = memFs({ [join(ROOT, ".hcp", "adopted.json")]: JSON.stringify(ledger) }, { dirs: [ROOT] });
    const p = await planAdopt(project, ["claude"], projectionFor, {
      scope: "project",
      command: "hcpx mcp",
      home: "/virtual/home",
      fs,
    });
    expect(p.warnings.map((w) => w.code)).toContain("ledger_entry_ignored");
    expect(fs.reads).not.toContain("/virtual/victim.txt");
    expect(driftOf(p).map((d) => d.kind)).toContain("ignored");
  });
});
