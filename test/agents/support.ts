// The agent-loop suite (`npm run test:agents`): each host's own headless agent,
// pointed at the scripted fake model (test/support/fake-model.ts) on 127.0.0.1,
// in a scratch HOME and project where `hcpx adopt <host> --write` ran. Run by
// scripts/test-agents.sh inside a network namespace with only loopback up.
//
// The scratch project activates the probe pack (test/agents/fixtures/probe):
// `probe.echo` (read) and `probe.stamp` (write, confirm required) granted,
// `probe.vault.purge` not. Its bin records every call it gets in
// ./probe-calls.jsonl (verb, arguments, the Binding PROBE_TOKEN's value).
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { delimiter, dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import {
  jsonForSchema,
  startFakeModel,
  type FakeModel,
  type ModelRequest,
  type ToolCallSpec,
  type Turn,
} from "../support/fake-model";
import { connectMcp } from "../support/mcp";
import { DIST, hc, pathWithoutHcpx, REPO, tmp, type Raw } from "../hosts/e2e/support";
import { runHcpx } from "../support/hcpx";

export type HostId = "claude" | "codex" | "gemini" | "opencode" | "copilot" | "qwen" | "kilo" | "auggie" | "droid";
export const FIXTURES = join(REPO, "test", "agents", "fixtures");
export const GRANTED = ["probe.echo", "probe.stamp"];
/** every spelling of the ungranted command a model could be shown */
export const UNGRANTED_WORDS = ["vault.purge", "vault_purge", "vault__purge", "purge"];

/** How a host's agent is set up and driven (facts: test/hosts/HOST-PROBES.md, "Agent loop"). */
export interface HostSpec {
  id: HostId;
  /** the file adopt writes the prompt block into */
  instructions: string;
  /** the host hands the block to its model with its HTML comments (the hash line) */
  keepsComments: boolean;
  /** its shell tool runs `hcpx exec` (Codex's does not: hosts/codex.json5, shellRoute) */
  shell: boolean;
  /** properties the host adds to every tool's input schema (Gemini: wait_for_previous) */
  addsToolProperties?: string[];
  /** schema keys the host may leave out of the tool schemas it shows its model (compared without them; Qwen Code: additionalProperties) */
  dropsSchemaKeys?: string[];
  /** a tool's description as the host shows it to its model (Auggie prefixes `[MCP Server: hcp] `) */
  toolDescription?: (description: string) => string;
  /** the agent's exit code for the whole script (default 0; Kilo exits 1 when its run ends at an auto-rejected permission) */
  exitCode?: number;
  /** programs the host's agent needs on PATH (opencode's skill tool runs ripgrep) */
  needs?: string[];
  /**
   * An MCP tool of the hcp server as the host names it to its model. Every host here
   * is given one tool per granted command (hosts/*.json5 `tools: "per-command"`), so
   * that its own approval can tell reads from gated writes.
   */
  tool: (mcpName: string) => { name: string; namespace?: string };
  /**
   * What the host's own approval (the rules `adopt` wrote from the Policy) does with
   * the gated write `probe.stamp` in a headless run: "refused" — it never reaches hcpx,
   * with or without the model's confirm: true; "stops" — the headless run ends at the
   * approval prompt (opencode run), so the gated write is the last step the model gets;
   * "hcpx" — it reaches hcpx, which gates it (confirm_required without confirm; with
   * confirm it runs). Seen with the pinned hosts (HOST-PROBES.md, "Agent loop").
   */
  gatedWrite: "refused" | "stops" | "hcpx";
  /** "refused" by whom: the host's own approval (default: the call never reaches hcpx) or hcpx's question, which the headless host declines */
  refusedBy?: "host" | "hcpx";
  /**
   * A host that defers its MCP tools (Droid lists them by name in a system reminder and offers only
   * a search tool): the call that loads them, played first; the tools are compared in the request after it.
   */
  loadTools?: (names: string[]) => ToolCallSpec;
  /** the host's own skill mechanism: a call that loads the probe Skill */
  skillCall: ToolCallSpec;
  /** the host's shell tool running `cmd` */
  shellCall: (cmd: string) => ToolCallSpec;
  /** files in the scratch HOME that point the host at the fake model (and trust the project) */
  homeFiles: (fakeUrl: string, project: string) => Record<string, string>;
  /** the host's env; a TMPDIR it names is created (inside the scratch HOME) */
  env: (fakeUrl: string, home: string) => Record<string, string>;
  argv: (prompt: string) => string[];
  /** the host's own commands run in the project before the agent (an approval step: `qwen mcp approve hcp`) */
  prepare?: string[][];
}

export const HOSTS: Record<HostId, HostSpec> = {
  claude: {
    id: "claude",
    instructions: "CLAUDE.md",
    keepsComments: false,
    shell: true,
    tool: (n) => ({ name: `mcp__hcp__${n}` }),
    gatedWrite: "refused",
    skillCall: { name: "Skill", input: { skill: "probe" } },
    shellCall: (cmd) => ({ name: "Bash", input: { command: cmd, description: "run the probe through hcpx" } }),
    homeFiles: () => ({ ".claude/settings.json": JSON.stringify({ enableAllProjectMcpServers: true }) }),
    // ENABLE_TOOL_SEARCH=false: MCP tools are offered in full, not deferred behind ToolSearch.
    // MCP_CONNECTION_NONBLOCKING=false: the first request waits for the MCP servers (its default since 2.1.x
    // connects them in the background and offers WaitForMcpServers; a first request sent before `hcpx mcp`
    // answered offered no hcp tool: agents suite, stop 38)
    env: (url) => ({
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: "sk-fake",
      ENABLE_TOOL_SEARCH: "false",
      MCP_CONNECTION_NONBLOCKING: "false",
    }),
    // --allowedTools stands in for a person who allowed every hcp tool, the gated write included:
    // the project's permissions.ask rule (adopt) still sends that one to the approval prompt
    argv: (prompt) => [
      "-p",
      prompt,
      "--output-format",
      "json",
      "--allowedTools",
      "mcp__hcp__probe__echo mcp__hcp__probe__stamp mcp__hcp__hcp__read_skill Skill Bash(hcpx exec:*)",
    ],
  },
  codex: {
    id: "codex",
    instructions: "AGENTS.md",
    keepsComments: true,
    shell: false,
    tool: (n) => ({ name: n, namespace: "mcp__hcp" }),
    gatedWrite: "refused",
    // Codex has no skill tool: it lists the Skills (name, description, path) and the model reads the file
    skillCall: { name: "exec_command", input: { cmd: "cat .agents/skills/probe/SKILL.md" } },
    shellCall: (cmd) => ({ name: "exec_command", input: { cmd } }),
    homeFiles: (url, project) => ({
      ".codex/config.toml": [
        'model = "fake-model"',
        'model_provider = "fake"',
        "[model_providers.fake]",
        'name = "fake"',
        `base_url = "${url}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_MODEL_KEY"',
        `[projects."${project}"]`,
        'trust_level = "trusted"',
        "",
      ].join("\n"),
    }),
    // TMPDIR of its own: a release Codex refuses to create its helper links (codex-linux-sandbox,
    // apply_patch) when CODEX_HOME is under the temp dir ($TMPDIR, else /tmp: codex-rs/arg0), and
    // where bubblewrap is installed its shell tool then fails (`bwrap: execvp codex-linux-sandbox`)
    env: (_url, home) => ({ FAKE_MODEL_KEY: "sk-fake", TMPDIR: join(home, "tmp") }),
    // no approval override: the per-tool approval_mode adopt wrote lets the reads run headless
    argv: (prompt) => ["exec", "--skip-git-repo-check", prompt],
  },
  gemini: {
    id: "gemini",
    instructions: "GEMINI.md",
    keepsComments: true,
    shell: true,
    addsToolProperties: ["wait_for_previous"],
    tool: (n) => ({ name: `mcp_hcp_${n}` }),
    gatedWrite: "refused",
    skillCall: { name: "activate_skill", input: { name: "probe" } },
    shellCall: (cmd) => ({
      name: "run_shell_command",
      input: { command: cmd, description: "run the probe through hcpx" },
    }),
    homeFiles: () => ({
      ".gemini/settings.json": JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
    }),
    env: (url) => ({ GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: "fake-key", GEMINI_CLI_TRUST_WORKSPACE: "true" }),
    // without yolo, -p offers no MCP tools; yolo stands in for the person approving
    argv: (prompt) => ["-p", prompt, "--approval-mode", "yolo", "-o", "json"],
  },
  opencode: {
    id: "opencode",
    instructions: "AGENTS.md",
    keepsComments: true,
    shell: true,
    needs: ["rg"],
    tool: (n) => ({ name: `hcp_${n}` }),
    gatedWrite: "stops",
    skillCall: { name: "skill", input: { name: "probe" } },
    shellCall: (cmd) => ({ name: "bash", input: { command: cmd, description: "run the probe through hcpx" } }),
    homeFiles: (url) => ({
      ".config/opencode/opencode.json": JSON.stringify({
        $schema: "https://opencode.ai/config.json",
        provider: {
          fake: {
            npm: "@ai-sdk/openai-compatible",
            name: "Fake",
            options: { baseURL: `${url}/v1`, apiKey: "sk-fake" },
            models: { "fake-model": { name: "Fake model" } },
          },
        },
        model: "fake/fake-model",
      }),
    }),
    env: () => ({}),
    argv: (prompt) => ["run", "--format", "json", prompt],
  },
  copilot: {
    id: "copilot",
    instructions: ".github/copilot-instructions.md",
    keepsComments: true,
    shell: true,
    // Copilot CLI names MCP tools <server>-<tool>
    tool: (n) => ({ name: `hcp-${n}` }),
    // --allow-all-tools (the person allowing every tool) lets the gated write reach hcpx, which asks the
    // person through MCP elicitation: Copilot CLI declares it, and headless answers `decline` (seen):
    // confirm_declined with or without the model's confirm: true, and the write never runs
    gatedWrite: "refused",
    refusedBy: "hcpx",
    skillCall: { name: "skill", input: { skill: "probe" } },
    shellCall: (cmd) => ({ name: "bash", input: { command: cmd, description: "run the probe through hcpx" } }),
    // workspace MCP servers load only in a trusted folder
    homeFiles: (_url, project) => ({ ".copilot/config.json": JSON.stringify({ trusted_folders: [project] }) }),
    // an OpenAI-compatible provider (chat completions); COPILOT_OFFLINE: no GitHub login or calls
    env: (url) => ({
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
      COPILOT_PROVIDER_API_KEY: "sk-fake",
      COPILOT_MODEL: "fake-model",
    }),
    argv: (prompt) => ["-p", prompt, "--allow-all-tools", "-s"],
  },
  qwen: {
    id: "qwen",
    instructions: "QWEN.md",
    keepsComments: true,
    shell: true,
    tool: (n) => ({ name: `mcp__hcp__${n}` }),
    // seen: Qwen Code sends probe__stamp's input schema without `additionalProperties` (probe__echo's with it)
    dropsSchemaKeys: ["additionalProperties"],
    // --approval-mode yolo stands in for the person approving every tool: the gated write reaches hcpx
    gatedWrite: "hcpx",
    skillCall: { name: "skill", input: { skill: "probe" } },
    shellCall: (cmd) => ({
      name: "run_shell_command",
      input: { command: cmd, description: "run the probe through hcpx" },
    }),
    // tools.toolSearch.enabled false: MCP tools are offered in full, not behind tool_search/tool_call;
    // "$version": Qwen Code's own settings version (it adds it to a file without one)
    homeFiles: () => ({
      ".qwen/settings.json": JSON.stringify({ $version: 4, tools: { toolSearch: { enabled: false } } }),
    }),
    env: (url) => ({
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: "sk-fake",
      OPENAI_MODEL: "fake-model",
      QWEN_CODE_SUPPRESS_YOLO_WARNING: "1",
    }),
    argv: (prompt) => ["-p", prompt, "--auth-type", "openai", "--approval-mode", "yolo"],
    // a project MCP server connects only once approved (bound to the entry's hash, in ~/.qwen/mcpApprovals.json)
    prepare: [["mcp", "approve", "hcp"]],
  },
  kilo: {
    id: "kilo",
    instructions: "AGENTS.md",
    keepsComments: true,
    shell: true,
    needs: ["rg"],
    tool: (n) => ({ name: `hcp_${n}` }),
    // the `permission` rules adopt wrote (opencode's): the gated write asks, and `kilo run` ends there,
    // exit 1: "run ended with an auto-rejected permission; pass --auto for autonomous use" (seen)
    gatedWrite: "stops",
    exitCode: 1,
    skillCall: { name: "skill", input: { name: "probe" } },
    shellCall: (cmd) => ({ name: "bash", input: { command: cmd, description: "run the probe through hcpx" } }),
    homeFiles: (url) => ({
      ".config/kilo/kilo.json": JSON.stringify({
        $schema: "https://app.kilo.ai/config.json",
        provider: {
          fake: {
            npm: "@ai-sdk/openai-compatible",
            name: "Fake",
            options: { baseURL: `${url}/v1`, apiKey: "sk-fake" },
            models: { "fake-model": { name: "Fake model" } },
          },
        },
        model: "fake/fake-model",
      }),
    }),
    env: () => ({
      KILO_DISABLE_MODELS_FETCH: "1",
      KILO_DISABLE_AUTOUPDATE: "1",
      KILO_DISABLE_LSP_DOWNLOAD: "1",
      KILO_DISABLE_SHARE: "1",
    }),
    argv: (prompt) => ["run", "--format", "json", prompt],
  },
  auggie: {
    id: "auggie",
    instructions: "AGENTS.md",
    keepsComments: true,
    shell: false,
    // Auggie names MCP tools <tool>_<server> and prefixes their descriptions
    tool: (n) => ({ name: `${n}_hcp` }),
    toolDescription: (d) => `[MCP Server: hcp] ${d}`,
    // its launch-process shell does not find hcpx on PATH: hosts/auggie.json5 shellRoute: false
    // issue 27: adopt writes toolPermissions (reads allow, gated writes ask-user); headless
    // `auggie --print` has nobody to ask, so it denies the gated write before it reaches hcpx
    gatedWrite: "refused",
    // no skill tool: the request lists the Skills (name, description, path) and the model views the file
    skillCall: { name: "view", input: { type: "file", path: ".agents/skills/probe/SKILL.md" } },
    shellCall: (cmd) => ({
      name: "launch-process",
      input: { command: cmd, wait: true, max_wait_seconds: 60, cwd: "." },
    }),
    homeFiles: () => ({}),
    // a fake Augment tenant: the session needs accessToken, tenantURL and a scopes array
    env: (url) => ({
      AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: "fake", tenantURL: `${url}/`, scopes: ["email"] }),
    }),
    argv: (prompt) => ["--print", prompt],
  },
  droid: {
    id: "droid",
    instructions: "AGENTS.md",
    keepsComments: true,
    shell: true,
    // Droid names MCP tools <server>___<tool> and defers them: the first request offers ToolSearch and lists
    // them under "Deferred tools:" (seen with 0.225.x, test/hosts/HOST-PROBES.md)
    tool: (n) => ({ name: `hcp___${n}` }),
    loadTools: (names) => ({ name: "ToolSearch", input: { query: `select:${names.join(",")}` } }),
    // `droid exec` lists every hcp tool as allowed, even at its read-only autonomy (where a call of a tool it
    // does not have ends the run: "insufficient permission to proceed"), and at --auto high asks nothing:
    // the gated write reaches hcpx, which gates it. The MCP tools are listed once the server is up (after
    // the first request): the load step comes after the skill step
    gatedWrite: "hcpx",
    skillCall: { name: "Skill", input: { skill: "probe" } },
    shellCall: (cmd) => ({
      name: "Execute",
      input: {
        summary: "Run the probe through hcpx",
        command: cmd,
        riskLevelReason: "This command only prints an echo through the probe pack without changing any files.",
        riskLevel: "low",
      },
    }),
    // a BYOK custom model on the fake's chat-completions route; no Factory login needed
    homeFiles: (url) => ({
      ".factory/settings.json": JSON.stringify({
        customModels: [
          {
            model: "fake-model",
            displayName: "fake",
            baseUrl: `${url}/v1`,
            apiKey: "sk-fake",
            provider: "generic-chat-completion-api",
            maxOutputTokens: 4000,
          },
        ],
      }),
    }),
    env: () => ({}),
    argv: (prompt) => ["exec", "--auto", "high", "-m", "custom:fake-0", prompt],
  },
};

export const PROMPT = "Use the probe pack: read its Skill, echo, then stamp a note.";
export const ECHO_TEXT = "agent-echo-1";
export const SHELL_TEXT = "via-shell-1";

export interface Call {
  verb: string;
  argv: string[];
  token: string | null;
}

export interface AgentRun {
  spec: HostSpec;
  dir: string;
  home: string;
  fake: FakeModel;
  token: string;
  raw: Raw;
  /** the steps the script played, in order */
  plan: { what: string; call: ToolCallSpec }[];
  /** the prompt block as adopt wrote it (between the hcp:begin/end markers) */
  block: string;
  /** the hcp tool and hcp__read_skill as `hcpx mcp` lists them in the project */
  mcpTools: { name: string; description?: string; inputSchema: unknown }[];
  calls: () => Call[];
  ms: number;
  /** how often the script loaded deferred MCP tools again, the host's servers not yet up (runAgent) */
  loadRetries: number;
}

/** Every string inside a JSON value, joined with newlines (what a model is shown, unescaped). */
export function allText(v: unknown): string {
  const out: string[] = [];
  const walk = (x: unknown) => {
    if (typeof x === "string") out.push(x);
    else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === "object") Object.values(x).forEach(walk);
  };
  walk(v);
  return out.join("\n");
}

/** The first hcpx envelope (`{"ok":…}`) in a text, parsed; undefined when there is none. */
export function envelopeIn(
  text: string,
): { ok: boolean; data?: Record<string, unknown>; error?: { code: string; message: string } } | undefined {
  // compact or pretty-printed (Droid hands the tool's text over as hcpx wrote it: `{\n  "ok": …`)
  const starts = [...text.matchAll(/\{\s*"ok"\s*:/g)].map((m) => m.index);
  for (const i of starts) {
    let depth = 0;
    let inStr = false;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (inStr) {
        if (c === "\\") j++;
        else if (c === '"') inStr = false;
      } else if (c === '"') inStr = true;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        try {
          return JSON.parse(text.slice(i, j + 1));
        } catch {
          break;
        }
      }
    }
  }
  return undefined;
}

export const sha12 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 12);

/** A dir holding `hcpx` (a link to this build's entry): put it on PATH and adopt writes the portable `hcpx mcp`. */
export function hcpxBinDir(): string {
  const d = tmp("hcpx-agents-bin-");
  symlinkSync(DIST, join(d, "hcpx"));
  // executable as the build leaves it (scripts/build.mjs); never changed here: the suite's other files run it
  // meanwhile, and every suite fails a run that changed dist/ (test/support/repo-writes.ts)
  if ((statSync(DIST).mode & 0o111) !== 0o111) throw new Error(`${DIST} is not executable: run npm run build`);
  return d;
}

/** The scratch project: a git repo with the probe pack, its bin, and the grants above. */
export function probeProject(): string {
  const dir = tmp("hcpx-agents-proj-");
  cpSync(join(FIXTURES, "probe"), join(dir, "packs", "probe"), { recursive: true });
  mkdirSync(join(dir, "bins"));
  cpSync(join(FIXTURES, "probe.mjs"), join(dir, "bins", "probe.mjs"));
  const config = {
    packs: ["./packs/probe"],
    principal: { id: "agent", kind: "agent" },
    grants: { allow: GRANTED, deny: [] },
    sandbox: { roots: ["."], cwd: "." },
  };
  writeFileSync(join(dir, "hcp.config.json5"), JSON.stringify(config, null, 2) + "\n");
  const git = spawnSync("git", ["init", "-q"], { cwd: dir, encoding: "utf8" });
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr}`);
  return dir;
}

export function readBlock(file: string): string {
  const text = readFileSync(file, "utf8");
  const m = /<!-- hcp:begin -->\n([\s\S]*?)<!-- hcp:end -->/.exec(text);
  if (!m) throw new Error(`no hcp block in ${file}:\n${text.slice(0, 500)}`);
  return m[1]!;
}

/** `hcpx adopt <host> --write` in a scratch project; `onPath`: with `hcpx` on PATH. */
export async function adopted(host: HostId, onPath: boolean): Promise<{ dir: string; home: string; path: string }> {
  const dir = probeProject();
  const home = tmp("hcpx-agents-home-");
  const path = onPath ? [hcpxBinDir(), pathWithoutHcpx()].join(delimiter) : pathWithoutHcpx();
  const r = await runHcpx(["adopt", host, "--write"], { cwd: dir, env: { HOME: home, PATH: path }, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`adopt ${host} --write failed (${r.code}):\n${r.stderr}${r.stdout}`);
  return { dir, home, path };
}

const WAIT_ID = "load_again_";
const MAX_WAITS = 20;
/** The tool results of the plan's steps: without those of the load step's retries (runAgent; a host may prefix the id). */
export const planResults = <T extends { id: string }>(results: T[]): T[] =>
  results.filter((r) => !r.id.includes(WAIT_ID));

/** Side calls (no tools offered: titles, routing classifiers) get an answer without taking a turn. */
export function side(req: ModelRequest): { text: string } | undefined {
  if (req.tools.length > 0) return undefined;
  const b = req.body as { generationConfig?: { responseJsonSchema?: unknown; responseSchema?: unknown } } | undefined;
  const schema = b?.generationConfig?.responseJsonSchema ?? b?.generationConfig?.responseSchema;
  return { text: schema ? JSON.stringify(jsonForSchema(schema)) : "probe session" };
}

/**
 * adopt, then the host's own agent against the fake model, playing: read the
 * Skill (the host's own mechanism), call a granted read, the ungranted command,
 * the gated write without and with confirm, the shell route (when `shell`),
 * then finish. Each request's turn is chosen by how many tool results it
 * carries, so a retried request replays its step instead of skipping one.
 */
export async function runAgent(host: HostId): Promise<AgentRun> {
  const spec = HOSTS[host];
  for (const p of spec.needs ?? []) {
    if (!(process.env.PATH ?? "").split(delimiter).some((d) => d && existsSync(join(d, p))))
      throw new Error(`${host}'s agent needs \`${p}\` on PATH (install ripgrep: apt-get install -y ripgrep)`);
  }
  const t0 = Date.now();
  const { dir, home, path } = await adopted(host, true);
  const token = `tok-${randomBytes(12).toString("hex")}`;
  const hcp = (name: string, input: Record<string, unknown>): ToolCallSpec => ({ ...spec.tool(name), input });
  // the MCP tools a host that defers them (loadTools) must load: the load step's, and its retries' below
  const deferred = ["probe__echo", "probe__stamp", "hcp__read_skill"].map((n) => spec.tool(n).name);
  const plan = [
    { what: "skill", call: spec.skillCall },
    // after the skill step: a host that defers MCP tools lists them once its servers are up
    ...(spec.loadTools
      ? [
          {
            what: "load",
            call: spec.loadTools(deferred),
          },
        ]
      : []),
    { what: "echo", call: hcp("probe__echo", { text: ECHO_TEXT }) },
    // not served (deny by default): the host has no such tool
    { what: "ungranted", call: hcp("vault__purge", {}) },
    ...(spec.shell
      ? [{ what: "shell", call: spec.shellCall(`hcpx exec probe echo --json -- text=${SHELL_TEXT}`) }]
      : []),
    // the gated write last: a host whose approval stops a headless run ends the script here
    { what: "unconfirmed", call: hcp("probe__stamp", { note: "unconfirmed-1" }) },
    { what: "confirmed", call: hcp("probe__stamp", { note: "confirmed-1", confirm: true }) },
  ];
  // A host that defers MCP tools (loadTools) can load them only once its servers are up. Droid answered
  // the load step "Error: Not found: hcp___probe__echo, …" when it came before `hcpx mcp` had answered
  // (CI, stop 37; here with every node it starts slowed by 3 s), and then never offered them. So after
  // the load step, while the request does not offer the tools, the script waits a second through the
  // host's shell (the Skill read again, for a host without one) and loads them again, the names in
  // another order each time (Droid ends a run that repeats one call five times); at most MAX_WAITS
  // such calls, told apart by their ids: the plan's steps count only the other results (planResults).
  let waits = 0;
  const loaded = (req: ModelRequest) => req.tools.some((t) => t.name === spec.tool("probe__echo").name);
  const turn: Turn = (req) => {
    const done = planResults(req.toolResults);
    const step = plan[done.length];
    if (plan[done.length - 1]?.what === "load" && spec.loadTools && !loaded(req) && waits < MAX_WAITS) {
      waits++;
      const id = `${WAIT_ID}${waits}`;
      const turnOf = (call: ToolCallSpec) => ({ text: "step: wait for the MCP tools", toolCalls: [{ ...call, id }] });
      if (waits % 2 === 1) return turnOf(spec.shell ? spec.shellCall("sleep 1") : spec.skillCall);
      const k = (waits / 2) % deferred.length;
      return turnOf(spec.loadTools([...deferred.slice(k), ...deferred.slice(0, k)]));
    }
    return step ? { text: `step: ${step.what}`, toolCalls: [step.call] } : { text: "PROBE-FINISHED" };
  };
  const fake = await startFakeModel({
    script: Array.from({ length: plan.length * 2 + 4 + MAX_WAITS }, () => turn),
    side,
  });
  // what `hcpx mcp` itself lists in this project: the reference for what the host offered
  const mcp = await connectMcp([DIST, "mcp", "--shape", "per-command"], dir, { HOME: home, PATH: path });
  const { tools } = await mcp.client.listTools();
  await mcp.client.close();
  for (const [rel, text] of Object.entries(spec.homeFiles(fake.url, dir))) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
  const env = hc.hostEnv(home, { ...spec.env(fake.url, home), PATH: path, PWD: dir, PROBE_TOKEN: token });
  if (env.TMPDIR) mkdirSync(env.TMPDIR, { recursive: true });
  for (const args of spec.prepare ?? []) {
    const r = await hc.run(hc.hostBin(host), args, { cwd: dir, env, timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(`${host} ${args.join(" ")} failed (${r.code}):\n${r.stderr}${r.stdout}`);
  }
  const raw = await hc.run(hc.hostBin(host), spec.argv(PROMPT), { cwd: dir, env, timeoutMs: 120_000 });
  const calls = () => {
    const f = join(dir, "probe-calls.jsonl");
    return existsSync(f)
      ? readFileSync(f, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Call)
      : [];
  };
  return {
    spec,
    dir,
    home,
    fake,
    token,
    raw,
    plan,
    block: readBlock(join(dir, spec.instructions)),
    mcpTools: tools,
    calls,
    ms: Date.now() - t0,
    loadRetries: waits,
  };
}

/** The host's output, for failure messages. */
export function why(run: AgentRun): string {
  const reqs = run.fake.modelRequests
    .map((r) => `#${r.n} ${r.path} tools=${r.tools.length} results=${JSON.stringify(r.toolResults).slice(0, 1500)}`)
    .join("\n");
  return `exit ${run.raw.code}${run.raw.timedOut ? " (timed out)" : ""} in ${run.raw.ms} ms\nrequests:\n${reqs}\nunexpected: ${run.fake.unexpected.map((u) => u.path).join(", ")}\nstdout:\n${run.raw.stdout.slice(-3000)}\nstderr:\n${run.raw.stderr.slice(-3000)}`;
}

/** The probe Skill's frontmatter description (what a host lists when it discovers the Skill). */
export const SKILL_DESCRIPTION = /description: "([^"]+)"/.exec(
  readFileSync(join(FIXTURES, "probe", "SKILL.md"), "utf8"),
)![1]!;
export const SKILL_MARKER = "PROBE-SKILL-BODY-MARKER";
