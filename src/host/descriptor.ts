// Host descriptors: `hosts/<host>.json5` says, per scope, which files a host
// reads and in which format. The engine knows formats, never hosts.
import { didYouMean } from "../util/suggest";
import * as z from "zod/mini";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HcpxError } from "../util/errors";
import { readJson5 } from "../pack/json5";
import { validate } from "../pack/validate";

export const FORMATS = ["json", "jsonc", "toml", "markdown-block", "file", "dir-of-skills"] as const;
export type Format = (typeof FORMATS)[number];

/** Rule patterns per command class; `{tool}`, `{pack}`, `{verb}` and `{server}` are filled in per granted command. */
const RuleClasses = z.strictObject({
  /** granted reads */
  read: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** granted writes without confirm */
  write: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** granted writes with confirm: true (the host's approval prompt) */
  confirm: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** fixed items, once (e.g. the read-only hcp__read_skill tool) */
  always: z.optional(z.array(z.string().check(z.minLength(1)))),
});
export type RuleClasses = z.infer<typeof RuleClasses>;

const TargetSchema = z.strictObject({
  /** stable id within the host, e.g. "mcp", "instructions", "rule", "skills" */
  id: z.string().check(z.regex(/^[a-z][a-z0-9-]*$/)),
  /** relative to the project root, or `~/…` (user scope). Alternatives: the first that exists, else the first. */
  path: z.union([z.string().check(z.minLength(1)), z.array(z.string().check(z.minLength(1))).check(z.minLength(1))]),
  format: z.enum(FORMATS),
  /** json/jsonc/toml: key path of the MCP entry, e.g. ["mcpServers", "hcp"] */
  key: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
  /** `templates/<host>/<template>` — renders the entry (json: a JSON value; toml: the tables), the block, or the file */
  template: z.optional(z.string()),
  /** jsonc: trailing commas accepted by the host (default true); json is always strict */
  trailingCommas: z.optional(z.boolean()),
  /** a size the host ignores text beyond (characters of the rendered file / block) */
  maxChars: z.optional(z.number()),
  /** a size cap on the whole resulting file, in bytes (e.g. Codex's 32 KiB for AGENTS.md) */
  maxBytes: z.optional(z.number()),
  /** the host's env var reference syntax in this file, `VAR` standing for the name (templates get `envRefs` from it) */
  envSyntax: z.optional(z.string().check(z.regex(/VAR/))),
  /**
   * The host's variable syntax in this file: what it expands in the strings we
   * write (`syntax`, for people), and a regular expression (`pattern`) matching
   * anything it would expand. None of the hosts we ship has an escape for it, so
   * an MCP command word that matches is refused (the engine, not per host).
   */
  vars: z.optional(z.strictObject({ syntax: z.string().check(z.minLength(1)), pattern: z.string().check(z.minLength(1)) })),
  /**
   * json/jsonc: the file as hcpx creates it, before the entry goes in — the host's own
   * skeleton (opencode adds `$schema` to any config that lacks it). A removal that leaves
   * exactly this in a file hcpx created deletes the file.
   */
  initial: z.optional(z.record(z.string(), z.unknown())),
  /** a note printed with the plan when this target is written */
  note: z.optional(z.string()),
  /**
   * mcp targets: the field names of the host's stdio server entries (siblings of
   * `key`'s last segment), for `hcpx import <host>`. `command` + `args`, or `argv`
   * (one array: program and arguments); `env` an object of NAME: value; `remote`
   * the fields that mark a server reached by URL (not importable as stdio).
   */
  servers: z.optional(
    z.strictObject({
      command: z.optional(z.string().check(z.minLength(1))),
      args: z.optional(z.string().check(z.minLength(1))),
      argv: z.optional(z.string().check(z.minLength(1))),
      env: z.optional(z.string().check(z.minLength(1))),
      /** a list of env names the host forwards from its own environment (Codex `env_vars`) */
      envNames: z.optional(z.string().check(z.minLength(1))),
      remote: z.optional(z.array(z.string().check(z.minLength(1)))),
    }),
  ),
  /**
   * json/jsonc: `key` names a list (the host's permission rules, e.g. Claude Code's
   * permissions.allow); hcpx adds these items to it and removes only the items it
   * added, never a rule the person wrote. No template.
   */
  items: z.optional(RuleClasses),
  /**
   * json/jsonc: `key` names an object of rule → decision (opencode's `permission`);
   * hcpx sets one member per item: `{ pattern, read?, write?, confirm?, always? }`.
   */
  members: z.optional(
    z.strictObject({
      pattern: z.string().check(z.minLength(1)),
      read: z.optional(z.string()),
      write: z.optional(z.string()),
      confirm: z.optional(z.string()),
      /** fixed member names with the read decision (e.g. the hcp__read_skill tool) */
      always: z.optional(z.array(z.string().check(z.minLength(1)))),
    }),
  ),
  /**
   * With `items`: add them only to a list that is already there (a host allow-list such
   * as Gemini's `mcp.allowed` or Claude Code's `enabledMcpjsonServers`: creating the list
   * would block every other server, or approve what the host would ask about).
   */
  ifPresent: z.optional(z.boolean()),
  /**
   * Project scope: whether the file belongs in git ("commit": the team shares it, the
   * default) or not ("ignore": one person's, e.g. a settings.local file). Said after
   * `adopt --write`; "ignore" files go into the `.gitignore` block (src/host/gitignore.ts).
   */
  git: z.optional(z.enum(["commit", "ignore"])),
});
export type Target = z.infer<typeof TargetSchema>;

/**
 * Traces of a host being in use, for `adopt --detected` (src/host/detect.ts): `paths`
 * (files or directories, relative to the project root at project scope, `~/…` at user
 * scope) and `programs` (names looked up on PATH). Any one of them is enough.
 */
const DetectSchema = z.strictObject({
  paths: z.optional(z.array(z.string().check(z.minLength(1)))),
  programs: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/)))),
});
export type Detect = z.infer<typeof DetectSchema>;

