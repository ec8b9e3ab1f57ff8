// `hcpx lint` as the CLI runs it: the example packs are clean, exit codes,
// --json, --strict, project mode, and the project-level rules. In this process
// (test/support/inproc.ts: the same commander program, argv, cwd, environment,
// stdout, stderr and exit code): what lint decides and prints is under test.
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, scratchProject, tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { miniPack } from "./minipack";

const examples = readdirSync(join(REPO, "packs")).filter((d) => existsSync(join(REPO, "packs", d, "surface.json")));

type LintReport = {
  packs: {
    id: string | null;
    dir: string;
    problems: { code: string; severity: string; file?: string; path?: string; line?: number }[];
  }[];
  errors: number;
  warnings: number;
};
interface LintJson {
  ok: boolean;
  data: LintReport;
  error?: { code: string; message: string; details: LintReport };
}
/** The report: `data` when ok, `error.details` when not (ok is true exactly when the exit code is 0). */
const report = (j: LintJson): LintReport => (j.ok ? j.data : j.error!.details);

beforeAll(() => {
  expect(existsSync(join(REPO, "dist", "hcpx.mjs")), "run `npm run build` first").toBe(true);
});

describe("hcpx lint (CLI)", () => {
  it("every example pack passes with zero problems, --strict included", async () => {
    expect(examples.length).toBeGreaterThanOrEqual(7);
    const r = await runInProcess(["lint", "--strict", "--json", ...examples.map((e) => `packs/${e}`)]);
    expect(r.stderr).toBe("");
    const j = JSON.parse(r.stdout) as LintJson;
    expect(j.ok).toBe(true);
    expect(j.data.errors).toBe(0);
    expect(j.data.warnings).toBe(0);
    expect(j.data.packs.map((p) => p.id).sort()).toEqual([...examples].sort());
    for (const p of j.data.packs) expect(p.problems, p.dir).toEqual([]);
    expect(r.code).toBe(0);
  });

  it("with no dirs, lints every activated pack of the project config", async () => {
    const proj = scratchProject({ packs: examples });
    const r = await runInProcess(["lint", "--strict", "--json"], { cwd: proj.dir });
    expect(r.stderr).toBe("");
    const j = JSON.parse(r.stdout) as LintJson;
    expect(j.ok).toBe(true);
    expect(j.data.packs.map(({ id, dir, problems }) => ({ id, dir, problems }))).toEqual(
      examples.map((e) => ({ id: e, dir: `packs/${e}`, problems: [] })),
    );
    expect(j.data).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.code).toBe(0);
  });

  it("with no config, lints ./ when it is a pack, else a clear error", async () => {
    const dir = miniPack();
    const r = await runInProcess(["lint", "--json"], { cwd: dir });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as LintJson).data.packs).toEqual([{ id: "mini", dir: ".", problems: [] }]);
    const empty = tmp();
    const r2 = await runInProcess(["lint", "--json"], { cwd: empty });
    expect(r2.code).toBe(1);
    const e = (JSON.parse(r2.stdout) as LintJson).error!;
    expect(e).toMatchObject({
      code: "no_config",
      message: expect.stringMatching(/^no hcp\.config\.json5 .* is not a pack/),
      hint: expect.any(String),
    });
  });

  it("errors exit 1; human output is `error <file>:<line>:<col> at <path>: <message>` + hint, grouped per pack, with a summary", async () => {
    const dir = miniPack({ surface: (s) => (s.commands[0].cli[2] = "x{{id}}") });
    const good = miniPack({ name: "good", surface: (s) => (s.id = "good"), skill: { name: "good" } });
    const r = await runInProcess(["lint", dir, good]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^mini \S+: 1 error$/m);
    expect(r.stdout).toMatch(
      /^error \S*mini\/surface\.json:\d+:\d+ at commands\[0\]\.cli\[2\]: 'x\{\{id\}\}' in cli\[\] of 'show': a placeholder must be a whole argv element \[placeholder_partial\]$/m,
    );
    expect(r.stdout).toMatch(/^ {2}hint: /m);
    expect(r.stdout).toMatch(/^good \S+: ok$/m);
    expect(r.stdout).toMatch(/^lint: 2 packs, 1 error, 0 warnings$/m);
  });

  it("warnings alone exit 0, or 2 with --strict", async () => {
    const dir = miniPack({ policy: (p) => (p.rows["item.add"].land = "external") });
    const j = await runInProcess(["lint", "--json", dir]);
    expect(j.code).toBe(0);
    const data = (JSON.parse(j.stdout) as LintJson).data;
    expect(data).toMatchObject({ errors: 0, warnings: 1 });
    expect(data.packs[0]!.problems).toEqual([
      expect.objectContaining({
        code: "external_no_confirm",
        severity: "warning",
        file: expect.stringMatching(/policy\.json$/),
        path: 'rows["item.add"]',
        line: expect.any(Number),
      }),
    ]);
    // prose on purpose: the text run's advice a person reads
    const r = await runInProcess(["lint", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("use --strict");
    const s = await runInProcess(["lint", "--strict", dir]);
    expect(s.code).toBe(2);
  });

  it("--json: { ok, data: { packs: [{ id, dir, problems }], errors, warnings } }; on errors ok false and the report in error.details", async () => {
    const dir = miniPack({ policy: (p) => (p.rows.nope = { operation: "read" }), skill: { leads: null } });
    const r = await runInProcess(["lint", "--json", dir]);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout) as LintJson;
    expect(j.ok).toBe(false);
    expect(j.error!.code).toBe("lint_errors");
    expect(report(j).errors).toBe(1);
    expect(report(j).warnings).toBe(1);
    expect(report(j).packs[0]!.id).toBe("mini");
    const codes = report(j).packs[0]!.problems.map((p) => [p.code, p.severity]);
    expect(codes).toEqual([
      ["policy_unknown_row", "error"],
      ["skill_no_leads", "warning"],
    ]);
    const w = await runInProcess(["lint", "--json", miniPack({ skill: { leads: null } })]);
    expect(w.code).toBe(0);
    expect((JSON.parse(w.stdout) as LintJson).ok).toBe(true);
  });

  it("a pack id activated twice is an error (duplicate_pack)", async () => {
    const a = miniPack();
    const b = miniPack({ name: "copy" });
    const r = await runInProcess(["lint", "--json", a, b]);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout) as LintJson;
    expect(j.ok).toBe(false);
    expect(report(j).packs[1]!.problems[0]).toMatchObject({ code: "duplicate_pack", path: "id" });
  });

  it("in project mode, a bare wrap.bin missing from sandbox.bins is a warning (bin_not_in_sandbox)", async () => {
    const proj = scratchProject({ packs: ["git"], extraConfig: { sandbox: { roots: ["."] } } });
    const r = await runInProcess(["lint", "--json"], { cwd: proj.dir });
    const j = JSON.parse(r.stdout) as LintJson;
    expect(j.data.packs[0]!.problems).toEqual([
      expect.objectContaining({ code: "bin_not_in_sandbox", severity: "warning", path: "wrap.bin" }),
    ]);
    expect(r.code).toBe(0);
    // with the bin declared, it is clean
    const ok = await runInProcess(["lint", "--json", "--strict"], { cwd: scratchProject({ packs: ["git"] }).dir });
    expect((JSON.parse(ok.stdout) as LintJson).data.warnings).toBe(0);
    expect(ok.code).toBe(0);
  });

  it("--config names the project config to lint", async () => {
    const proj = scratchProject({ packs: ["ledger"] });
    const other = tmp();
    writeFileSync(join(other, "x"), "");
    const r = await runInProcess(["--config", proj.config, "lint", "--json"], { cwd: other });
    const j = JSON.parse(r.stdout) as LintJson;
    expect(j.data.packs.map((p) => p.id)).toEqual(["ledger"]);
    expect(r.code).toBe(0);
  });
});
