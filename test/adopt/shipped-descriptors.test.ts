// adopt's bundle carries every shipped host descriptor as the build loaded it (HCPX_HOSTS_INDEX,
// scripts/build.mjs), taken only for a file whose text is the text the build read: the built adopt
// plans every host exactly as when each descriptor is read and checked, and a descriptor changed
// since the build is read and checked again. Run against a copy of the install (dist/, hosts/,
// templates/), so its hosts/ can be edited.
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, REPO, envelope, run, type RunResult } from "../support/cli";
import { scratchProject, tmp } from "../support/project";
import { userConfigOf } from "../support/userconfig";
import { listHosts, loadDescriptor } from "../../src/host/descriptor";

function install(): { bin: string; hosts: string } {
  const root = tmp("hcpx-install-");
  cpSync(dirname(HCPX), join(root, "dist"), { recursive: true });
  for (const d of ["hosts", "templates", "package.json"]) cpSync(join(REPO, d), join(root, d), { recursive: true });
  return { bin: join(root, "dist", "hcpx.cjs"), hosts: join(root, "hosts") };
}

describe("the host descriptors in adopt's bundle", () => {
  it("plan every shipped host as the descriptors read and checked do", async () => {
    const { bin, hosts } = install();
    const p = scratchProject({ ownHome: true });
    userConfigOf(p.dir, p.home!);
    const byScope = (scope: "project" | "user") => listHosts().filter((h) => loadDescriptor(h).scopes[scope]);
    const adopt = (scope: "project" | "user"): Promise<RunResult> =>
      run(process.execPath, [bin, "adopt", ...byScope(scope), "--scope", scope, "--command", "hcpx mcp", "--json"], {
        cwd: p.dir,
        env: p.env,
        timeoutMs: 60_000,
      });
    const built = [await adopt("project"), await adopt("user")];
    for (const r of built) expect(envelope(r).ok, r.stdout).toBe(true);
    // the same descriptors, a byte more each: none is the text the build read, so each is read and checked
    for (const f of readdirSync(hosts).filter((n) => n.endsWith(".json5")))
      writeFileSync(join(hosts, f), readFileSync(join(hosts, f), "utf8") + "\n");
    const checked = [await adopt("project"), await adopt("user")];
    expect(checked.map((r) => r.stdout)).toEqual(built.map((r) => r.stdout));
  }, 120_000);

  it("check a shipped descriptor again when its text changed since the build", async () => {
    const { bin, hosts } = install();
    const p = scratchProject({ ownHome: true });
    const file = join(hosts, "claude.json5");
    writeFileSync(file, readFileSync(file, "utf8").replace("{", "{\n  zzUnknown: 1,"));
    const r = await run(process.execPath, [bin, "adopt", "claude", "--write", "--json"], { cwd: p.dir, env: p.env });
    const e = envelope(r);
    expect(e.ok).toBe(false);
    expect(e.error.code).toBe("unknown_key");
    expect(JSON.stringify(e.error)).toContain("hosts/claude.json5");
    expect(readdirSync(p.dir)).not.toContain("CLAUDE.md");
  });
});
