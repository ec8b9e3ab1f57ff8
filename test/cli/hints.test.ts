// What a hint tells a person to do works, or at least exists: hints found wrong by an audit of
// src/'s user-facing text (each case failed on the build before its fix).
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope, hcpx, project, tmp } from "./helpers";

describe("hints", () => {
  it("revoke of what was not granted: the warning's hint does not say to grant it", async () => {
    const p = project();
    const r = await hcpx(["revoke", "ledger.accounts", "--json"], p.dir);
    const w = (envelope(r).data as { warnings: { code: string; hint: string }[] }).warnings;
    expect(w).toEqual([
      expect.objectContaining({
        code: "not_granted",
        hint: "`hcpx status` lists what is granted; nothing was changed",
      }),
    ]);
  });

  it("an unknown --host of mcp: the known hosts, without `all`, which only adopt takes", async () => {
    const p = project();
    const r = await hcpx(["mcp", "--host", "nope"], p.dir);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain("known hosts: amp,");
    expect(r.stderr).not.toContain("`all`");
  });

  it("two packs with one id: the hint says what unloads one (deactivate by id would remove both)", async () => {
    const p = project();
    cpSync(join(p.dir, "packs", "ledger"), join(p.dir, "packs", "ledger-copy"), { recursive: true });
    writeFileSync(p.config, p.read().replace("'./packs/ledger',", "'./packs/ledger', './packs/ledger-copy',"));
    const s = envelope(await hcpx(["status", "--json"], p.dir));
    expect(JSON.stringify(s)).toContain("remove one of the two from `packs` in the config");
    expect(JSON.stringify(s)).not.toContain("hcpx deactivate <dir>");
  });

  it("a folder that is not a pack: the scaffold command given is one pack new accepts", async () => {
    const p = project();
    mkdirSync(join(p.dir, "empty"));
    const text = JSON.stringify(envelope(await hcpx(["lint", "./empty", "--json"], p.dir)));
    expect(text).toContain("not_a_pack");
    expect(text).toContain("`hcpx pack new <id> --wrap <bin>` (or --composite, --sense)");
  });

  it("token remove with --server-config: the hint lists that file's tokens", async () => {
    const dir = tmp("hcpx-hint-token-");
    const cfg = join(dir, "server.json5");
    writeFileSync(
      cfg,
      JSON.stringify({ principals: { bob: { grants: { allow: [] } } }, tokens_file: join(dir, "tokens.json") }),
    );
    const r = await hcpx(["token", "remove", "bob", "--server-config", cfg, "--json"], dir);
    expect(r.code).toBe(1);
    expect(envelope(r).error.hint).toBe(`\`hcpx token list --server-config ${cfg}\` lists them`);
    expect(readFileSync(cfg, "utf8")).toContain("bob");
  });
});

describe("files that are not UTF-8 are never rewritten lossily", () => {
  it("grant (a config edit), pack add-verb and pack sync refuse with not_utf8 and leave every byte", async () => {
    const p = project();
    const latin1 = (text: string) => Buffer.from(text, "latin1");
    // the config, with a Latin-1 comment
    const cfg = Buffer.concat([latin1("// r\xe9sum\xe9\n"), readFileSync(p.config)]);
    writeFileSync(p.config, cfg);
    const g = await hcpx(["grant", "ledger.accounts", "--json"], p.dir);
    expect(envelope(g).error).toMatchObject({ code: "not_utf8", message: expect.stringMatching(/offset 4\b/) });
    expect(readFileSync(p.config).equals(cfg)).toBe(true);
    // a pack's surface.json and SKILL.md
    const surface = join(p.dir, "packs", "ledger", "surface.json");
    const skill = join(p.dir, "packs", "ledger", "SKILL.md");
    const s = Buffer.concat([latin1("// caf\xe9\n"), readFileSync(surface)]);
    writeFileSync(surface, s);
    const v = await hcpx(["pack", "add-verb", "packs/ledger", "--verb", "lg=log", "--json"], p.dir);
    expect(envelope(v).error.code).toBe("not_utf8");
    expect(readFileSync(surface).equals(s)).toBe(true);
    const k = Buffer.concat([readFileSync(skill), latin1("\ncaf\xe9\n")]);
    writeFileSync(skill, k);
    const y = await hcpx(["pack", "sync", "packs/ledger", "--json"], p.dir);
    expect(envelope(y).error.code).toBe("not_utf8");
    expect(readFileSync(skill).equals(k)).toBe(true);
  });
});
