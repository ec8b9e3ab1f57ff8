// Host descriptors: `hosts/<host>.json5` says, per scope, which files a host
// reads and in which format. The engine knows formats, never hosts. The
// schema is data of its own (./descriptor-schema.ts); this module finds, loads
// and checks the descriptors.
import { didYouMean } from "../util/suggest";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { joinIn } from "../util/paths";
import { HcpxError } from "../util/errors";
import { parseJson5 } from "../pack/json5";
import { CAPS, readTextFile } from "../util/readfile";
import { HOSTS_INDEX } from "../util/build-info";
import { sha256 } from "../util/text";
import { validate } from "../pack/validate";
import {
  checkHomes,
  checkScopePaths,
  checkTarget,
  checkTargetPaths,
  checkUnread,
  checkHooks,
  checkInForce,
  renameServer,
} from "./descriptor-check";
import type { Descriptor, EntrySpec } from "./descriptor-zod";
import type { Slot } from "./descriptor-schema";

export * from "./descriptor-schema";
// the types the schemas give (type-only: importing them here never builds the schemas)
export type * from "./descriptor-zod";

/** The field of an entry that holds a slot (written or only read), if any. */
export function slotField(e: EntrySpec, slot: Slot): string | undefined {
  for (const [k, v] of Object.entries(e.fields)) if (v === slot) return k;
  return slot === "env" || slot === "envNames" ? e.read?.[slot] : undefined;
}

let rootCache: string | undefined;
/** The package root: the directory holding `hosts/` and `templates/` (works from src/ and from dist/commands/). */
export function packageRoot(): string {
  if (rootCache) return rootCache;
  // __dirname in the CommonJS bundle (dist/commands/adopt.cjs, src/cli/load-command.ts), import.meta.url in the ES modules
  let d = typeof __dirname === "string" ? __dirname : dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(d, "hosts")) && existsSync(join(d, "templates"))) return (rootCache = d);
    d = dirname(d);
  }
  throw new HcpxError({
    code: "install_broken",
    message: "cannot find the hosts/ and templates/ directories of this hcpx install",
    hint: "reinstall hcpx",
  });
}

export function hostsDir(): string {
  return joinIn(packageRoot(), "hosts");
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

const named: Partial<Record<"host" | "bundle", Set<string>>> = {};
/**
 * Whether hosts/ (or hosts/bundles/) holds `<name>.json5`: a name the folder's listing (read once)
 * holds, without a stat of each (adopt loads every descriptor: ~12 M instructions less a run); any
 * other name by a stat, so a file added since is found. A folder that cannot be listed holds none.
 */
function listedAs(kind: "host" | "bundle", name: string): boolean {
  if (!named[kind]) {
    try {
      named[kind] = new Set(listHosts(kind));
    } catch {
      named[kind] = new Set();
    }
  }
  if (named[kind].has(name)) return true;
  const found = existsSync(join(hostsDir(), ...(kind === "bundle" ? ["bundles"] : []), `${name}.json5`));
  if (found) named[kind].add(name);
  return found;
}

let aliasCache: Map<string, string> | undefined;
/** Old id → the host's id, from every descriptor's `aliases` (a clash between two descriptors is an error). */
function aliasMap(): Map<string, string> {
  if (aliasCache) return aliasCache;
  const m = new Map<string, string>();
  const known = new Set(listHosts());
  for (const h of known) {
    for (const a of loadDescriptor(h).aliases ?? []) {
      if (known.has(a) || (m.has(a) && m.get(a) !== h))
        throw new HcpxError({
          code: "bad_descriptor",
          message: `the alias '${a}' of ${h} is ${known.has(a) ? "a host of its own" : `also ${m.get(a)}'s`}`,
          file: `hosts/${h}.json5`,
          path: "aliases",
        });
      m.set(a, h);
    }
  }
  return (aliasCache = m);
}

/** The host's id for a name: itself, or the host whose `aliases` list it (`windsurf` → `devin`). */
export function canonicalHost(name: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(name) || listedAs("host", name)) return name;
  return aliasMap().get(name) ?? name;
}

/** Every alias with the host it names, for messages and completion. */
export function hostAliases(): Record<string, string> {
  return Object.fromEntries(aliasMap());
}

