// The checks a host descriptor gets once its schema passed: each target's shape and paths, each
// scope's paths, and a server renamed through the descriptor's `servers`. Called by loadDescriptor
// (descriptor.ts), which finds, reads and caches descriptors.
import { HcpxError } from "../util/errors";
import { FORMAT_CAPS, type Slot } from "./descriptor-schema";
import type { Descriptor, EntrySpec, HealthCheck, Target } from "./descriptor-zod";
import { checkPaths } from "./unread-zod";

/** A target's shape: what its format takes (a key, an entry, a template, rules), and the fields that go together. */
export function checkTarget(
  t: Target,
  scope: "project" | "user",
  d: Descriptor,
  bad: (message: string, path?: string) => HcpxError,
): void {
  const caps = FORMAT_CAPS[t.format];
  const rules = t.items !== undefined || t.members !== undefined;
  if (rules && !caps.rules) throw bad("`items` and `members` apply to a json or jsonc target");
  if (rules && t.template) throw bad("a rules target (`items`/`members`) has no template", ".template");
  if (rules && t.entry)
    throw bad("a target holds either the MCP `entry` or permission rules (`items`/`members`), not both", ".entry");
  if (caps.keyed && !t.key) throw bad(`a ${t.format} target needs \`key\``, ".key");
  if (caps.keyed && !rules && !t.entry)
    throw bad(`a ${t.format} target needs \`entry\` (the MCP server entry) or \`items\`/\`members\``, ".entry");
  if (caps.keyed && t.template)
    throw bad(`a ${t.format} target has no template: the MCP entry is the descriptor's \`entry\``, ".template");
  if (!caps.keyed && (t.key || t.entry))
    throw bad(`a ${t.format} target has no \`key\` or \`entry\``, t.key ? ".key" : ".entry");
  if (caps.prose && !t.template) throw bad(`a ${t.format} target needs \`template\``, ".template");
  if (!caps.prose && !caps.keyed && t.template) throw bad(`a ${t.format} target has no template`, ".template");
  if (t.named !== undefined && (t.format !== "yaml" || (t.key?.length ?? 0) < 2))
    throw bad(
      '`named` goes with a yaml target whose `key` names the list and the item (e.g. ["mcpServers", "hcp"])',
      ".named",
    );
  if (
    t.named !== undefined &&
    t.entry &&
    !(
      t.entry.fields[t.named] &&
      typeof t.entry.fields[t.named] === "object" &&
      (t.entry.fields[t.named] as { value?: unknown }).value === t.key!.at(-1)
    )
  )
    throw bad(
      `the list item's \`${t.named}\` is { value: ${JSON.stringify(t.key!.at(-1))} } in \`entry.fields\``,
      ".entry.fields",
    );
  checkReads(t, scope, bad);
  if (t.entry) checkEntry(t.entry, t, d, bad);
  if (t.widens) checkWidens(t, bad);
  if (t.ifPresent && !t.items)
    throw bad("`ifPresent` goes with `items` (a list hcpx adds to only when it is there)", ".ifPresent");
  if (t.approval && (!t.items || !t.ifPresent))
    throw bad(
      "`approval` goes with `items` and `ifPresent` (written where the person keeps the list, or with --approve)",
      ".approval",
    );
  if (t.approval && scope === "project" && t.git !== "ignore")
    throw bad('a project-scope `approval` is one person\'s file: it needs `git: "ignore"`', ".git");
  if (t.git && scope !== "project") throw bad("`git` applies to project-scope files", ".git");
}

