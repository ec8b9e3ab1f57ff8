// Claude Code's allow rule for the shell route, from its own headless agent (the pinned
// program) against the scripted fake model, with only the rules adopt wrote in the project
// (no --allowedTools for Bash): a headless run has nobody to ask, so a command no allow rule
// matches is refused ("This command requires approval") and never runs.
//
// 1. adopt writes `Bash(hcpx exec probe echo:*)` (hosts/claude.json5), a prefix rule. A
//    command with an environment assignment in front of it — `HCP_CONFIG=<another config>
//    hcpx exec probe echo`, or the same through `env` — would run that pack's command under
//    another config's packs, grants and confirm, under the rule a person gave for this one,
//    if Claude Code matched it past the assignment. exec cannot tell a person's HCP_CONFIG
//    from one the model wrote, so the host decides it: it does not match.
// 2. Claude Code ignores a project's permissions.allow entries in a workspace the person has
//    not trusted (stderr: "Ignoring 3 permissions.allow entries from .claude/settings.json:
//    this workspace has not been trusted"): trust recorded for the project's folder itself
//    (~/.claude.json projects[<dir>].hasTrustDialogAccepted), not for a folder above it, in a
//    git repository or not: the health fact `trust` of hosts/claude.json5, which adopt --check
//    and doctor report.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel } from "../support/fake-model";
import { hc, rm, type Raw } from "../hosts/e2e/support";
import { adopted, envelopeIn, HOSTS, PROMPT, side, type Call } from "./support";

const spec = HOSTS.claude;

interface ClaudeRun {
  /** the project */
  dir: string;
  raw: Raw;
  /** the probe's echo calls: the text each ran with */
  ran: string[];
  /** each step's tool result, in order */
  results: string[];
  why: () => string;
}

const cleanup: string[] = [];
const fakes: FakeModel[] = [];
afterAll(async () => {
  for (const f of fakes) await f.close();
  if (!process.env.HCPX_E2E_KEEP) for (const d of cleanup) rm(d);
});

/**
 * adopt claude in a probe project (a git repository; `git: false`: not one), then `claude -p` playing `commands(dir)` as Bash
 * calls, with ~/.claude.json trusting `trusted(dir)` (none: no trust recorded).
 */
async function claudeRun(
  commands: (dir: string) => string[],
  trusted: (dir: string) => string | undefined,
  opts: { git?: boolean } = {},
): Promise<ClaudeRun> {
  const { dir, home, path } = await adopted("claude", true);
  cleanup.push(dir, home);
  if (opts.git === false) rmSync(join(dir, ".git"), { recursive: true, force: true });
  const steps = commands(dir);
  const fake = await startFakeModel({
    script: Array.from({ length: steps.length * 2 + 4 }, () => (req: { toolResults: unknown[] }) => {
      const step = steps[req.toolResults.length];
      return step ? { text: "step", toolCalls: [spec.shellCall(step)] } : { text: "PROBE-FINISHED" };
    }),
    side,
  });
  fakes.push(fake);
  const trust = trusted(dir);
  const files = {
    ...spec.homeFiles(fake.url, dir),
    ...(trust ? { ".claude.json": JSON.stringify({ projects: { [trust]: { hasTrustDialogAccepted: true } } }) } : {}),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
  const env = hc.hostEnv(home, {
    ...spec.env(fake.url, home),
    PATH: path,
    PWD: dir,
    PROBE_TOKEN: `tok-${randomBytes(12).toString("hex")}`,
  });
  // the person's rules only: no --allowedTools, so Bash runs what .claude/settings.json (adopt) allows
  const raw = await hc.run(hc.hostBin("claude"), ["-p", PROMPT, "--output-format", "json"], {
    cwd: dir,
    env,
    timeoutMs: 120_000,
  });
  const f = join(dir, "probe-calls.jsonl");
  const ran = existsSync(f)
    ? readFileSync(f, "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as Call).argv[0]!)
    : [];
  const main = fake.modelRequests.filter((r) => r.tools.length > 0);
  const last = main.reduce((x, y) => (y.toolResults.length >= x.toolResults.length ? y : x), main[0]!);
  const results = (last?.toolResults ?? []).map((r) => r.output);
  const why = () =>
    `exit ${raw.code}\nresults: ${JSON.stringify(results).slice(0, 3000)}\nstdout: ${raw.stdout.slice(-2000)}\nstderr: ${raw.stderr.slice(-2000)}`;
  console.log(
    `[agents] claude (trust ${trust ?? "none"}): exit ${raw.code}, ran ${JSON.stringify(ran)}, results ${JSON.stringify(results).slice(0, 600)}`,
  );
  return { dir, raw, ran, results, why };
}

const plain = "hcpx exec probe echo --json -- text=plain-1";

describe("claude: an environment assignment in front of `hcpx exec` does not pass the adopted allow rule", () => {
  let r: ClaudeRun;
  beforeAll(async () => {
    r = await claudeRun(
      (dir) => {
        // another config: the same packs and grants (what a planted config could say)
        const other = join(dir, "other.json5");
        writeFileSync(other, readFileSync(join(dir, "hcp.config.json5"), "utf8"));
        return [
          `HCP_CONFIG=${other} hcpx exec probe echo --json -- text=env-prefixed-1`,
          `env HCP_CONFIG=${other} hcpx exec probe echo --json -- text=env-wrapped-1`,
          plain,
        ];
      },
      (dir) => dir,
    );
  }, 300_000);

  it("the plain command runs under the rule adopt wrote, once", () => {
    expect(envelopeIn(r.results[2] ?? "")?.ok, r.why()).toBe(true);
    expect(r.ran, r.why()).toEqual(["plain-1"]);
  });

  it("HCP_CONFIG=… in front, and through env, is not matched: neither ran", () => {
    expect(r.results.length, r.why()).toBe(3);
    for (const i of [0, 1]) expect(envelopeIn(r.results[i] ?? "")?.ok, r.why()).not.toBe(true);
  });
});

describe("claude: the allow rules adopt wrote apply only in a workspace the person trusted", () => {
  it("no trust recorded: the granted read asks (refused headless), and Claude Code says why", async () => {
    const r = await claudeRun(
      () => [plain],
      () => undefined,
    );
    expect(r.ran, r.why()).toEqual([]);
    expect(r.raw.stderr, r.why()).toMatch(/Ignoring \d+ permissions\.allow entries .*has not been trusted/);
  }, 300_000);

  it("trust of the folder above the project (a git repository) does not count", async () => {
    const r = await claudeRun(
      () => [plain],
      (dir) => dirname(dir),
    );
    expect(existsSync(join(r.dir, ".git")), "the probe project is a git repository").toBe(true);
    expect(r.ran, r.why()).toEqual([]);
  }, 300_000);

  it("nor outside any git repository", async () => {
    const r = await claudeRun(
      () => [plain],
      (dir) => dirname(dir),
      { git: false },
    );
    expect(existsSync(join(r.dir, ".git"))).toBe(false);
    expect(r.ran, r.why()).toEqual([]);
  }, 300_000);
});