/**
 * How the host starts an MCP server of this scope (src/host/health.ts checks the
 * command against it): `cwd` its working directory (`~/…`; default: the project root
 * at project scope, $HOME at user scope), `env` the only variables it passes (default:
 * its whole environment; Codex passes a short list).
 */
const LaunchSchema = z.strictObject({
  cwd: z.optional(z.string().check(z.minLength(1))),
  env: z.optional(z.array(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)))),
});

/**
 * A fact outside the files adopt writes that decides whether the host will use the
 * server (src/host/health.ts): the value at `key` in `path` must include / exclude /
 * equal `value`. `{root}` (the project root) and `{server}` (the MCP server name) are
 * filled in, in `key`, `value`, `message` and `hint`. `absent`: what a missing key in a
 * file that is there means ("ok": the host's default lets it through; "fail"). When none
 * of the files is there, the host keeps no such state on this machine (a CI runner):
 * the check passes.
 */
const HealthSchema = z.strictObject({
  id: z.string().check(z.regex(/^[a-z][a-z0-9-]*$/)),
  path: z.union([z.string().check(z.minLength(1)), z.array(z.string().check(z.minLength(1))).check(z.minLength(1))]),
  format: z.enum(["json", "jsonc", "toml"]),
  key: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  expect: z.enum(["includes", "excludes", "equals"]),
  value: z.string(),
  absent: z.enum(["ok", "fail"]),
  /** what it means when the check fails, e.g. "Gemini CLI blocks a server not on mcp.allowed (⛔ Blocked)" */
  message: z.string().check(z.minLength(1)),
  /** what to do */
  hint: z.string().check(z.minLength(1)),
});
export type HealthCheck = z.infer<typeof HealthSchema>;

const ScopeSchema = z.strictObject({
  targets: z.array(TargetSchema),
  /** printed with every plan for this scope (e.g. "MCP servers are read from the user file only") */
  notes: z.optional(z.array(z.string())),
  /** traces of this host in use at this scope (`adopt --detected`) */
  detect: z.optional(DetectSchema),
  /** how the host starts this scope's MCP server (working directory, environment) */
  launch: z.optional(LaunchSchema),
  /** allow-lists, deny-lists and trust the host keeps outside the files adopt writes */
  health: z.optional(z.array(HealthSchema)),
});
export type ScopeSpec = z.infer<typeof ScopeSchema>;