/** What the host reads of a block target besides the file (`maxBytes`, `maxBytesFrom`, `shadowedBy`, `chain`) goes together. */
function checkReads(t: Target, scope: "project" | "user", bad: (message: string, path?: string) => HcpxError): void {
  const block = t.format === "markdown-block";
  for (const k of ["maxBytes", "maxBytesFrom", "shadowedBy", "chain"] as const)
    if (t[k] !== undefined && !block) throw bad(`\`${k}\` goes with a markdown-block target`, `.${k}`);
  if (t.maxBytesFrom && t.maxBytes === undefined)
    throw bad("`maxBytesFrom` needs `maxBytes` (the host's default, when no file sets the key)", ".maxBytesFrom");
  if (t.chain && t.maxBytes === undefined)
    throw bad("`chain` needs `maxBytes` (what the host counts over the folders)", ".chain");
  if (t.chain && scope !== "project") throw bad("`chain` applies to project-scope files", ".chain");
  const own = (Array.isArray(t.path) ? t.path : [t.path]).map((p) => p.split("/").at(-1));
  for (const [i, f] of (t.shadowedBy?.files ?? []).entries())
    if (own.includes(f)) throw bad(`\`shadowedBy\` names the target's own file ${f}`, `.shadowedBy.files[${i}]`);
}

/** A target's `vars.pattern` compiles, and its paths stay in their scope (the project, or below ~/). */
export function checkTargetPaths(t: Target, scope: "project" | "user", at: string, file: string): void {
  if (t.vars) {
    try {
      new RegExp(t.vars.pattern, "u");
    } catch (e) {
      throw new HcpxError({
        code: "bad_descriptor",
        message: `vars.pattern is not a regular expression: ${(e as Error).message}`,
        file,
        path: `${at}.vars.pattern`,
      });
    }
  }
  const paths = Array.isArray(t.path) ? t.path : [t.path];
  // the host's own config it reads a limit from: in the project, or below ~/ (its own settings, at project scope too)
  const from = t.maxBytesFrom?.path ?? [];
  for (const p of Array.isArray(from) ? from : [from])
    if (p.startsWith("/") || p.split("/").includes("..") || (scope === "user" && !p.startsWith("~/")))
      throw new HcpxError({
        code: "bad_descriptor",
        message:
          scope === "user"
            ? `user-scope path '${p}' must start with ~/`
            : `path '${p}' must stay inside the project or start with ~/`,
        file,
        path: `${at}.maxBytesFrom.path`,
      });
  for (const p of paths) {
    const userPath = p.startsWith("~/");
    if (scope === "project" && (userPath || p.startsWith("/") || p.split("/").includes("..")))
      throw new HcpxError({
        code: "bad_descriptor",
        message: `project-scope path '${p}' must be relative and stay inside the project`,
        file,
        path: `${at}.path`,
      });
    if (scope === "user" && (!userPath || p.split("/").includes("..")))
      throw new HcpxError({
        code: "bad_descriptor",
        message: `user-scope path '${p}' must start with ~/`,
        file,
        path: `${at}.path`,
      });
  }
}

/** A scope's detect and health paths, and its launch directory, stay where the scope allows. */
export function checkScopePaths(d: Descriptor, scope: "project" | "user", file: string): void {
  const sc = d.scopes[scope];
  const where = (p: string, at: string) => {
    const userPath = p.startsWith("~/");
    const bad =
      p.split("/").includes("..") ||
      p.startsWith("/") ||
      (scope === "user" ? !userPath : userPath && at.startsWith("detect"));
    if (bad)
      throw new HcpxError({
        code: "bad_descriptor",
        message:
          scope === "user"
            ? `user-scope path '${p}' must start with ~/`
            : `project-scope path '${p}' must be relative and stay inside the project`,
        file,
        path: `scopes.${scope}.${at}`,
      });
  };
  for (const [i, p] of (sc?.detect?.paths ?? []).entries()) where(p, `detect.paths[${i}]`);
  for (const [i, h] of (sc?.health ?? []).entries()) {
    checkAbove(h, file, `scopes.${scope}.health[${i}].path`);
    for (const { path: p } of checkPaths(h))
      if (p.startsWith("/") || p.split("/").includes(".."))
        throw new HcpxError({
          code: "bad_descriptor",
          message: `health path '${p}' must be relative to the project or start with ~/`,
          file,
          path: `scopes.${scope}.health[${i}].path`,
        });
  }
  if (sc?.launch?.cwd !== undefined && !sc.launch.cwd.startsWith("~/") && sc.launch.cwd !== "~")
    throw new HcpxError({
      code: "bad_descriptor",
      message: "`launch.cwd` must start with ~/",
      file,
      path: `scopes.${scope}.launch.cwd`,
    });
}

