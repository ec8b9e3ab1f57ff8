// What `hcpx adopt` recorded in its ledgers (.hcp/adopted.json for the
// project, ~/.config/hcp/adopted.json for the user scope): which hosts were
// adopted and which files hcpx wrote for them. Read only.
import { join } from "node:path";
import { HcpxError } from "../util/errors";
import { display, home, userConfigDir } from "../util/paths";
import { diskFs } from "../plan/fs";
import { ledgerAt, readLedger } from "../host/ledger-state";

export interface AdoptedHost {
  host: string;
  scope: "project" | "user";
  /** display paths of the files hcpx wrote (relative to the project root, or ~/…) */
  files: string[];
}

export interface AdoptedRead {
  hosts: AdoptedHost[];
  /** a ledger that exists but does not parse, or names what hcpx will not touch (an entry outside its base…) */
  errors: { file: string; message: string }[];
}

export function ledgerFiles(root: string): { scope: "project" | "user"; file: string }[] {
  return [
    { scope: "project", file: join(root, ".hcp", "adopted.json") },
    { scope: "user", file: join(userConfigDir(), "adopted.json") },
  ];
}

export function readAdopted(root: string): AdoptedRead {
  const out: AdoptedRead = { hosts: [], errors: [] };
  for (const { scope, file } of ledgerFiles(root)) {
    try {
      // adopt's own reader and trust rules: only what passes guardPath is listed (and checked by doctor)
      const { ledger, warnings, problems } = readLedger(
        diskFs,
        ledgerAt(file, scope, scope === "project" ? root : home()),
      );
      for (const p of problems) out.errors.push({ file: display(file), message: p.message });
      for (const w of warnings) out.errors.push({ file: display(file), message: `${w.path}: ${w.message}` });
      for (const [host, h] of Object.entries(ledger.hosts)) {
        out.hosts.push({ host, scope, files: [...new Set(h.entries.map((e) => e.path))].sort() });
      }
    } catch (e) {
      if (!(e instanceof HcpxError) && !(e instanceof Error)) throw e;
      out.errors.push({
        file: display(file),
        message: e instanceof HcpxError ? e.problems[0]!.message : (e as Error).message,
      });
    }
  }
  out.hosts.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.scope < b.scope ? -1 : 1));
  return out;
}
