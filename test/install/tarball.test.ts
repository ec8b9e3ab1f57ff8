// The install the README promises: `npm pack` → `npm install -g <tarball>` into
// a scratch prefix → `hcpx --version`, `hcpx generate` and `hcpx exec` work,
// with no dev tool and nothing fetched (npm runs --offline with an empty cache:
// the package has no production dependencies, dist/ is self-contained). And
// `npm ci --omit=dev` in a clone succeeds although esbuild is absent (the build
// runs in `prepack`, not in an install script).
import { describe, expect, it } from "vitest";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, run, scratchProject, tmp } from "../support/hcpx";

const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  version: string;
  dependencies?: Record<string, string>;
};
const MB = 1024 * 1024;

function duBytes(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((n, e) => n + duBytes(join(p, e)), 0);
}

/** npm with a scratch cache and no registry: what it installs must come from the tarball alone. */
function npm(args: string[], cwd: string, cache: string, env: NodeJS.ProcessEnv = {}) {
  return run("npm", [...args, "--offline", "--no-audit", "--no-fund", "--cache", cache], {
    cwd,
    timeoutMs: 120_000,
    env: { npm_config_update_notifier: "false", ...env },
  });
}

// The two cases run at once (each its own folders and npm cache): most of each is a wait on npm.
describe.concurrent("install from the packed tarball", () => {
  it("npm pack → npm install -g --prefix → hcpx --version, generate, exec; production dependencies ≤ 5 MB", async () => {
    const work = tmp("hcpx-install-");
    const cache = join(work, "cache");
    const packed = await npm(["pack", "--pack-destination", work, "--json"], REPO, cache);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    expect(existsSync(tarball)).toBe(true);

    const prefix = join(work, "prefix");
    const inst = await npm(["install", "-g", "--prefix", prefix, tarball], work, cache);
    expect(inst.code, inst.stderr).toBe(0);
    // no install script to approve or skip (npm 11 warns about any, `prepare` included)
    expect(inst.stderr).not.toMatch(/install-scripts|prepare/);
    const installed = join(prefix, "lib", "node_modules", "hcpx");
    // production dependencies: whatever npm put next to the package
    const deps = join(installed, "node_modules");
    const depBytes = existsSync(deps) ? duBytes(deps) : 0;
    expect(depBytes, `production dependencies take ${(depBytes / MB).toFixed(1)} MB`).toBeLessThanOrEqual(5 * MB);
    expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);

    // PATH: the scratch prefix and node only, never the repo's node_modules/.bin
    const env = { PATH: `${join(prefix, "bin")}:${join(process.execPath, "..")}:/usr/bin:/bin` };
    const hcpx = join(prefix, "bin", "hcpx");
    const proj = scratchProject({ packs: ["ledger", "transit", "git"] });
    // --version (in the scratch folder) and generate (in the project) at once
    const [v, gen] = await Promise.all([
      run(hcpx, ["--version"], { env, cwd: work }),
      run(hcpx, ["generate", "--host", "claude", "cursor", "codex"], { env, cwd: proj.dir }),
    ]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(pkg.version);

    expect(gen.code, gen.stderr).toBe(0);
    expect(existsSync(join(proj.dir, ".hcp/generated/skills/ledger/SKILL.md"))).toBe(true);
    expect(existsSync(join(proj.dir, ".hcp/generated/hosts/codex"))).toBe(true);
    const ex = await run(hcpx, ["exec", "ledger", "accounts", "--json"], { env, cwd: proj.dir });
    expect(JSON.parse(ex.stdout), ex.stdout).toMatchObject({ ok: true });

    // the library (package.json "exports"): openProject + call from the installed package, no SDK installed
    const lib = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { openProject } = await import(${JSON.stringify(join(installed, "dist/lib/index.mjs"))}); const p = await openProject({ cwd: ${JSON.stringify(proj.dir)} }); process.stdout.write(JSON.stringify({ tools: p.tools("anthropic").length, env: await p.call("ledger__accounts", {}) }));`,
      ],
      { env, cwd: work },
    );
    expect(JSON.parse(lib.stdout || "{}"), lib.stderr).toMatchObject({ tools: expect.any(Number), env: { ok: true } });
    for (const d of ["index", "ai-sdk", "anthropic", "openai-agents"])
      expect(existsSync(join(installed, "dist", "lib", `${d}.d.ts`)), d).toBe(true);

    // one template engine: hcpx renders its templates itself, no Handlebars is shipped;
    // dist/vendor holds only the json5 library, the JSON5 reader's fallback for errors
    expect(readdirSync(join(installed, "dist", "vendor"))).toEqual(["json5.cjs"]);
    writeFileSync(proj.config, '{\n  packs: ["./packs/ledger"]\n  grants: {},\n}\n');
    const bad = await run(hcpx, ["exec", "ledger", "accounts", "--json"], { env, cwd: proj.dir });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatchObject({
      code: "bad_json5",
      message: "cannot parse: invalid character 'g'",
      line: 3,
    });
    // the pack format reference ships with the package (hints point to it)
    expect(existsSync(join(installed, "docs", "pack-format.md"))).toBe(true);
  }, 240_000);

  it("npm ci --omit=dev in a clone succeeds without esbuild", async () => {
    const clone = tmp("hcpx-clone-");
    for (const f of ["package.json", "package-lock.json"]) cpSync(join(REPO, f), join(clone, f));
    mkdirSync(join(clone, "scripts"));
    for (const f of readdirSync(join(REPO, "scripts"))) cpSync(join(REPO, "scripts", f), join(clone, "scripts", f));
    writeFileSync(join(clone, ".npmrc"), "");
    const r = await npm(["ci", "--omit=dev"], clone, join(clone, ".cache-npm"));
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(clone, "node_modules", "esbuild"))).toBe(false);
  }, 240_000);
});