/**
 * A target written under server name `name` instead of `hcp`: the entry's own key, the
 * server in each rule pattern (`mcp__hcp__{tool}`, `mcp_hcp_{tool}`, `hcp:{tool}`, `{tool}_hcp`),
 * and an approval naming the server (`enabledMcpjsonServers: ["hcp"]`).
 */
export function renameServer(t: Target, name: string): Target {
  // the server is the one word `hcp` between separators (`_`, `:`) or the ends; the served tool
  // `hcp__read_skill` is not it (`hcp__read_skill_hcp` is Auggie's <tool>_<server>), nor `hcpx`
  const TOOL = "hcp__read_skill";
  const pat = (p: string) =>
    p
      .split(TOOL)
      .map((part) => part.replace(/(^|[_:])hcp(?=[_:]|$)/, `$1${name}`))
      .join(TOOL);
  const list = (l?: string[]) => l?.map(pat);
  // a rule is a pattern, or an object whose string fields hold patterns (Amp's { tool, action })
  const rule = (r: string | Record<string, unknown>) =>
    typeof r === "string"
      ? pat(r)
      : Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" ? pat(v) : v]));
  const out: Target = { ...t };
  if (t.entry && t.key?.at(-1) === "hcp") out.key = [...t.key.slice(0, -1), name];
  if (t.items) out.items = Object.fromEntries(Object.entries(t.items).map(([k, v]) => [k, v?.map(rule)]));
  // the person's rules name the tools as the host does: under this server's name too
  if (t.widens) out.widens = { ...t.widens, name: pat(t.widens.name) };
  if (t.members)
    out.members = {
      ...t.members,
      pattern: pat(t.members.pattern),
      ...(t.members.always ? { always: list(t.members.always) } : {}),
    };
  return out;
}

/** An `entry` fills each slot at most once; the command line is `command` (with `args`) or `argv`. */
function checkEntry(e: EntrySpec, t: Target, d: Descriptor, bad: (message: string, path?: string) => HcpxError): void {
  const seen = new Map<Slot, string>();
  for (const [k, v] of Object.entries(e.fields)) {
    if (typeof v !== "string") {
      if ("items" in v) continue;
      if (!("value" in v) || v.value === undefined)
        throw bad(`a fixed field is \`{ value: … }\` with a JSON value`, `.entry.fields.${k}`);
      continue;
    }
    if (seen.has(v)) throw bad(`the slot \`${v}\` fills both \`${seen.get(v)}\` and \`${k}\``, `.entry.fields.${k}`);
    seen.set(v, k);
  }
  if (seen.has("command") === seen.has("argv"))
    throw bad(
      "`entry.fields` takes the command line as `command` (with `args`) or as `argv`, not both or neither",
      ".entry.fields",
    );
  if (seen.has("args") && !seen.has("command")) throw bad("the slot `args` goes with `command`", ".entry.fields");
  if (seen.has("env") && !t.envSyntax)
    throw bad("the slot `env` needs the target's `envSyntax` (how the host refers to an env var)", ".envSyntax");
  if (seen.has("toolApprovals") && !d.toolApprovals)
    throw bad("the slot `toolApprovals` needs the descriptor's `toolApprovals`", ".entry.fields");
  for (const s of ["env", "envNames"] as const)
    if (e.read?.[s] !== undefined && seen.has(s))
      throw bad(
        `\`${s}\` is written (entry.fields) and so read back from there: drop it from \`entry.read\``,
        `.entry.read.${s}`,
      );
  for (const k of e.remote ?? [])
    if (k in e.fields) throw bad(`\`${k}\` is a field hcpx writes, so it cannot mark a remote server`, ".entry.remote");
  if (e.remoteFields) {
    const rf = Object.entries(e.remoteFields);
    if (rf.filter(([, v]) => v === "url").length !== 1)
      throw bad("`entry.remoteFields` names the URL's field once (`url`)", ".entry.remoteFields");
    if (rf.filter(([, v]) => v === "tokenEnv" || (typeof v === "object" && "headers" in v)).length > 1)
      throw bad("`entry.remoteFields` carries the token one way: `tokenEnv` or `{ headers }`", ".entry.remoteFields");
    for (const [k, v] of rf) {
      if (typeof v === "object" && "headers" in v) {
        if (!t.envSyntax)
          throw bad(
            "`{ headers }` with `{token}` needs the target's `envSyntax` (how the host refers to an env var)",
            ".envSyntax",
          );
        if (!Object.values(v.headers).some((h) => h.includes("{token}")))
          throw bad("a `{ headers }` field puts `{token}` in a header", `.entry.remoteFields.${k}`);
      }
      if (typeof v === "object" && "value" in v && v.value === undefined)
        throw bad("a fixed field is `{ value: … }` with a JSON value", `.entry.remoteFields.${k}`);
    }
  }
}