export const DescriptorSchema = z.strictObject({
  host: z.string().check(z.regex(/^[a-z][a-z0-9-]*$/)),
  name: z.string(),
  /** "host" (default) for `adopt`; "bundle" for `generate --as` */
  kind: z.optional(z.enum(["host", "bundle"])),
  docs: z.optional(z.array(z.string())),
  /** the MCP server name the entry is written under */
  server: z.optional(z.string()),
  /**
   * The MCP tool shape this host is given (`hcpx mcp --shape …`): "single" (the one
   * `hcp` tool, default) or "per-command" (one tool per granted command, reads with
   * readOnlyHint) — for hosts whose approval is per tool, so reads and gated writes
   * can be told apart.
   */
  tools: z.optional(z.enum(["single", "per-command"])),
  /**
   * A value per MCP tool for the template, `toolApprovals` ({ <tool>: { <field>: value } }),
   * e.g. Codex's [mcp_servers.hcp.tools.<tool>] approval_mode. Needs tools: "per-command".
   */
  toolApprovals: z.optional(z.strictObject({ field: z.string().check(z.minLength(1)), read: z.string(), write: z.string(), confirm: z.string() })),
  /**
   * false: the host's shell tool cannot run `hcpx exec …` (Codex: a login shell that
   * resets PATH, and a sandbox in which a Node program's stdout to a pipe is lost), so
   * its prompt block does not advertise the shell route; the MCP tools are the route
   */
  shellRoute: z.optional(z.boolean()),
  scopes: z.strictObject({
    project: z.optional(ScopeSchema),
    user: z.optional(ScopeSchema),
  }),
});
export type Descriptor = z.infer<typeof DescriptorSchema>;

let rootCache: string | undefined;
/** The package root: the directory holding `hosts/` and `templates/` (works from src/ and from dist/commands/). */
export function packageRoot(): string {
  if (rootCache) return rootCache;
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(d, "hosts")) && existsSync(join(d, "templates"))) return (rootCache = d);
    d = dirname(d);
  }
  throw new HcpxError({ code: "install_broken", message: "cannot find the hosts/ and templates/ directories of this hcpx install", hint: "reinstall hcpx" });
}

export function hostsDir(): string {
  return join(packageRoot(), "hosts");
}

/**
 * Names of the descriptors of a kind, sorted: hosts are `hosts/<host>.json5`,
 * bundles (`generate --as`) `hosts/bundles/<kind>.json5` (listed without parsing them).
 */
export function listHosts(kind: "host" | "bundle" = "host"): string[] {
  const dir = kind === "host" ? hostsDir() : join(hostsDir(), "bundles");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json5"))
    .map((f) => f.slice(0, -".json5".length))
    .sort();
}

