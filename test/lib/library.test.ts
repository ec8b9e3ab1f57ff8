// The library's core (src/lib/index.ts): openProject() is the projection
// `hcpx generate` writes, byte for byte, and call() is the runtime with its
// grants, confirm gate, Binding and redaction.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openProject, ProjectError, type ConfirmRequest } from "hcpx";
import { toolResult } from "hcpx/anthropic";
import { describe, expect, it } from "vitest";
import { runHcpx } from "../support/hcpx";
import { probeEnv, SECRET, person, probeProject } from "./support";

describe("openProject: the projection, one source with hcpx generate", () => {
  it("tools(shape), the prompt block and the Skills are generate's files byte for byte", async () => {
    const pp = probeProject({
      examples: ["ledger", "calc"],
      allow: ["ledger.*", "calc.*", "probe.status", "probe.save"],
    });
    const r = await runHcpx(["generate", "--host", "none", "--json"], { cwd: pp.dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const gen = join(pp.dir, ".hcp", "generated");
    const p = await openProject({ cwd: pp.dir });
    for (const shape of ["mcp", "anthropic", "openai"] as const) {
      // generate's formatter: 2-space JSON, scalar arrays folded on one line
      const file = readFileSync(join(gen, "tools", `${shape}.json`), "utf8");
      expect(JSON.stringify(p.tools(shape))).toBe(JSON.stringify(JSON.parse(file)));
      const { json } = await import("../../src/projection/plan");
      expect(json(p.tools(shape))).toBe(file);
    }
    expect(p.promptBlock).toBe(readFileSync(join(gen, "system-prompt.md"), "utf8"));
    expect(p.promptHash).toMatch(/^[0-9a-f]{16}$/);
    expect(p.skills.map((s) => s.pack)).toEqual(["calc", "ledger", "probe"]);
    for (const s of p.skills) expect(s.content).toBe(readFileSync(join(gen, "skills", s.pack, "SKILL.md"), "utf8"));
    expect(p.toolNames).toContain("probe__status");
    expect(p.toolNames).not.toContain("probe__wipe");
    expect(p.toolNames.at(-1)).toBe("hcp__read_skill");
    // a copy each time: a caller that edits its list changes nothing
    (p.tools("anthropic")[0] as { name: string }).name = "x";
    expect(p.tools("anthropic")[0]!.name).not.toBe("x");
    expect(() => p.tools("gemini" as never)).toThrow(/unknown tool shape 'gemini'/);
  });

  it("an explicit config path; a broken config is a ProjectError with file and line", async () => {
    const pp = probeProject();
    const p = await openProject({ config: pp.config, cwd: "/" });
    expect(p.configFile).toBe(pp.config);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(pp.config, "{ packs: [\n  './packs/probe',\n  oops\n] }\n");
    const err = await openProject({ config: pp.config }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectError);
    expect((err as ProjectError).problems[0]).toMatchObject({
      file: expect.stringContaining("hcp.config.json5"),
      line: 3,
    });
  });
});

describe("call(): the runtime's gates, in-process", () => {
  it("a granted read runs once; its Binding value comes back redacted", async () => {
    const pp = probeProject();
    const p = await openProject({ cwd: pp.dir, env: probeEnv() });
    const env = await p.call("probe__status", {});
    expect(env).toEqual({ ok: true, data: { status: "fine", token: "***" } });
    expect(JSON.stringify(env)).not.toContain(SECRET);
    expect(pp.calls()).toEqual(["status"]);
  });

  it("an ungranted command, an unknown tool and a revoked grant are refused before anything runs", async () => {
    const pp = probeProject();
    const p = await openProject({ cwd: pp.dir, env: probeEnv() });
    expect(await p.call("probe__wipe", {})).toMatchObject({ ok: false, error: { code: "not_granted" } });
    expect(await p.call("probe__nope", {})).toMatchObject({ ok: false, error: { code: "unknown_verb" } });
    expect(await p.call("nopack__x", {})).toMatchObject({ ok: false, error: { code: "unknown_pack" } });
    expect(await p.call("weird", {})).toMatchObject({ ok: false, error: { code: "unknown_verb" } });
    expect(await p.call("probe__status", "not an object")).toMatchObject({ ok: false, error: { code: "bad_args" } });
    // the config is read on every call: a grant revoked after openProject() stops working at once
    pp.setAllow(["probe.save"]);
    expect(await p.call("probe__status", {})).toMatchObject({ ok: false, error: { code: "not_granted" } });
    expect(pp.calls()).toEqual([]);
  });

  it("forModel (what the SDK adapters pass): what was not granted is answered as what does not exist, and nothing runs", async () => {
    const pp = probeProject();
    const p = await openProject({ cwd: pp.dir, env: probeEnv() });
    const m = { forModel: true };
    const said = async (tool: string, input: Record<string, unknown> = {}) => {
      const env = await p.call(tool, input, m);
      const text = JSON.stringify(env);
      expect(text, tool).not.toMatch(/not_granted|hcpx grant/);
      return env;
    };
    // probe.wipe is probe's and not granted: word for word as a command probe does not have
    const wipe = await said("probe__wipe");
    expect(wipe).toMatchObject({ ok: false, error: { code: "unknown_verb" } });
    expect(JSON.stringify(wipe).replace("probe__wipe", "X")).toBe(
      JSON.stringify(await said("probe__nope")).replace("probe__nope", "X"),
    );
    // the anthropic adapter, with a tool_use the model made up: the same answer
    const r = await toolResult(p, { type: "tool_use", id: "t1", name: "probe__wipe", input: {} });
    expect(r.is_error).toBe(true);
    expect(r.content).not.toMatch(/not_granted|hcpx grant/);
    // a pack none of whose commands is granted is not there at all, its Skill neither
    pp.setAllow([]);
    expect(await said("probe__status")).toMatchObject({ ok: false, error: { code: "unknown_pack" } });
    expect(await said("hcp__read_skill", { pack: "probe" })).toMatchObject({ ok: false });
    // the person's view (no forModel) still says why
    expect(await p.call("probe__status", {})).toMatchObject({ ok: false, error: { code: "not_granted" } });
    expect(pp.calls()).toEqual([]);
  });

  it("a gated write: no callback → confirm_required even with the model's confirm: true; a no, a throw → confirm_declined; a yes runs it once", async () => {
    const pp = probeProject();
    const p = await openProject({ cwd: pp.dir, env: probeEnv() });
    const noCallback = await p.call("probe__save", { note: "a", confirm: true });
    expect(noCallback).toMatchObject({
      ok: false,
      error: { code: "confirm_required", land: "local", hint: expect.stringContaining("confirm callback") },
    });
    const who = person([false]);
    expect(await p.call("probe__save", { note: "b", confirm: true }, { confirm: who.confirm })).toMatchObject({
      ok: false,
      error: { code: "confirm_declined" },
    });
    expect(who.asked).toEqual([
      {
        pack: "probe",
        verb: "save",
        args: { note: "b" },
        land: "local",
        message: expect.stringContaining('args: {"note":"b"}'),
      },
    ]);
    const thrower = async () => {
      throw new Error("window closed");
    };
    expect(await p.call("probe__save", { note: "c" }, { confirm: thrower })).toMatchObject({
      ok: false,
      error: { code: "confirm_declined", message: expect.stringContaining("window closed") },
    });
    // what call() answers itself is redacted too: a callback whose error quotes the Binding
    const leaky = await p.call(
      "probe__save",
      { note: "c2" },
      { confirm: async () => Promise.reject(new Error(`auth ${SECRET} expired`)) },
    );
    expect(leaky).toMatchObject({
      ok: false,
      error: { code: "confirm_declined", message: expect.stringContaining("auth *** expired") },
    });
    expect(JSON.stringify(leaky)).not.toContain(SECRET);
    // a truthy non-true answer is not a yes
    expect(await p.call("probe__save", { note: "d" }, { confirm: async () => "yes" as never })).toMatchObject({
      ok: false,
      error: { code: "confirm_declined" },
    });
    expect(pp.calls()).toEqual([]);
    // bad args are refused before the person is asked
    const asked = person([true]);
    expect(await p.call("probe__save", {}, { confirm: asked.confirm })).toMatchObject({
      ok: false,
      error: { code: "bad_args", arg: "note" },
    });
    expect(await p.call("probe__save", { note: "e", confirm: "yes" }, { confirm: asked.confirm })).toMatchObject({
      ok: false,
      error: { code: "bad_args" },
    });
    expect(asked.asked).toEqual([]);
    // an ungranted write never asks the person
    pp.setAllow(["probe.status"]);
    expect(await p.call("probe__save", { note: "f" }, { confirm: asked.confirm })).toMatchObject({
      ok: false,
      error: { code: "not_granted" },
    });
    expect(asked.asked).toEqual([]);
    pp.setAllow(["probe.status", "probe.save"]);
    const yes = person([true]);
    expect(await p.call("probe__save", { note: "g" }, { confirm: yes.confirm })).toEqual({
      ok: true,
      data: { done: "save", args: ["g"] },
    });
    expect(yes.asked).toHaveLength(1);
    expect(pp.calls()).toEqual(["save g"]);
  });

  it("with confirm: \"person\" in the config, the callback's yes is the person's yes: it runs; without a callback nothing runs", async () => {
    const pp = probeProject();
    const cfg = JSON.parse(readFileSync(pp.config, "utf8")) as Record<string, unknown>;
    writeFileSync(pp.config, JSON.stringify({ ...cfg, confirm: "person" }, null, 2) + "\n");
    const p = await openProject({ cwd: pp.dir, env: probeEnv() });
    expect(await p.call("probe__save", { note: "h", confirm: true })).toMatchObject({
      ok: false,
      error: { code: "confirm_required" },
    });
    expect(pp.calls()).toEqual([]);
    const yes = person([true]);
    expect(await p.call("probe__save", { note: "h" }, { confirm: yes.confirm })).toEqual({
      ok: true,
      data: { done: "save", args: ["h"] },
    });
    expect(pp.calls()).toEqual(["save h"]);
  });

  it("the confirm request is a copy: a callback that edits its args changes neither what runs nor what was checked", async () => {
    const pp = probeProject();
    // no Binding value set: nothing to redact, so no copy is made on the way by the redaction
    const { PROBE_TOKEN: _t, ...env } = process.env;
    const p = await openProject({ cwd: pp.dir, env });
    const editing = async (r: ConfirmRequest) => {
      (r.args as Record<string, unknown>).note = { not: "a string" };
      return true;
    };
    expect(await p.call("probe__save", { note: "asked" }, { confirm: editing })).toEqual({
      ok: true,
      data: { done: "save", args: ["asked"] },
    });
    expect(pp.calls()).toEqual(["save asked"]);
  });

  it("the same envelope as hcpx exec --json for the same call, refusals included", async () => {
    const pp = probeProject({ examples: ["calc"] });
    const p = await openProject({ cwd: pp.dir, env: probeEnv() });
    const cases: [string, string[], string, Record<string, unknown>][] = [
      ["calc add", ["calc", "add", "--json", "--", "a=2", "b=5"], "calc__add", { a: 2, b: 5 }],
      ["probe status", ["probe", "status", "--json"], "probe__status", {}],
      ["probe wipe", ["probe", "wipe", "--json"], "probe__wipe", {}],
      ["calc add, bad arg", ["calc", "add", "--json", "--", "a=x", "b=5"], "calc__add", { a: "x", b: 5 }],
    ];
    for (const [label, argv, tool, input] of cases) {
      const r = await runHcpx(["exec", ...argv], { cwd: pp.dir, env: { PROBE_TOKEN: SECRET } });
      expect(await p.call(tool, input), label).toEqual(JSON.parse(r.stdout));
    }
  });

  it("every call goes through hcpx mcp's tool-call front: it is on the audit log (via library), the person's answer included", async () => {
    const pp = probeProject();
    const log = join(pp.dir, "audit.jsonl");
    const was = process.env.HCPX_AUDIT_LOG;
    process.env.HCPX_AUDIT_LOG = log;
    try {
      const p = await openProject({ cwd: pp.dir, env: probeEnv() });
      expect(await p.call("probe__status", {})).toMatchObject({ ok: true });
      expect(
        await p.call("probe__save", { note: "n", confirm: true }, { confirm: person([false]).confirm }),
      ).toMatchObject({ ok: false, error: { code: "confirm_declined" } });
    } finally {
      if (was === undefined) delete process.env.HCPX_AUDIT_LOG;
      else process.env.HCPX_AUDIT_LOG = was;
    }
    const recs = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(recs).toMatchObject([
      {
        via: "library",
        principal: "local",
        tool: "probe__status",
        pack: "probe",
        verb: "status",
        decision: "ran",
        result: "ok",
      },
      {
        via: "library",
        tool: "probe__save",
        pack: "probe",
        verb: "save",
        confirm: { answer: "decline" },
        result: "confirm_declined",
      },
    ]);
    expect(JSON.stringify(recs)).not.toContain(SECRET);
  });

  it("hcp__read_skill returns the projected Skill; a composite call runs in-process", async () => {
    const pp = probeProject({ examples: ["calc"] });
    const p = await openProject({ cwd: pp.dir, env: probeEnv() });
    const skill = await p.call("hcp__read_skill", { pack: "probe" });
    expect(skill).toEqual({
      ok: true,
      data: { pack: "probe", text: p.skills.find((s) => s.pack === "probe")!.content },
    });
    expect(await p.call("hcp__read_skill", { pack: "ledger" })).toMatchObject({
      ok: false,
      error: { code: "unknown_pack" },
    });
    expect(await p.call("calc__add", { a: 2, b: 3 })).toEqual({ ok: true, data: { sum: 5 } });
  });
});

describe("call(): every active pack's Binding values are hidden, read from openProject({ env })", () => {
  it("another pack's Binding value, only in the library's env, quoted back by the called pack: *** in the envelope and the audit record", async () => {
    const { project } = await import("../runtime/support");
    const value = "l3dger-0nly-in-the-app-env";
    expect(process.env.LEDGER_TOKEN).toBeUndefined();
    const sp = project({ examples: ["calc-wrap", "ledger"] });
    const log = join(sp.dir, "audit.jsonl");
    const was = process.env.HCPX_AUDIT_LOG;
    process.env.HCPX_AUDIT_LOG = log;
    try {
      const p = await openProject({ cwd: sp.dir, env: { ...process.env, LEDGER_TOKEN: value } });
      // bad_args quotes the value the model gave (calc-wrap's own Binding has no part in it)
      const env = await p.call("calc-wrap__convert", { value: 1, from: value, to: "m" });
      expect(env).toMatchObject({ ok: false, error: { code: "bad_args" } });
      expect(JSON.stringify(env)).toContain("***");
      expect(JSON.stringify(env)).not.toContain(value);
    } finally {
      if (was === undefined) delete process.env.HCPX_AUDIT_LOG;
      else process.env.HCPX_AUDIT_LOG = was;
    }
    expect(readFileSync(log, "utf8")).not.toContain(value);
  });
});