/** `widens` reads the rules hcpx writes at this target: an `items`/`members` list, or an `{ items }` field of the entry (`at`). */
function checkWidens(t: Target, bad: (message: string, path?: string) => HcpxError): void {
  const w = t.widens!;
  const rules = t.items !== undefined || t.members !== undefined;
  if (!rules && !t.entry)
    throw bad(
      "`widens` goes with a rules target (`items`/`members`) or an MCP entry with an `{ items }` field",
      ".widens",
    );
  if (t.entry) {
    const f = w.at ? t.entry.fields[w.at[0]!] : undefined;
    if (!w.at || w.at.length !== 1 || !f || typeof f !== "object" || !("items" in f))
      throw bad(
        '`widens.at` names the entry field that holds hcpx\'s `{ items }` (e.g. ["autoApprove"])',
        ".widens.at",
      );
  } else if (w.at) throw bad("`widens.at` goes with an MCP entry target", ".widens.at");
  if ((w.field === undefined) !== (w.decision === undefined) && t.members === undefined)
    throw bad("object rules name both `field` (the tool pattern) and `decision`", ".widens");
  if (t.members !== undefined && (w.field !== undefined || w.decision !== undefined))
    throw bad("member rules are name → decision: no `field` or `decision`", ".widens");
  if (t.members !== undefined && !w.allow)
    throw bad("member rules need `allow` (the decisions that run a tool without asking)", ".widens.allow");
}

/**
 * Each `homes` key moves a `~/…` path the descriptor names (a target's, a health check's, a trace's, a
 * launch folder or a gate fact's): a key that moves nothing is a misspelling, and the files it meant
 * would be read and written at the host's default place.
 */
export function checkHomes(d: Descriptor, file: string): void {
  const paths: string[] = [];
  const add = (p: string | string[] | undefined) => paths.push(...(p === undefined ? [] : Array.isArray(p) ? p : [p]));
  for (const sc of [d.scopes.project, d.scopes.user]) {
    for (const t of sc?.targets ?? []) add(t.path);
    for (const h of sc?.health ?? []) add(checkPaths(h).map((p) => p.path));
    add(sc?.detect?.paths);
    add(sc?.launch?.cwd);
  }
  for (const h of d.gate?.inForce ?? []) add(checkPaths(h).map((p) => p.path));
  add(d.gate?.skipped?.path);
  for (const u of d.gate?.unread ?? []) add(u.path);
  for (const h of d.gate?.hooks ?? []) add([...h.path, ...pluginPaths(h)]);
  for (const key of Object.keys(d.homes ?? {}))
    if (!paths.some((p) => p === key || p.startsWith(key + "/")))
      throw new HcpxError({
        code: "bad_descriptor",
        message: `homes: '${key}' is not a path of this descriptor, nor a folder above one (it would move nothing)`,
        file,
        path: `homes["${key}"]`,
      });
}

/**
 * A file `gate` names (`inForce`, `unread`, `hooks`: the host's settings, what it merges over them, its
 * hooks) is the project's (relative), `~/…`, or absolute (a managed file in /etc): never going up.
 */
function checkGatePath(p: string, field: string, file: string, path: string): void {
  if (p.split("/").includes(".."))
    throw new HcpxError({
      code: "bad_descriptor",
      message: `gate.${field} path '${p}' must not go up (..): the project's, ~/…, or absolute`,
      file,
      path,
    });
}

