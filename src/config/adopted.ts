// What `hcpx adopt` recorded in .hcp/adopted.json: which hosts were adopted and
// which files were written. Read tolerantly (status and doctor report, they
// never rewrite the ledger).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface AdoptedHost {
  host: string;
  scope?: string;
  files: string[];
}

export const LEDGER = join(".hcp", "adopted.json");

export function readAdopted(root: string): { hosts: AdoptedHost[]; file?: string; error?: string } {
  const file = join(root, LEDGER);
  if (!existsSync(file)) return { hosts: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return { hosts: [], file, error: (e as Error).message };
  }
  return { hosts: hostsOf(raw), file };
}

function filesOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.map((f) => (typeof f === "string" ? f : f && typeof f === "object" ? String((f as Record<string, unknown>).path ?? (f as Record<string, unknown>).file ?? "") : "")).filter(Boolean);
  if (v && typeof v === "object") return Object.keys(v);
  return [];
}

function hostsOf(raw: unknown): AdoptedHost[] {
  if (!raw || typeof raw !== "object") return [];
  const r = raw as Record<string, unknown>;
  const hosts = r.hosts ?? r.adopted ?? r;
  const out: AdoptedHost[] = [];
  if (Array.isArray(hosts)) {
    for (const h of hosts) {
      if (!h || typeof h !== "object") continue;
      const o = h as Record<string, unknown>;
      out.push({ host: String(o.host ?? o.name ?? "?"), scope: typeof o.scope === "string" ? o.scope : undefined, files: filesOf(o.files) });
    }
  } else if (hosts && typeof hosts === "object") {
    for (const [name, h] of Object.entries(hosts as Record<string, unknown>)) {
      if (!h || typeof h !== "object" || name === "version") continue;
      const o = h as Record<string, unknown>;
      out.push({ host: name, scope: typeof o.scope === "string" ? o.scope : undefined, files: filesOf(o.files ?? o) });
    }
  }
  return out.sort((a, b) => (a.host < b.host ? -1 : 1));
}
