// What a hint tells a person to do works, or at least exists: hints found wrong by an audit of
// src/'s user-facing text (each case failed on the build before its fix). The commands run in this
// process (test/support/inproc.ts: the same program, argv, cwd, environment, stdout, stderr and exit
// code), since what they say is under test; mcp and a composite module's exec stay real processes of
// the built CLI (a server, and a module this process would keep: test/support/shared-composites.ts).
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envelope, hcpx, project, tmp } from "./helpers";
import { baseEnv, HCPX, noStack, type RunResult } from "../support/cli";
import { execInProcess, runInProcessChecked } from "../support/inproc";
import { connectMcp } from "../support/mcp";
import { writePack } from "../runtime/support";

/** `hcpx ...args` in `cwd` as a function call in this process: no stack trace, no internal error. */
const hcpxIn = (args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<RunResult> =>
  runInProcessChecked(args, { cwd, env });

describe("hints", () => {
  it("revoke of what was not granted: the warning's hint does not say to grant it", async () => {
    const p = project();
    const r = await hcpxIn(["revoke", "ledger.accounts", "--json"], p.dir);
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
    const s = envelope(await hcpxIn(["status", "--json"], p.dir));
    expect(JSON.stringify(s)).toContain("remove one of the two from `packs` in the config");
    expect(JSON.stringify(s)).not.toContain("hcpx deactivate <dir>");
  });

  it("a folder that is not a pack: the scaffold command given is one pack new accepts", async () => {
    const p = project();
    mkdirSync(join(p.dir, "empty"));
    const text = JSON.stringify(envelope(await hcpxIn(["lint", "./empty", "--json"], p.dir)));
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
    const r = await hcpxIn(["token", "remove", "bob", "--server-config", cfg, "--json"], dir);
    expect(r.code).toBe(1);
    expect(envelope(r).error.hint).toBe(`\`hcpx token list --server-config ${cfg}\` lists them`);
    expect(readFileSync(cfg, "utf8")).toContain("bob");
  });
});

describe("messages that named the wrong thing", () => {
  it("init --config of an existing file names that file; a lock without its version says the key is missing", async () => {
    const p = project();
    writeFileSync(join(p.dir, "my.json5"), "{}\n");
    const i = envelope(await hcpxIn(["init", "--config", "my.json5", "--yes", "--json"], p.dir)).error;
    expect(i).toMatchObject({ code: "config_exists", message: "my.json5 already exists; left unchanged" });
    writeFileSync(join(p.dir, "hcp.lock"), "{}\n");
    const l = envelope(await hcpxIn(["pack", "install", "--json"], p.dir)).error;
    expect(l.problems).toContainEqual(
      expect.objectContaining({ path: "lockfileVersion", message: "missing required key (expected 1)" }),
    );
  });
});

describe("a config that is a link leading nowhere", () => {
  it("is named for what it is (a loop, a missing target), by status and by an edit, not 'no hcp.config.json5: run hcpx init'", async () => {
    const dir = tmp("hcpx-link-config-");
    symlinkSync("hcp.config.json5", join(dir, "hcp.config.json5"));
    const loop = envelope(await hcpxIn(["status", "--json"], dir)).error;
    expect(loop).toMatchObject({ message: "is a symbolic link loop", file: "hcp.config.json5" });
    rmSync(join(dir, "hcp.config.json5"));
    symlinkSync("gone.json5", join(dir, "hcp.config.json5"));
    for (const args of [
      ["status", "--json"],
      ["grant", "x.y", "--json"],
    ]) {
      const e = envelope(await hcpxIn(args, dir)).error;
      expect(e, args[0]).toMatchObject({
        code: "missing_file",
        message: "is a symbolic link whose target does not exist",
      });
    }
  });

  it("a pack's surface.json or the user config leading nowhere is named, not 'not a pack' or skipped", async () => {
    const p = project();
    // the user config can deny what the project grants: one that cannot be read stops exec, it is not skipped
    const xdg = tmp("hcpx-link-user-");
    mkdirSync(join(xdg, "hcp"));
    symlinkSync("gone.json5", join(xdg, "hcp", "config.json5"));
    const r = await execInProcess(["exec", "ledger", "balance", "--json"], {
      cwd: p.dir,
      env: { XDG_CONFIG_HOME: xdg },
    });
    noStack(r);
    expect(r.code).toBe(1);
    expect(envelope(r).error).toMatchObject({
      code: "missing_file",
      message: "is a symbolic link whose target does not exist",
      file: expect.stringMatching(/hcp\/config\.json5$/),
    });
    const surface = join(p.dir, "packs", "ledger", "surface.json");
    rmSync(surface);
    symlinkSync("gone.json", surface);
    const lint = JSON.stringify(envelope(await hcpxIn(["lint", "packs/ledger", "--json"], p.dir)));
    expect(lint).toContain("is a symbolic link whose target does not exist");
    expect(lint).not.toContain("not_a_pack");
  });
});

describe("one fault, said once", () => {
  it("a host file several of the host's targets read (Gemini's settings.json) with a trailing comma: one error, not one a target", async () => {
    const p = project();
    mkdirSync(join(p.dir, ".gemini"));
    writeFileSync(join(p.dir, ".gemini", "settings.json"), '{\n  "theme": "x",\n}\n');
    const r = await hcpxIn(["adopt", "gemini", "--write"], p.dir);
    expect(r.code).toBe(1);
    expect(r.stderr.match(/^error .*trailing comma/gm)).toHaveLength(1);
    const j = envelope(await hcpxIn(["adopt", "gemini", "--write", "--json"], p.dir));
    expect((j.error as unknown as { problems: unknown[] }).problems).toHaveLength(1);
  });
});

describe("files that are not UTF-8 are never rewritten lossily", () => {
  it("grant (a config edit), pack add-verb and pack sync refuse with not_utf8 and leave every byte", async () => {
    const p = project();
    const latin1 = (text: string) => Buffer.from(text, "latin1");
    // the config, with a Latin-1 comment
    const cfg = Buffer.concat([latin1("// r\xe9sum\xe9\n"), readFileSync(p.config)]);
    writeFileSync(p.config, cfg);
    const g = await hcpxIn(["grant", "ledger.accounts", "--json"], p.dir);
    expect(envelope(g).error).toMatchObject({ code: "not_utf8", message: expect.stringMatching(/offset 4\b/) });
    expect(readFileSync(p.config).equals(cfg)).toBe(true);
    // a pack's surface.json and SKILL.md
    const surface = join(p.dir, "packs", "ledger", "surface.json");
    const skill = join(p.dir, "packs", "ledger", "SKILL.md");
    const s = Buffer.concat([latin1("// caf\xe9\n"), readFileSync(surface)]);
    writeFileSync(surface, s);
    const v = await hcpxIn(["pack", "add-verb", "packs/ledger", "--verb", "lg=log", "--json"], p.dir);
    expect(envelope(v).error.code).toBe("not_utf8");
    expect(readFileSync(surface).equals(s)).toBe(true);
    const k = Buffer.concat([readFileSync(skill), latin1("\ncaf\xe9\n")]);
    writeFileSync(skill, k);
    const y = await hcpxIn(["pack", "sync", "packs/ledger", "--json"], p.dir);
    expect(envelope(y).error.code).toBe("not_utf8");
    expect(readFileSync(skill).equals(k)).toBe(true);
    // a .gitignore adopt would keep a block in: not_utf8, not "is not a regular file"
    const gi = latin1("# caf\xe9\n");
    writeFileSync(join(p.dir, ".gitignore"), gi);
    const a = envelope(await hcpxIn(["adopt", "claude", "--write", "--gitignore", "--json"], p.dir)).error;
    expect(a).toMatchObject({ code: "not_utf8", file: ".gitignore" });
    expect(readFileSync(join(p.dir, ".gitignore")).equals(gi)).toBe(true);
  });
});

describe("a composite module's console output", () => {
  it("stays off stdout, which carries answers: exec --json prints one envelope, hcpx mcp's stream holds; it goes to stderr, redacted", async () => {
    const p = project();
    // the pack's three files as the runtime tests write them (a read row for its command)
    const dir = writePack(p.dir, {
      id: "loud",
      surface: {
        kind: "composite",
        composite: { module: "./index.mjs" },
        binding: { env: ["LOUD_TOKEN"] },
        commands: [{ verb_key: "ping", summary: "prints, then answers", args: {} }],
      },
    });
    writeFileSync(
      join(dir, "index.mjs"),
      'export default { ping: async (_a, ctx) => { console.log("debug line", ctx.env.LOUD_TOKEN); console.info({ n: 1 }); return { pong: true }; } };\n',
    );
    writeFileSync(
      p.config,
      p
        .read()
        .replace("'./packs/ledger',", "'./packs/ledger', './packs/loud',")
        .replace("'ledger.balance',", "'ledger.balance', 'loud.*',"),
    );
    const env = { LOUD_TOKEN: "s3cret-Token-0123456789" };
    const r = await hcpx(["exec", "loud", "ping", "--json"], p.dir, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"ok":true,"data":{"pong":true}}\n');
    expect(r.stderr).toContain("debug line");
    expect(r.stderr).toContain("{ n: 1 }");
    expect(r.stderr).not.toContain(env.LOUD_TOKEN);
    const c = await connectMcp([HCPX, "mcp", "--shape", "per-command"], p.dir, {
      ...(baseEnv() as Record<string, string>),
      ...env,
    });
    try {
      const res = (await c.client.callTool({ name: "loud__ping", arguments: {} })) as { structuredContent?: unknown };
      expect(res.structuredContent).toMatchObject({ ok: true, data: { pong: true } });
      // a second call on the same stream still answers: the stream was not broken by the first one's line
      const again = (await c.client.callTool({ name: "loud__ping", arguments: {} })) as { structuredContent?: unknown };
      expect(again.structuredContent).toMatchObject({ ok: true });
      await new Promise((res2) => setTimeout(res2, 100));
      expect(c.stderr()).toContain("hcpx mcp: debug line");
      expect(c.stderr()).not.toContain(env.LOUD_TOKEN);
    } finally {
      await c.client.close();
    }
  });
});
