// Host e2e for Amp, Cline and Continue: `hcpx adopt <host> --write` in a scratch
// project and HOME, then the host's own program proves it reads what hcpx wrote
// (facts: test/hosts/HOST-PROBES.md, "More hosts"):
//   - Amp: `amp mcp approve hcp` (a workspace server needs it), then `amp mcp doctor`
//     → `hcp (…): connected (4 tools: …)`, one per granted command (the per-command shape
//     its amp.permissions rules need), both scopes;
//   - Cline: `cline auth` against the fake model, then a headless `cline --json` run
//     offers the model `hcp__hcp`, and the model's call of it reads the ledger;
//   - Continue: `cn -p` with the user's own config.yaml (model, comments) into which
//     adopt put its `mcpServers` item: the model is offered `hcp` (bare names) and its
//     call reads the ledger.
// Then `adopt --remove --write` gives back the files byte for byte. Hosts run on copies
// of HOME (they write their own state there), offline when the suite runs in
// `unshare -rn` (scripts/test-agents.sh style) and with loopback only otherwise.
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeModel, type FakeModel, type Turn } from "../../support/fake-model";
import { endClineDaemons } from "../../agents/user-mcp-loop";
import {
  diffSnapshots,
  DIST,
  hc,
  hostHome,
  makeWorld,
  removeAfterAll,
  snapshot,
  TINY,
  USER_CONFIG,
  USER_CONFIG_FILE,
} from "./support";

const BINS = ["amp", "cline", "cn"] as const;
const has = Object.fromEntries(
  BINS.map((b) => [b, existsSync(join(hc.HOSTS_DIR, "node_modules", ".bin", b))]),
) as Record<(typeof BINS)[number], boolean>;
for (const b of BINS)
  if (!has[b]) console.warn(`[host e2e] ${b} SKIPPED: not installed in ${hc.HOSTS_DIR} (scripts/install-hosts.sh)`);
const cleanup = removeAfterAll();

const NODE = process.execPath;
const BALANCE = { pack: "ledger", verb: "balance", args: { account: "checking" } };

/** The doctor line of a server: `<name> (<where>): <status>`. */
function doctorLine(out: string, name: string): string | undefined {
  return out.split("\n").find((l) => l.startsWith(`${name} (`));
}

/** Model turns: call the tool `name` (as the host named it) with a ledger read, then finish. */
function callThenFinish(name: string, input: Record<string, unknown> = BALANCE): Turn[] {
  const call: Turn = (req) =>
    req.toolResults.length === 0 && req.tools.some((t) => t.name === name)
      ? { text: "reading the balance", toolCalls: [{ name, input }] }
      : { text: "FINISHED" };
  return [call, call, call, call];
}
const side = (req: { tools: unknown[] }) => (req.tools.length === 0 ? { text: "probe session" } : undefined);

