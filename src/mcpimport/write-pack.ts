// The write half of `hcpx pack from-mcp` and `hcpx import <host>` (./write.ts
// starts or reaches the server and lists its tools): the draft written as a
// pack through the one write door, all of it or nothing, then sandbox.bins
// recorded for a stdio program.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { baseForDir, guard, removeEmptyDir, removeFile, writeFiles } from "../util/door";
import { HcpxError, type Problem } from "../util/errors";
import { display } from "../util/paths";
import { missingDirs } from "../util/fsio";
import { loadPack } from "../pack/load";
import { lintPackDir } from "../pack/lint";
import type { McpHeaderSpec } from "../pack/mcp-remote";
import { pinOf, PinError, type ToolPin } from "../runtime/mcp-pins";
import { warning } from "../config/common";
import { recordSandboxBin, type BinRecorded } from "../config/sandbox";
import { draftFromTools, renderPolicy, renderSkill, renderSurface, type McpDraft, type McpToolInfo } from "./import";

export interface FromMcpOptions {
  /** pack id; default: from the server's name */
  id?: string;
  /** pack directory; default packs/<id> next to the config */
  out?: string;
  /** Binding names the server needs from the environment (passed at run time, never written) */
  env?: string[];
  force?: boolean;
  /** the caller has no --out (hcpx import): the hint of a pack directory in the way says so */
  noOut?: boolean;
  timeoutMs?: number;
  /** --config <file> */
  config?: string;
}

export interface FromMcpResult {
  id: string;
  dir: string;
  draft: McpDraft;
  /** what runs: the resolved program and its argv */
  runs: { bin: string; path: string; args: string[] };
  sandboxBin?: { name: string; path: string; recorded: "added" | "present" | "conflict" | "no_config" };
  lint: Problem[];
  warnings: Problem[];
}

/** A remote server to import: its URL and headers (a credential only as a Binding reference). */
export interface RemoteSource {
  url: string;
  headers: Record<string, McpHeaderSpec>;
}

/** A server's tools as listed (capped), the same by name, its name and version. */
export interface Listed {
  tools: McpToolInfo[];
  byName: Map<string, Record<string, unknown>>;
  server: { name?: string; version?: string; title?: string };
  warnings: Problem[];
}

interface DraftPlace {
  id: string | undefined;
  base: { cfgFile?: string; haveConfig: boolean; base: string };
  opts: FromMcpOptions;
  /** how the server is named in a message */
  label: string;
  /** a stdio program (its bin as the pack writes it, its resolved path) or a remote URL */
  source: { bin: (dir: string) => string; path: string } | RemoteSource;
  bindingNames: string[];
  args: string[];
  sandboxBin?: { name: string; path: string };
  warnings?: Problem[];
}

/** The draft of the listed tools: the pack's bin or URL and headers, each command's tool pinned. */
function draftFor(listed: Listed, p: DraftPlace, id: string, dir: string): McpDraft {
  const { tools, byName, server } = listed;
  const remote = "url" in p.source ? p.source : undefined;
  const bin = "url" in p.source ? "" : p.source.bin(dir);
  const draft = draftFromTools(tools, { id, bin, args: p.args, env: p.bindingNames, server });
  if (remote) {
    draft.url = remote.url;
    if (Object.keys(remote.headers).length) draft.headers = remote.headers;
  }
  // what the person reviews now is what the runtime holds the server to (mcp.pins); a tool that cannot be
  // pinned (its schema nests past the pins' cap) is left out, as one whose args hcpx cannot take
  const pins: [string, ToolPin][] = [];
  draft.commands = draft.commands.filter((c) => {
    try {
      pins.push([c.tool, pinOf(byName.get(c.tool)!)]);
      return true;
    } catch (e) {
      if (!(e instanceof PinError)) throw e;
      draft.notes.push(`tool '${c.tool}': ${e.message}; left out`);
      return false;
    }
  });
  if (draft.commands.length === 0)
    throw new HcpxError({
      code: "no_tools",
      message: `none of the server's ${tools.length} tools could become a command`,
      hint: draft.notes.join("; "),
    });
  draft.pins = Object.fromEntries(pins);
  return draft;
}

/** surface.json, policy.json and SKILL.md through the one write door, all or nothing, then loaded back. */
function writePackFiles(dir: string, base: string, draft: McpDraft): void {
  // the one write door: refused before anything (the config's sandbox.bins included) is written
  const door = baseForDir(dir);
  guard(door, dir);
  // the pack first, then sandbox.bins: a pack that does not load leaves nothing behind (its files go, the config is not edited)
  const created = missingDirs(dir, base);
  const files = ["surface.json", "policy.json", "SKILL.md"].map((f) => join(dir, f));
  const had = new Set(files.filter((f) => existsSync(f)));
  try {
    // surface, policy and Skill land together or not at all
    writeFiles(door, [
      { abs: files[0]!, data: renderSurface(draft) },
      { abs: files[1]!, data: renderPolicy(draft) },
      { abs: files[2]!, data: renderSkill(draft) },
    ]);
    loadPack(dir); // what we wrote must load
  } catch (e) {
    for (const f of files) if (!had.has(f) && existsSync(f)) removeFile(door, f);
    for (const d of [...created].reverse()) removeEmptyDir(door, d);
    throw e;
  }
}

/** The draft written as a pack (all of it or nothing), then sandbox.bins recorded for a stdio program. */
export function writeDraft(listed: Listed, p: DraftPlace): FromMcpResult {
  const { tools, server } = listed;
  const { opts, base: where } = p;
  const warnings = [...(p.warnings ?? []), ...listed.warnings];
  const { id } = p;
  if (!id)
    throw new HcpxError(
      {
        code: "bad_id",
        message: `no pack id could be made from the server's name '${server.name ?? ""}'`,
        hint: "pass --id <id>",
      },
      64,
    );
  if (tools.length === 0)
    throw new HcpxError({
      code: "no_tools",
      message: `the server '${server.name ?? p.label}' lists no tools`,
      hint: "a pack from an MCP server needs at least one tool",
    });

  const dir = resolve(opts.out ?? join(where.base, "packs", id));
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0) && !opts.force) {
    throw new HcpxError({
      code: "dir_exists",
      message: "the pack directory exists and is not empty; nothing was written",
      file: display(dir),
      hint: `pass --force to overwrite its pack files, or ${opts.noOut ? "move that folder away first" : "choose another --out"}`,
    });
  }
  const remote = "url" in p.source ? p.source : undefined;
  const draft = draftFor(listed, p, id, dir);
  writePackFiles(dir, where.base, draft);
  // sandbox.bins: recorded in the project config when there is one
  const recorded: BinRecorded | undefined = p.sandboxBin
    ? recordSandboxBin(opts, where.haveConfig, p.sandboxBin, warnings)
    : undefined;
  const lint = lintPackDir(dir).problems;
  for (const n of draft.notes) warnings.push(warning("mcp_import", n));
  const runs = remote
    ? { bin: remote.url, path: remote.url, args: [] }
    : { bin: draft.bin, path: (p.source as { path: string }).path, args: p.args };
  return {
    id,
    dir,
    draft,
    runs,
    sandboxBin: p.sandboxBin && recorded ? { ...p.sandboxBin, recorded } : undefined,
    lint,
    warnings,
  };
}