type Zod = typeof import("./descriptor-zod");
let zod: Zod | undefined;
/**
 * The descriptor's zod schema, loaded on first use: a require() that esbuild bundles as a lazily run
 * module (under vitest, test/support/lazy-require.ts makes it an import). adopt's bundle carries the
 * shipped descriptors as the build checked them (HOSTS_INDEX): an adopt that reads only those never
 * builds the schema.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily run bundled module (see above)
const descriptorSchema = () => (zod ??= require("./descriptor-zod") as Zod).DescriptorSchema;

const cache = new Map<string, Descriptor>();
function setCached(host: string, d: Descriptor): Descriptor {
  cache.set(host, d);
  return d;
}

/**
 * The descriptor of a host (`hosts/<host>.json5`) or bundle kind, loaded and checked once per process.
 * Checking is most of the cost (a schema and the checks below, ~10 M instructions a file), and adopt
 * loads every descriptor (which hosts share an entry, src/host/ask-rules.ts): adopt's bundle carries
 * what the build's load of each shipped file returned with the SHA-256 of the text it read (HOSTS_INDEX,
 * scripts/build.mjs), taken only for a file whose text has that hash.
 */
export function loadDescriptor(name: string): Descriptor {
  const hit = cache.get(name);
  if (hit) return hit;
  const host = canonicalHost(name);
  if (host !== name) {
    const d = loadDescriptor(host);
    cache.set(name, d);
    return d;
  }
  const rel = descriptorFile(host);
  const file = joinIn(hostsDir(), rel);
  const text = readTextFile(file, `hosts/${rel}`, CAPS.pack);
  // the file as the build loaded it (the same checks, in this same bundle): the descriptor that load returned
  const built = HOSTS_INDEX?.[rel];
  if (built !== undefined && built.sha256 === sha256(text))
    return setCached(host, JSON.parse(built.value) as Descriptor);
  return setCached(host, checkDescriptor(host, text, `hosts/${rel}`));
}

/**
 * A descriptor's text checked as loadDescriptor checks `hosts/<host>.json5` (`file`, for messages): the
 * schema, the file's name against its `host`, each target, the homes and the hooks. Errors are
 * `bad_descriptor` naming the file and the JSON path. test/adopt/descriptor.test.ts checks its own texts
 * here, never writing into hosts/, which every other test file reads while it runs.
 */
export function checkDescriptor(host: string, text: string, file: string): Descriptor {
  const doc = parseJson5(text, file);
  const d = validate(descriptorSchema(), doc.value, doc.file, doc.text).data;
  if (d.host !== host)
    throw new HcpxError({
      code: "bad_descriptor",
      message: `descriptor says host '${d.host}', file is named '${host}'`,
      file: doc.file,
      path: "host",
    });
  for (const scope of ["project", "user"] as const) {
    for (const [i, t] of (d.scopes[scope]?.targets ?? []).entries()) {
      const at = `scopes.${scope}.targets[${i}]`;
      const bad = (message: string, path = "") =>
        new HcpxError({ code: "bad_descriptor", message, file: doc.file, path: at + path });
      checkTarget(t, scope, d, bad);
      checkTargetPaths(t, scope, at, doc.file);
    }
  }
  for (const scope of ["project", "user"] as const) checkScopePaths(d, scope, doc.file);
  checkHomes(d, doc.file);
  for (const scope of ["project", "user"] as const) {
    const name = d.servers?.[scope];
    const sc = d.scopes[scope];
    if (name && name !== "hcp" && sc) sc.targets = sc.targets.map((t) => renameServer(t, name));
  }
  checkInForce(d, doc.file);
  checkUnread(d, doc.file);
  checkHooks(d, doc.file);
  if (d.toolApprovals && d.tools !== "per-command")
    throw new HcpxError({
      code: "bad_descriptor",
      message: '`toolApprovals` needs `tools: "per-command"` (one tool per command to approve)',
      file: doc.file,
      path: "toolApprovals",
    });
  return d;
}

/** The descriptor's file below hosts/ (a host's, or a bundle's under bundles/); an unknown host is a usage error. */
function descriptorFile(host: string): string {
  const valid = /^[a-z][a-z0-9-]*$/.test(host);
  const rel =
    valid && listedAs("host", host)
      ? `${host}.json5`
      : valid && listedAs("bundle", host)
        ? `bundles/${host}.json5`
        : undefined;
  if (!rel)
    throw new HcpxError(
      {
        code: "unknown_host",
        message: `unknown host '${host}'`,
        hint: `${didYouMean(host, listHosts())}known hosts: ${listHosts().join(", ")}`,
      },
      64,
    );
  return rel;
}
