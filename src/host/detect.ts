// `hcpx adopt --detected`: which hosts a project (or, at user scope, the user)
// actually uses. Each descriptor says what a trace of its host is (`detect` on a
// scope: paths and program names, hosts/<host>.json5); this module only looks.
// A file or directory hcpx itself created for some host (the adopt ledger says so)
// is not a trace: adopting opencode must not make Codex look "in use".
import { lstatSync } from "node:fs";
import { join } from "node:path";
import { listHosts, loadDescriptor, type Descriptor } from "./descriptor";
import { whichOnPath } from "../util/which";
import { display, tildePath } from "../util/paths";
import type { Ledger } from "./ledger";
import type { Scope } from "./adopt-types";
import { ledgerAt, readLedger } from "./ledger-state";
import { diskFs } from "../plan/fs";
import { pathResolver } from "./homes";
import { HcpxError } from "../util/errors";

export type { Scope };

export interface Detected {
  host: string;
  name: string;
  /** why, one line each: "found .claude/", "`codex` on PATH (/usr/bin/codex)", "adopted (.hcp/adopted.json)" */
  reasons: string[];
  /** recorded in the adopt ledger for this scope */
  adopted: boolean;
  /** the vendor ended the product (descriptor `endOfLife`), said with the host */
  endOfLife?: string;
}

export interface DetectOptions {
  scope: Scope;
  /** the project root (project scope) */
  root: string;
  home: string;
  /** the ledger of this scope, its file (for the reason) */
  ledgerFile: string;
  path?: string;
  /** where the hosts' home variables are read (descriptor `homes`; default: this process's environment) */
  env?: NodeJS.ProcessEnv;
}

/** The ledger of a scope, trusted as far as adopt trusts it (an unreadable one counts as empty here: adopt itself reports it). */
export function readLedgerQuiet(file: string, scope: Scope, base: string): Ledger | undefined {
  try {
    const read = readLedger(diskFs, ledgerAt(file, scope, base));
    return read.text === undefined || read.problems.length ? undefined : read.ledger;
  } catch (e) {
    if (e instanceof HcpxError || e instanceof Error) return undefined;
    throw e;
  }
}

export function detectHosts(o: DetectOptions): Detected[] {
  const base = o.scope === "project" ? o.root : o.home;
  const ledger = readLedgerQuiet(o.ledgerFile, o.scope, base);
  const ledgerShown = o.scope === "user" ? "~/" + o.ledgerFile.slice(o.home.length + 1) : display(o.ledgerFile, o.root);
  // what hcpx created: not a trace of anyone
  const ours = new Set<string>();
  for (const h of Object.values(ledger?.hosts ?? {})) {
    if (h.scope !== o.scope) continue;
    for (const e of h.entries) if (e.created) ours.add(e.path);
    for (const d of h.dirs) ours.add(d);
  }
  const out: Detected[] = [];
  for (const host of listHosts()) {
    let d;
    try {
      d = loadDescriptor(host);
    } catch {
      continue; // a broken descriptor is reported where it is used
    }
    const spec = d.scopes[o.scope]?.detect;
    const reasons: string[] = [];
    // `~/…` where the host keeps it (a home its variable moves: descriptor `homes`); a value it cannot use: no trace
    const abs = (p: string) => {
      try {
        return pathResolver(d, { root: o.root, home: o.home, env: o.env ?? process.env })(p);
      } catch {
        return undefined;
      }
    };
    for (const p of spec?.paths ?? []) {
      const clean = p.replace(/\/+$/, "");
      if (ours.has(clean)) continue;
      const at = abs(clean);
      // what hcpx created there, as its ledger names it (`~/…` of a moved home too)
      if (
        at !== undefined &&
        o.scope === "user" &&
        at.startsWith(o.home + "/") &&
        ours.has("~/" + at.slice(o.home.length + 1))
      )
        continue;
      let st;
      try {
        st = at === undefined ? undefined : lstatSync(at);
      } catch {
        continue;
      }
      if (!st) continue;
      reasons.push(`found ${shownAt(clean, at!, o.home)}${st.isDirectory() ? "/" : ""}`);
    }
    for (const prog of spec?.programs ?? []) {
      const at = whichOnPath(prog, o.path ?? process.env.PATH ?? "");
      if (at) reasons.push(`\`${prog}\` on PATH (${at})`);
    }
    // a ledger may still name the host by an id it has left (descriptor `aliases`: windsurf)
    const adopted = [host, ...(d.aliases ?? [])].some((id) => ledger?.hosts[id]?.scope === o.scope);
    if (adopted) reasons.push(`adopted (${ledgerShown})`);
    if (reasons.length)
      out.push({ host, name: d.name, reasons, adopted, ...(d.endOfLife ? { endOfLife: endOfLife(d) } : {}) });
  }
  return out;
}

/** A trace as found: its descriptor path, and where it is when a home variable moved it. */
function shownAt(p: string, at: string, home: string): string {
  if (!p.startsWith("~/") || at === join(home, p.slice(2))) return p;
  return `${p} (moved: ${tildePath(at, home)})`;
}

/** One line per host: "claude (Claude Code): found CLAUDE.md; found .claude/". */
export function describeDetected(found: Detected[]): string[] {
  return found.map((f) => `${f.host} (${f.name}): ${f.reasons.join("; ")}${f.endOfLife ? ` — ${f.endOfLife}` : ""}`);
}

/** "end of life since 2026-06-18: <note>; adopt keeps working" (descriptor `endOfLife`). */
export function endOfLife(d: Descriptor): string {
  return `end of life since ${d.endOfLife!.since}: ${d.endOfLife!.note}; adopt keeps working for people who still run it`;
}

/** What `--detected` looks for at a scope, for the hint when nothing was found. */
export function detectSummary(scope: Scope): string {
  const parts: string[] = [];
  for (const host of listHosts()) {
    try {
      const s = loadDescriptor(host).scopes[scope]?.detect;
      const what = [...(s?.paths ?? []), ...(s?.programs ?? []).map((p) => `\`${p}\` on PATH`)];
      if (what.length) parts.push(`${host}: ${what.join(", ")}`);
    } catch {
      /* skipped */
    }
  }
  return parts.join("; ");
}