describe.skipIf(!has.amp)(
  "Amp: `amp mcp doctor` connects to the hcp entry adopt wrote (flat key amp.mcpServers)",
  () => {
    it("project scope: the user's JSONC settings keep their comment and server; unapproved it awaits approval, approved it is connected; --remove gives the bytes back", async () => {
      const own = `{\n  // the user's workspace settings\n  "amp.mcpServers": {\n    "tiny": { "command": "$NODE", "args": ["$TINY"] }\n  },\n  "amp.dangerouslyAllowAll": false\n}\n`;
      const w = makeWorld({ ".amp/settings.json": own });
      cleanup(w.dir, w.home);
      const before = snapshot(w.dir);
      const a = await w.adopt("amp", "--write");
      expect(a.code, a.stderr + a.stdout).toBe(0);
      expect(a.stdout).toMatch(/amp mcp approve hcp/);
      const text = w.read(".amp/settings.json");
      expect(text).toContain("// the user's workspace settings");
      expect(text).toContain('"amp.dangerouslyAllowAll": false');
      const env = (h: string) => hc.hostEnv(h, { AMP_API_KEY: "x" });
      // not approved yet: Amp does not start it
      const h0 = cleanup(hostHome(w.home));
      const d0 = await hc.run(hc.hostBin("amp"), ["mcp", "doctor"], { cwd: w.dir, env: env(h0), timeoutMs: 90_000 });
      expect(doctorLine(d0.stdout, "hcp"), d0.stdout + d0.stderr).toMatch(/awaiting approval/);
      const h = cleanup(hostHome(w.home));
      const ap = await hc.run(hc.hostBin("amp"), ["mcp", "approve", "hcp"], {
        cwd: w.dir,
        env: env(h),
        timeoutMs: 60_000,
      });
      expect(ap.code, ap.stdout + ap.stderr).toBe(0);
      expect(readFileSync(join(h, ".config/amp/settings.json"), "utf8")).toContain('"amp.mcpTrustedServers"');
      const d = await hc.run(hc.hostBin("amp"), ["mcp", "doctor"], { cwd: w.dir, env: env(h), timeoutMs: 90_000 });
      expect(doctorLine(d.stdout, "hcp"), d.stdout + d.stderr).toMatch(/: connected \(4 tools: .*ledger__balance/);
      expect((await w.adopt("amp", "--check")).code).toBe(0);
      const r = await w.adopt("amp", "--remove", "--write");
      expect(r.code, r.stderr).toBe(0);
      // amp wrote its own bookkeeping next to the settings in the project (.amp/settings.json.amp-write-meta) only on `mcp add`; doctor/approve leave the project alone
      expect(diffSnapshots(before, snapshot(w.dir))).toEqual([]);
    });

    it("user scope: ~/.config/amp/settings.json; connected without an approval step", async () => {
      const w = makeWorld({
        "~/.config/amp/settings.json": `{\n  "amp.notifications.enabled": false, // mine\n}\n`,
        [USER_CONFIG_FILE]: USER_CONFIG,
      });
      cleanup(w.dir, w.home);
      const before = snapshot(w.home);
      const a = await w.adopt("amp", "--scope", "user", "--write");
      expect(a.code, a.stderr + a.stdout).toBe(0);
      expect(w.read("~/.config/amp/settings.json")).toMatch(
        /^\{\n {2}"amp\.notifications\.enabled": false, \/\/ mine\n/,
      );
      const h = cleanup(hostHome(w.home));
      const d = await hc.run(hc.hostBin("amp"), ["mcp", "doctor"], {
        cwd: w.dir,
        env: hc.hostEnv(h, { AMP_API_KEY: "x" }),
        timeoutMs: 90_000,
      });
      expect(doctorLine(d.stdout, "hcp-user"), d.stdout + d.stderr).toMatch(
        /^hcp-user \(user settings\): connected \(4 tools: .*ledger__balance/,
      );
      const r = await w.adopt("amp", "--scope", "user", "--remove", "--write");
      expect(r.code, r.stderr).toBe(0);
      expect(diffSnapshots(before, snapshot(w.home))).toEqual([]);
    });
  },
);

describe.skipIf(!has.cline)(
  "Cline: a headless run against the fake model offers hcp__hcp, and its call reads the ledger",
  () => {
    let fake: FakeModel | undefined;
    let project = "";
    afterAll(async () => {
      await fake?.close();
      if (project) await endClineDaemons(project);
    });
    it("user scope (the only one Cline has for MCP) + the project's rule and Skills: cline_mcp_settings.json keeps the user's server; the rules and Skills reach the model; --remove gives both trees back", async () => {
      const own = `{\n  "mcpServers": {\n    "tiny": {\n      "command": "$NODE",\n      "args": ["$TINY"],\n      "disabled": true\n    }\n  }\n}\n`;
      const w = makeWorld({ "~/.cline/data/settings/cline_mcp_settings.json": own, [USER_CONFIG_FILE]: USER_CONFIG });
      project = w.dir;
      cleanup(w.dir, w.home);
      const before = snapshot(w.home);
      const projBefore = snapshot(w.dir);
      const a = await w.adopt("cline", "--scope", "user", "--write");
      expect(a.code, a.stderr + a.stdout).toBe(0);
      // and the project's rule file and Skills (Cline has no project MCP file)
      const p = await w.adopt("cline", "--write");
      expect(p.code, p.stderr + p.stdout).toBe(0);
      const entry = JSON.parse(w.read("~/.cline/data/settings/cline_mcp_settings.json")).mcpServers;
      expect(Object.keys(entry)).toEqual(["tiny", "hcp"]);
      // autoApprove holds the read-only hcp__read_skill (the Cline extension reads it; the CLI ignores it and starts the server)
      expect(entry.hcp).toEqual({
        command: NODE,
        args: [DIST, "mcp", "--config", w.abs(USER_CONFIG_FILE)],
        autoApprove: ["hcp__read_skill"],
      });
      expect(entry.tiny).toEqual({ command: NODE, args: [TINY], disabled: true });

      fake = await startFakeModel({ script: callThenFinish("hcp__hcp"), side });
      const h = cleanup(hostHome(w.home));
      const env = hc.hostEnv(h, { PATH: w.env.PATH! });
      const auth = await hc.run(
        hc.hostBin("cline"),
        ["auth", "-p", "openai", "-k", "x", "-m", "m", "-b", `${fake.url}/v1`],
        { cwd: w.dir, env, timeoutMs: 60_000 },
      );
      expect(auth.code, auth.stdout + auth.stderr).toBe(0);
      const run = await hc.run(
        hc.hostBin("cline"),
        ["--json", "-t", "60", "What is the balance of the checking account?"],
        { cwd: w.dir, env, timeoutMs: 120_000 },
      );
      await endClineDaemons(w.dir);
      const why = `exit ${run.code} in ${run.ms} ms\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`;
      expect(run.code, why).toBe(0);
      const offered = fake.modelRequests.flatMap((r) => r.tools.map((t) => t.name));
      expect(offered, why).toContain("hcp__hcp");
      expect(offered, why).toContain("hcp__hcp__read_skill");
      expect(
        offered.filter((n) => n === "tiny" || n.startsWith("tiny__")),
        why,
      ).toEqual([]); // the user's disabled server stays off
      const results = fake.modelRequests.at(-1)!.toolResults;
      expect(results.map((r) => r.output).join("\n"), why).toMatch(/balance\W+1200/);
      // the instructions reach the model: the user's ~/.agents/AGENTS.md block (it names ~/.cline/skills)
      // and the project's .clinerules/hcp.md (it names .cline/skills); the Skills are offered by Cline's skills tool
      const first = fake.modelRequests[0]!;
      expect(first.system, why).toContain("`~/.cline/skills/<pack>/SKILL.md`");
      expect(first.system, why).toContain("`.cline/skills/<pack>/SKILL.md`");
      expect(first.tools.find((t) => t.name === "skills")?.description, why).toMatch(/Available skills: ledger\b/);

      const r = await w.adopt("cline", "--scope", "user", "--remove", "--write");
      expect(r.code, r.stderr).toBe(0);
      expect((await w.adopt("cline", "--remove", "--write")).code).toBe(0);
      expect(diffSnapshots(before, snapshot(w.home))).toEqual([]);
      // (Cline itself runs git in the project: it writes .git/index, which is not hcpx's)
      expect(
        diffSnapshots(projBefore, snapshot(w.dir)).filter((d) => !/^\w+: \.git\//.test(d)),
        "project",
      ).toEqual([]);
    });
  },
);

describe.skipIf(!has.cn)(
  "Continue: `cn -p` with the user's config.yaml offers the hcp tools, and its call reads the ledger",
  () => {
    let fake: FakeModel | undefined;
    afterAll(async () => {
      await fake?.close();
    });
    it("user scope + the project's rule and Skills: the YAML keeps the user's model and comments, the hcp item is appended to a new mcpServers list; the rules and Skills reach the model; --remove gives the bytes back", async () => {
      fake = await startFakeModel({ script: callThenFinish("hcp"), side });
      const own = `# my continue config\nname: Mine\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: fake   # the fake model\n    provider: openai\n    model: m\n    apiBase: ${fake.url}/v1\n    apiKey: x\n    roles: [chat]\n`;
      const w = makeWorld({ "~/.continue/config.yaml": own, [USER_CONFIG_FILE]: USER_CONFIG });
      cleanup(w.dir, w.home);
      const before = snapshot(w.home);
      const projBefore = snapshot(w.dir);
      const a = await w.adopt("continue", "--scope", "user", "--write");
      expect(a.code, a.stderr + a.stdout).toBe(0);
      const p = await w.adopt("continue", "--write");
      expect(p.code, p.stderr + p.stdout).toBe(0);
      const text = w.read("~/.continue/config.yaml");
      expect(text.startsWith(own)).toBe(true);
      expect(text.slice(own.length)).toBe(
        `mcpServers:\n  - name: hcp\n    command: ${NODE}\n    args:\n      - ${DIST}\n      - mcp\n      - --config\n      - ${w.abs(USER_CONFIG_FILE)}\n`,
      );
      expect((await w.adopt("continue", "--scope", "user", "--check")).code).toBe(0);

      const h = cleanup(hostHome(w.home));
      const run = await hc.run(hc.hostBin("cn"), ["-p", "What is the balance of the checking account?", "--auto"], {
        cwd: w.dir,
        env: hc.hostEnv(h, { PATH: w.env.PATH! }),
        timeoutMs: 120_000,
      });
      const why = `exit ${run.code} in ${run.ms} ms\n${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`;
      expect(run.code, why).toBe(0);
      const offered = fake.modelRequests.flatMap((r) => r.tools.map((t) => t.name));
      expect(offered, why).toContain("hcp"); // Continue shows MCP tools by their bare names
      expect(offered, why).toContain("hcp__read_skill");
      expect(
        fake.modelRequests
          .at(-1)!
          .toolResults.map((r) => r.output)
          .join("\n"),
        why,
      ).toMatch(/balance\W+1200/);
      // the rules reach the model: ~/.continue/rules/hcp.md (names ~/.continue/skills) and the project's
      // .continue/rules/hcp.md (names .continue/skills); Continue's Skills tool lists the ledger Skill
      const first = fake.modelRequests[0]!;
      expect(first.system, why).toContain("`~/.continue/skills/<pack>/SKILL.md`");
      expect(first.system, why).toContain("`.continue/skills/<pack>/SKILL.md`");
      expect(first.tools.find((t) => t.name === "Skills")?.description, why).toMatch(/name: ledger\n/);

      const r = await w.adopt("continue", "--scope", "user", "--remove", "--write");
      expect(r.code, r.stderr).toBe(0);
      expect((await w.adopt("continue", "--remove", "--write")).code).toBe(0);
      expect(diffSnapshots(before, snapshot(w.home))).toEqual([]);
      expect(diffSnapshots(projBefore, snapshot(w.dir)), "project").toEqual([]);
    });
  },
);
