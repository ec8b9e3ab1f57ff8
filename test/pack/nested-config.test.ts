// A project config inside another project's writable root while the OS sandbox is on there
// (src/pack/nested.ts): a confined write could have made it — enforce "off", a planted pack under
// the name an allow rule gave another, its grant — so hcpx run in that folder refuses it
// (nested_config) unless the enclosing project names the folder in sandbox.nested_projects.
// `hcpx exec` on scratch projects, run in this process (execInProcess, test/support/inproc.ts): which
// config a call takes, and its refusal, are the subject, not exec's process; calc-wrap's bin is one.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchProject, tmp } from "../support/hcpx";
import { execInProcess } from "../support/inproc";
import { writeUserConfig } from "../support/userconfig";

type Env = { ok: boolean; data?: unknown; error?: { code: string; message: string; hint?: string } };

/** An enclosing project (calc-wrap active) with `outer` as its config's sandbox section, and sub/ holding a config of its own that runs calc-wrap unconfined. */
function layout(outer: Record<string, unknown>, subPath = "sub") {
  const p = scratchProject({ packs: ["calc-wrap"] });
  writeFileSync(
    p.config,
    JSON.stringify({ packs: ["./packs/calc-wrap"], grants: { allow: ["calc-wrap.*"] }, sandbox: outer }),
  );
  const sub = join(p.dir, subPath);
  mkdirSync(sub, { recursive: true });
  const up = subPath
    .split("/")
    .map(() => "..")
    .join("/");
  writeFileSync(
    join(sub, "hcp.config.json5"),
    JSON.stringify({
      packs: [`${up}/packs/calc-wrap`],
      grants: { allow: ["calc-wrap.*"] },
      sandbox: { enforce: "off", roots: [up] },
    }),
  );
  const home = tmp("hcpx-nested-home-");
  const exec = async (extraEnv: Record<string, string> = {}) => {
    const r = await execInProcess(["exec", "calc-wrap", "ping", "--json"], {
      cwd: sub,
      env: { HOME: home, ...extraEnv },
    });
    return { code: r.code, env: JSON.parse(r.stdout) as Env };
  };
  return { dir: p.dir, sub, home, exec };
}

describe("a project config inside an enclosing project's writable root, the sandbox on", () => {
  it('the enclosing config sets "os" and does not name the folder: refused, nothing runs, the message says where and what to do', async () => {
    const l = layout({ enforce: "os" });
    const r = await l.exec();
    expect(r.code).toBe(1);
    expect(r.env.error?.code).toBe("nested_config");
    expect(r.env.error?.message).toMatch(
      /^hcp\.config\.json5 lies in a writable root of the project of \/.*\/hcp\.config\.json5, where the OS sandbox is on/,
    );
    expect(r.env.error?.hint).toMatch(/sandbox: \{ nested_projects: \["sub"\] \}/);
  });

  it("named in sandbox.nested_projects: its own config is used", async () => {
    const l = layout({ enforce: "os", nested_projects: ["./sub/"] });
    const r = await l.exec();
    expect(r.env, JSON.stringify(r.env)).toMatchObject({ ok: true, data: { pong: true } });
  });

  it('the user config sets "os" and the enclosing one does not: refused as well', async () => {
    const l = layout({});
    expect((await l.exec()).env.ok).toBe(true);
    const xdg = join(l.home, ".config");
    writeUserConfig(l.home, { sandbox: { enforce: "os" } }, xdg);
    const r = await l.exec({ XDG_CONFIG_HOME: xdg });
    expect(r.env.error?.code).toBe("nested_config");
  });

  it("an enclosing config that cannot set enforce (no such word, no escape) is not parsed; one that may and does not parse fails closed", async () => {
    const l = layout({});
    writeFileSync(join(l.dir, "hcp.config.json5"), "{ packs: [ // not finished\n");
    expect((await l.exec()).env.ok).toBe(true);
    writeFileSync(join(l.dir, "hcp.config.json5"), '{ sandbox: { enforce: "os" }, packs: [\n');
    const r = await l.exec();
    expect(r.env.ok).toBe(false);
    expect(r.env.error?.code).not.toBe("nested_config");
    expect(JSON.stringify(r.env.error)).toMatch(/hcp\.config\.json5/);
  });

  it("outside the enclosing project's writable roots, or two levels down under a project that names only the middle one", async () => {
    const outside = layout({ enforce: "os", roots: ["./data"] });
    expect((await outside.exec()).env.ok).toBe(true);
    const deep = layout({ enforce: "os", nested_projects: ["a"] }, "a/b");
    writeFileSync(join(deep.dir, "a", "hcp.config.json5"), JSON.stringify({ packs: [] }));
    const r = await deep.exec();
    expect(r.env.error?.code).toBe("nested_config");
    expect(r.env.error?.hint).toMatch(/nested_projects: \["a\/b"\]/);
  });

  it("a root that is a link (./out -> data) counts where it leads, as the sandbox binds it: a config below data/ is refused", async () => {
    const l = layout({ enforce: "os", roots: ["./out"] }, "data/sub");
    symlinkSync("data", join(l.dir, "out"));
    const r = await l.exec();
    expect(r.env.error?.code, JSON.stringify(r.env)).toBe("nested_config");
  });
});