/** `gate.inForce`, `gate.skipped`: their paths (checkGatePath, checkAbove). */
export function checkInForce(d: Descriptor, file: string): void {
  for (const [i, h] of (d.gate?.inForce ?? []).entries()) {
    checkAbove(h, file, `gate.inForce[${i}].path`);
    for (const { path: p } of checkPaths(h)) checkGatePath(p, "inForce", file, `gate.inForce[${i}].path`);
  }
  for (const p of d.gate?.skipped?.path ?? []) checkGatePath(p, "skipped", file, "gate.skipped.path");
}

/** A check's path read in the folders above the project (`above`) is the project's: relative, as `gate.unread`'s. */
function checkAbove(h: Pick<HealthCheck, "path">, file: string, path: string): void {
  for (const p of checkPaths(h))
    if (p.above && (p.path.startsWith("~") || p.path.startsWith("/")))
      throw new HcpxError({
        code: "bad_descriptor",
        message: `'${p.path}': \`above\` is said of a project's file (a relative path): the folders above the project`,
        file,
        path,
      });
}

/**
 * `gate.unread`: each names one variable or one file (never both); `hidden` is a variable's; a path is
 * the project's (relative, never `..`), `~/…`, or absolute (a managed config the host reads from /etc).
 */
export function checkUnread(d: Descriptor, file: string): void {
  for (const [i, u] of (d.gate?.unread ?? []).entries()) {
    const bad = (message: string) =>
      new HcpxError({ code: "bad_descriptor", message, file, path: `gate.unread[${i}]` });
    if ((u.env === undefined) === (u.path === undefined))
      throw bad("gate.unread: name either `env` (a variable the host reads) or `path` (a file it reads), one of them");
    if (u.hidden && u.env === undefined) throw bad("gate.unread: `hidden` is said of a variable (`env`)");
    if (u.path !== undefined) checkGatePath(u.path, "unread", file, `gate.unread[${i}]`);
    if (u.above && (u.path === undefined || u.path.startsWith("~") || u.path.startsWith("/")))
      throw bad("gate.unread: `above` is said of a project's file (a relative `path`): the folders above the project");
  }
}

/**
 * `gate.hooks`: a path is the project's (never `..`), `~/…`, or absolute; `names` and `split` are regular
 * expressions JavaScript compiles (a descriptor's own, unlike the person's matchers).
 */
export function checkHooks(d: Descriptor, file: string): void {
  for (const [i, h] of (d.gate?.hooks ?? []).entries()) {
    const bad = (message: string) => new HcpxError({ code: "bad_descriptor", message, file, path: `gate.hooks[${i}]` });
    for (const p of h.path) checkGatePath(p, "hooks", file, `gate.hooks[${i}]`);
    for (const [k, re] of [
      ["names", h.names],
      ["split", h.split],
    ] as const) {
      if (re === undefined) continue;
      try {
        new RegExp(re);
      } catch {
        throw bad(`gate.hooks ${k} ${JSON.stringify(re)} is not a regular expression`);
      }
    }
    if (!h.name.includes("{tool}")) throw bad("gate.hooks name must name the tool ({tool})");
    // the plugins' files: the host's (as `path`), and those in a plugin's or marketplace's folder (relative, inside)
    for (const p of pluginPaths(h)) checkGatePath(p, "hooks", file, `gate.hooks[${i}].plugins`);
    const pl = h.plugins;
    for (const p of pl ? [...pl.files.map((f) => f.path), pl.manifest.path, pl.marketplaces.catalog] : [])
      if (p.startsWith("/") || p.startsWith("~") || p.split("/").some((s) => s === ".." || s === "."))
        throw bad(`gate.hooks plugins: '${p}' is a file in a plugin's or marketplace's folder: a plain relative path`);
  }
}

/** The host's files `gate.hooks[].plugins` names: the settings, install records, marketplaces, skills folders. */
function pluginPaths(h: NonNullable<NonNullable<Descriptor["gate"]>["hooks"]>[number]): string[] {
  const pl = h.plugins;
  return pl ? [...pl.enabled.path, pl.installed.path, pl.marketplaces.path, ...(pl.dirs ?? []).map((x) => x.path)] : [];
}