const cache = new Map<string, Descriptor>();
export function loadDescriptor(host: string): Descriptor {
  const hit = cache.get(host);
  if (hit) return hit;
  const valid = /^[a-z][a-z0-9-]*$/.test(host);
  const rel = valid && existsSync(join(hostsDir(), `${host}.json5`)) ? `${host}.json5` : valid && existsSync(join(hostsDir(), "bundles", `${host}.json5`)) ? `bundles/${host}.json5` : undefined;
  if (!rel) throw new HcpxError({ code: "unknown_host", message: `unknown host '${host}'`, hint: `${didYouMean(host, [...listHosts(), "all"])}known hosts: ${listHosts().join(", ")} (or \`all\`)` }, 64);
  const file = join(hostsDir(), rel);
  const doc = readJson5(file, `hosts/${rel}`);
  const d = validate(DescriptorSchema, doc.value, doc.file, doc.text).data;
  if (d.host !== host) throw new HcpxError({ code: "bad_descriptor", message: `descriptor says host '${d.host}', file is named '${host}'`, file: doc.file, path: "host" });
  for (const scope of ["project", "user"] as const) {
    for (const [i, t] of (d.scopes[scope]?.targets ?? []).entries()) {
      const needsKey = t.format === "json" || t.format === "jsonc" || t.format === "toml";
      const rules = t.items !== undefined || t.members !== undefined;
      if (rules && t.format !== "json" && t.format !== "jsonc") throw new HcpxError({ code: "bad_descriptor", message: "`items` and `members` apply to a json or jsonc target", file: doc.file, path: `scopes.${scope}.targets[${i}]` });
      if (t.ifPresent && !t.items) throw new HcpxError({ code: "bad_descriptor", message: "`ifPresent` goes with `items` (a list hcpx adds to only when it is there)", file: doc.file, path: `scopes.${scope}.targets[${i}].ifPresent` });
      if (t.git && scope !== "project") throw new HcpxError({ code: "bad_descriptor", message: "`git` applies to project-scope files", file: doc.file, path: `scopes.${scope}.targets[${i}].git` });
      if (rules && t.template) throw new HcpxError({ code: "bad_descriptor", message: "a rules target (`items`/`members`) has no template", file: doc.file, path: `scopes.${scope}.targets[${i}].template` });
      const needsTemplate = t.format !== "dir-of-skills" && !rules;
      if (needsKey && !t.key) throw new HcpxError({ code: "bad_descriptor", message: `a ${t.format} target needs \`key\``, file: doc.file, path: `scopes.${scope}.targets[${i}].key` });
      if (needsTemplate && !t.template) throw new HcpxError({ code: "bad_descriptor", message: `a ${t.format} target needs \`template\``, file: doc.file, path: `scopes.${scope}.targets[${i}].template` });
      if (t.servers && (t.servers.command === undefined) === (t.servers.argv === undefined)) throw new HcpxError({ code: "bad_descriptor", message: "`servers` names either `command` (with `args`) or `argv`, not both or neither", file: doc.file, path: `scopes.${scope}.targets[${i}].servers` });
      if (t.servers && !needsKey) throw new HcpxError({ code: "bad_descriptor", message: `\`servers\` goes with a json, jsonc or toml target, not ${t.format}`, file: doc.file, path: `scopes.${scope}.targets[${i}].servers` });
      if (t.vars) {
        try {
          new RegExp(t.vars.pattern, "u");
        } catch (e) {
          throw new HcpxError({ code: "bad_descriptor", message: `vars.pattern is not a regular expression: ${(e as Error).message}`, file: doc.file, path: `scopes.${scope}.targets[${i}].vars.pattern` });
        }
      }
      const paths = Array.isArray(t.path) ? t.path : [t.path];
      for (const p of paths) {
        const userPath = p.startsWith("~/");
        if (scope === "project" && (userPath || p.startsWith("/") || p.split("/").includes(".."))) throw new HcpxError({ code: "bad_descriptor", message: `project-scope path '${p}' must be relative and stay inside the project`, file: doc.file, path: `scopes.${scope}.targets[${i}].path` });
        if (scope === "user" && (!userPath || p.split("/").includes(".."))) throw new HcpxError({ code: "bad_descriptor", message: `user-scope path '${p}' must start with ~/`, file: doc.file, path: `scopes.${scope}.targets[${i}].path` });
      }
    }
  }
  for (const scope of ["project", "user"] as const) {
    const sc = d.scopes[scope];
    const where = (p: string, at: string) => {
      const userPath = p.startsWith("~/");
      const bad = p.split("/").includes("..") || p.startsWith("/") || (scope === "user" ? !userPath : userPath && at.startsWith("detect"));
      if (bad) throw new HcpxError({ code: "bad_descriptor", message: scope === "user" ? `user-scope path '${p}' must start with ~/` : `project-scope path '${p}' must be relative and stay inside the project`, file: doc.file, path: `scopes.${scope}.${at}` });
    };
    for (const [i, p] of (sc?.detect?.paths ?? []).entries()) where(p, `detect.paths[${i}]`);
    for (const [i, h] of (sc?.health ?? []).entries()) for (const p of Array.isArray(h.path) ? h.path : [h.path]) if (p.startsWith("/") || p.split("/").includes("..")) throw new HcpxError({ code: "bad_descriptor", message: `health path '${p}' must be relative to the project or start with ~/`, file: doc.file, path: `scopes.${scope}.health[${i}].path` });
    if (sc?.launch?.cwd !== undefined && !sc.launch.cwd.startsWith("~/") && sc.launch.cwd !== "~") throw new HcpxError({ code: "bad_descriptor", message: "`launch.cwd` must start with ~/", file: doc.file, path: `scopes.${scope}.launch.cwd` });
  }
  if (d.toolApprovals && d.tools !== "per-command") throw new HcpxError({ code: "bad_descriptor", message: "`toolApprovals` needs `tools: \"per-command\"` (one tool per command to approve)", file: doc.file, path: "toolApprovals" });
  cache.set(host, d);
  return d;
}
