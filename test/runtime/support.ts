// Runtime test helpers: scratch projects with custom packs over the fixture bins.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { REPO, scratchProject, type ScratchProject } from "../support/hcpx";
import { loadPack, loadProject } from "../../src/pack/load";
import type { AdapterCall } from "../../src/runtime/adapters/types";
import type { AdapterKind } from "../../src/pack/adapters/index";

export const FIXTURE_BINS = join(REPO, "test", "fixtures", "bins");

export interface MiniPack {
  id: string;
  surface: Record<string, unknown>;
  rows?: Record<string, Record<string, unknown>>;
}

/** A read row for every command and pass-through subcommand of a surface (a row per command is required). */
export function readRows(surface: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const s = surface as {
    commands?: { verb_key: string }[];
    pass_through?: { allowedSubcommands?: string[] };
    wrap?: { pass_through?: { allowedSubcommands?: string[] } };
  };
  const verbs = [
    ...(s.commands ?? []).map((c) => c.verb_key),
    ...(s.pass_through?.allowedSubcommands ?? s.wrap?.pass_through?.allowedSubcommands ?? []),
  ];
  return Object.fromEntries(verbs.map((v) => [v, { operation: "read" }]));
}

/** A pack dir under `<project>/packs/<id>` written from plain objects; commands without a row in `rows` get a read row. */
export function writePack(projectDir: string, p: MiniPack): string {
  const dir = join(projectDir, "packs", p.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "surface.json"),
    JSON.stringify({ hcp: "1.1", id: p.id, version: "0.0.1", description: `test pack ${p.id}`, ...p.surface }, null, 2),
  );
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ rows: { ...readRows(p.surface), ...p.rows } }, null, 2));
  writeFileSync(join(dir, "SKILL.md"), `---\nname: ${p.id}\ndescription: test pack\n---\n# ${p.id}\n`);
  return dir;
}

/** Activate packs written into the project after it was made (its hcp.config.json5: `./packs/<id>`, `<id>.*` granted). */
export function activatePacks(config: string, ...ids: string[]): void {
  const cfg = JSON.parse(readFileSync(config, "utf8")) as { packs: string[]; grants: { allow: string[] } };
  cfg.packs.push(...ids.map((id) => `./packs/${id}`));
  cfg.grants.allow.push(...ids.map((id) => `${id}.*`));
  writeFileSync(config, JSON.stringify(cfg, null, 2));
}

/**
 * A scratch project (copies of packs/ and bins/, fixture bins in `fx/`) that
 * activates the example packs named in `examples` plus the given mini packs.
 */
export function project(
  opts: {
    examples?: string[];
    packs?: MiniPack[];
    allow?: string[];
    deny?: string[];
    sandbox?: Record<string, unknown>;
  } = {},
): ScratchProject {
  const examples = opts.examples ?? [];
  const mini = opts.packs ?? [];
  const sp = scratchProject({ packs: examples });
  cpSync(FIXTURE_BINS, join(sp.dir, "fx"), { recursive: true });
  for (const p of mini) writePack(sp.dir, p);
  const all = [...examples, ...mini.map((p) => p.id)];
  const config = {
    packs: all.map((p) => `./packs/${p}`),
    principal: { id: "test", kind: "agent" },
    grants: { allow: opts.allow ?? all.map((p) => `${p}.*`), deny: opts.deny ?? [] },
    sandbox: { bins: { git: "/usr/bin/git" }, roots: ["."], cwd: ".", ...opts.sandbox },
  };
  writeFileSync(sp.config, JSON.stringify(config, null, 2) + "\n");
  return sp;
}

/** A wrap pack over one fixture bin (`fx/<bin>`), commands given. */
export function fxPack(
  id: string,
  bin: string,
  commands: unknown[],
  extra: Record<string, unknown> = {},
  rows: MiniPack["rows"] = {},
): MiniPack {
  return {
    id,
    surface: {
      kind: "wrap",
      wrap: { bin: `../../fx/${bin}`, json_flag: null, output: "json", ...((extra.wrap as object) ?? {}) },
      commands,
      ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== "wrap")),
    },
    rows,
  };
}

/** Start bins/todo-server.mjs on a free loopback port. */
export async function startTodoServer(
  token?: string,
): Promise<{ url: string; port: number; child: ChildProcess; stop: () => void }> {
  const child = spawn(process.execPath, [join(REPO, "bins", "todo-server.mjs"), "--port", "0"], {
    env: { ...process.env, TODO_SERVER_TOKEN: token ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buf = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      const m = /^(\d+)\n/.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (c) => reject(new Error(`todo-server exited ${c}`)));
    setTimeout(() => reject(new Error("todo-server did not start")), 10_000);
  });
  return { url: `http://127.0.0.1:${port}`, port, child, stop: () => child.kill("SIGTERM") };
}

/** True when the process exists and is not a zombie (an exited child nobody reaped yet). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}

/**
 * The adapter's own input for the first command of pack `id` (of `kind`) in the scratch project `p`, and the
 * controller that cancels it.
 */
export function firstCommandCall<K extends AdapterKind>(
  p: ScratchProject,
  id: string,
  kind: K,
): { call: AdapterCall<K>; ac: AbortController } {
  const pack = loadPack(join(p.dir, "packs", id));
  if (pack.surface.kind !== kind) throw new Error(`pack ${id} is ${pack.surface.kind}, not ${kind}`);
  const ac = new AbortController();
  const call = {
    pack,
    project: loadProject({ config: p.config }),
    cmd: pack.commands[0]!,
    values: {},
    literal: undefined,
    env: {},
    signal: ac.signal,
  } as unknown as AdapterCall<K>; // its kind checked above
  return { call, ac };
}
