// Claude Code's allow rule for the shell route is a prefix rule: adopt writes
// `Bash(hcpx exec probe echo:*)` (hosts/claude.json5). A command that puts an
// environment variable in front of it — `HCP_CONFIG=<another config> hcpx exec
// probe echo`, or the same through `env` — would run that pack's command under
// another config's packs, grants and confirm, under the rule a person gave for
// this one, if Claude Code matched it past the assignment. exec cannot tell a
// person's HCP_CONFIG from one the model wrote, so what decides it is the host:
// here its own headless agent, with only the rules adopt wrote (no
// --allowedTools for Bash), against the scripted fake model. Proven: the plain
// command runs under the rule, and neither prefixed form runs (the headless
// run has nobody to ask, so an unmatched command is refused).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel } from "../support/fake-model";
import { hc, rm, type Raw } from "../hosts/e2e/support";
import { adopted, envelopeIn, HOSTS, PROMPT, side, type Call } from "./support";

const spec = HOSTS.claude;

describe("claude: an environment assignment in front of `hcpx exec` does not pass the adopted allow rule", () => {
  let dir: string, home: string, fake: FakeModel, raw: Raw, calls: Call[], results: string[];
  const steps = [
    {
      what: "prefixed",
      text: "env-prefixed-1",
      command: (cfg: string) => `HCP_CONFIG=${cfg} hcpx exec probe echo --json -- text=env-prefixed-1`,
    },
    {
      what: "env",
      text: "env-wrapped-1",
      command: (cfg: string) => `env HCP_CONFIG=${cfg} hcpx exec probe echo --json -- text=env-wrapped-1`,
    },
    { what: "plain", text: "plain-1", command: () => "hcpx exec probe echo --json -- text=plain-1" },
  ];
  beforeAll(async () => {
    const a = await adopted("claude", true);
    dir = a.dir;
    home = a.home;
    // another config: the same packs, every command granted (what a planted config could say)
    const other = join(dir, "other.json5");
    writeFileSync(other, readFileSync(join(dir, "hcp.config.json5"), "utf8"));
    fake = await startFakeModel({
      script: Array.from({ length: steps.length * 2 + 4 }, () => (req: { toolResults: unknown[] }) => {
        const step = steps[req.toolResults.length];
        return step
          ? { text: `step: ${step.what}`, toolCalls: [spec.shellCall(step.command(other))] }
          : { text: "PROBE-FINISHED" };
      }),
      side,
    });
    // a workspace the person trusted: Claude Code ignores a project's permissions.allow entries until then
    // ("Ignoring 3 permissions.allow entries from .claude/settings.json: this workspace has not been trusted")
    const trusted = { ".claude.json": JSON.stringify({ projects: { [dir]: { hasTrustDialogAccepted: true } } }) };
    for (const [rel, text] of Object.entries({ ...spec.homeFiles(fake.url, dir), ...trusted })) {
      const abs = join(home, rel);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, text);
    }
    const env = hc.hostEnv(home, {
      ...spec.env(fake.url, home),
      PATH: a.path,
      PWD: dir,
      PROBE_TOKEN: `tok-${randomBytes(12).toString("hex")}`,
    });
    // the person's rules only: no --allowedTools, so Bash runs what .claude/settings.json (adopt) allows
    raw = await hc.run(hc.hostBin("claude"), ["-p", PROMPT, "--output-format", "json"], {
      cwd: dir,
      env,
      timeoutMs: 120_000,
    });
    const f = join(dir, "probe-calls.jsonl");
    calls = existsSync(f)
      ? readFileSync(f, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Call)
      : [];
    const main = fake.modelRequests.filter((r) => r.tools.length > 0);
    const last = main.reduce((x, y) => (y.toolResults.length >= x.toolResults.length ? y : x), main[0]!);
    results = (last?.toolResults ?? []).map((r) => r.output);
    console.log(
      `[agents] claude env prefix: exit ${raw.code}, echo calls ${JSON.stringify(calls.map((c) => c.argv[0]))}, results ${JSON.stringify(results).slice(0, 800)}`,
    );
  }, 300_000);
  afterAll(async () => {
    await fake?.close();
    if (!process.env.HCPX_E2E_KEEP) for (const d of [dir, home]) if (d) rm(d);
  });
  const why = () =>
    `exit ${raw.code}\nresults: ${JSON.stringify(results).slice(0, 3000)}\nstdout: ${raw.stdout.slice(-2000)}\nstderr: ${raw.stderr.slice(-2000)}`;

  it("the plain command runs under the rule adopt wrote, once", () => {
    expect(envelopeIn(results[2] ?? "")?.ok, why()).toBe(true);
    expect(
      calls.filter((c) => c.argv[0] === "plain-1"),
      why(),
    ).toHaveLength(1);
  });

  it("HCP_CONFIG=… in front, and through env, is not matched: neither ran", () => {
    expect(results.length, why()).toBe(3);
    for (const i of [0, 1]) expect(envelopeIn(results[i] ?? "")?.ok, why()).not.toBe(true);
    expect(
      calls.filter((c) => c.argv[0] !== "plain-1"),
      why(),
    ).toEqual([]);
  });
});
