// Claude Code's settings files it skips as a whole (descriptor `gate.skipped`; docs/confirm.md, Known limits): Claude
// Code 2.1.332 reads none of a settings file that is not plain JSON or holds a known key of another type
// (test/hosts/HOST-PROBES.md), so the ask rule adopt wrote in such a file asks nothing. Its prompt is then not in
// force (hcpx asks itself), and adopt --check and doctor name the file and the key. A file it reads — adopt's own,
// one with a key it does not know — keeps the prompt in force (asked once). A permission mode in a skipped file does
// not hide the next file's. The decision is called in this process (src/host/approval.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratch as scratchChild, userConfigFromProject } from "../adopt/helpers";
import { inProcess } from "../support/inproc";
import { approvalInForce, warningsOf } from "../support/approval";
import { tmp } from "../support/project";
import { loadDescriptor, type Descriptor } from "../../src/host/descriptor";
import { checkInForce } from "../../src/host/descriptor-check";
import { SkippedSchema } from "../../src/host/shape-zod";
import { misfitOf } from "../../src/host/settings-shape";
import { SCHEMA_READS, SCHEMA_SINKS } from "../support/claude-schema-probes";

const scratch = () => inProcess(scratchChild());
type Scratch = ReturnType<typeof scratch>;

/** A settings file with `more` merged over its top level (written as plain JSON). */
function add(file: string, more: Record<string, unknown>): void {
  const doc = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...doc, ...more }, null, 2) + "\n");
}

/** The policy_widened warnings of adopt --check (or doctor). */
async function widened(s: Scratch, args = ["adopt", "claude", "--check", "--json"], extra: string[] = []) {
  const c = await s.run([...args, ...extra]);
  return warningsOf(c.stdout).filter((w) => w.code === "policy_widened");
}

/** An adopted project (claude, project scope) whose prompt is in force, and its ask rule's file. */
async function adopted() {
  const s = scratch();
  const sys = tmp("hcpx-sysroot-");
  expect((await s.adopt("claude", "--write")).code).toBe(0);
  const inForce = () => approvalInForce("claude", s, { system: sys });
  expect(await inForce()).toBe(true);
  return { s, inForce, file: join(s.dir, ".claude", "settings.json") };
}

describe("Claude Code: the ask rule in a settings file it skips as a whole", () => {
  it('"model": 3 beside the ask rule adopt wrote: not in force, and adopt --check and doctor name the file and the key', async () => {
    const { s, inForce, file } = await adopted();
    expect((await widened(s)).filter((w) => /skips/.test(w.message))).toEqual([]);
    add(file, { model: 3 });
    expect(await inForce()).toBe(false);
    const w = (await widened(s)).filter((x) => /skips/.test(x.message));
    expect(w.map((x) => x.file)).toEqual([".claude/settings.json"]);
    expect(w[0]!.message).toMatch(/Claude Code skips \.claude\/settings\.json as a whole \(model is 3: not a string/);
    expect(w[0]!.message).toMatch(/the ask rule adopt wrote there is not read/);
    expect(w[0]!.hint).toMatch(/fix \.claude\/settings\.json \(model is 3/);
    // doctor says it with the host's check
    const d = await s.run(["doctor", "--json"]);
    expect(d.stdout).toMatch(/Claude Code skips \.claude\/settings\.json as a whole \(model is 3/);
    add(file, { model: "claude-sonnet-4-6" });
    expect(await inForce()).toBe(true);
  });

  it("each probed error (a known key of another type, an unknown permission mode, a comment, a trailing comma): not in force", async () => {
    const { s, inForce, file } = await adopted();
    const good = readFileSync(file, "utf8");
    const doc = JSON.parse(good) as { permissions: Record<string, unknown> };
    for (const text of [
      JSON.stringify({ ...doc, permissions: { ...doc.permissions, defaultMode: "bogus" } }),
      JSON.stringify({ ...doc, hooks: { PreToolUse: 3 } }),
      JSON.stringify({ ...doc, cleanupPeriodDays: 0 }),
      JSON.stringify({ ...doc, enabledPlugins: { "x@y": "yes" } }),
      JSON.stringify({ ...doc, env: 3 }),
      // a statusLine without its command (probed: skipped)
      JSON.stringify({ ...doc, statusLine: { type: "command" } }),
      JSON.stringify({ ...doc, statusLine: {} }),
      `// mine\n${good}`,
      good.replace(/\}\s*$/, ",}"),
    ]) {
      writeFileSync(file, text);
      expect(await inForce(), text).toBe(false);
    }
    // not plain JSON: adopt --check refuses the file (it writes none the host cannot read), naming it and the line
    const c = JSON.parse((await s.run(["adopt", "claude", "--check", "--json"])).stdout) as {
      error: { code: string; file: string; message: string };
    };
    expect(c.error).toMatchObject({ code: "bad_json", file: ".claude/settings.json" });
    expect(c.error.message).toMatch(/trailing comma \(Claude Code refuses/);
  });

  it("adopt's own file, one with an unknown key or a key of a type Claude Code reads: in force (asked once)", async () => {
    const { s, inForce, file } = await adopted();
    for (const more of [
      { zzzUnknown: 1 },
      { statusLine: { type: "command", command: "x" } },
      { extraKnownMarketplaces: 3 },
      {
        permissions: {
          ...(JSON.parse(readFileSync(file, "utf8")) as { permissions: object }).permissions,
          defaultMode: "manual",
        },
      },
      { env: { A: 1 }, model: "x", cleanupPeriodDays: 30, enabledMcpjsonServers: "hcp" },
    ]) {
      add(file, more);
      expect(await inForce(), JSON.stringify(more)).toBe(true);
    }
    expect((await widened(s)).filter((x) => /skips/.test(x.message))).toEqual([]);
    // a leading BOM is read (seen)
    writeFileSync(file, "\ufeff" + readFileSync(file, "utf8"));
    expect(await inForce()).toBe(true);
  });

  it("the user's ~/.claude/settings.json (user scope) with a wrong type: not in force; fixed: in force", async () => {
    const u = scratch();
    const user = userConfigFromProject(u);
    expect((await u.adopt("claude", "--scope", "user", "--write")).code).toBe(0);
    const inForce = () => approvalInForce("claude", u, { user, system: tmp("hcpx-sysroot-") });
    expect(await inForce()).toBe(true);
    const file = join(u.home, ".claude", "settings.json");
    add(file, { apiKeyHelper: 3 });
    expect(await inForce()).toBe(false);
    const w = (await widened(u, ["adopt", "claude", "--scope", "user", "--check", "--json"])).filter((x) =>
      /skips/.test(x.message),
    );
    expect(w.map((x) => x.file)).toEqual(["~/.claude/settings.json"]);
    expect(w[0]!.message).toMatch(/apiKeyHelper is 3/);
    add(file, { apiKeyHelper: "/bin/key" });
    expect(await inForce()).toBe(true);
  });

  it("a permission mode in a skipped file does not hide the next file's bypassPermissions", async () => {
    const { s, inForce } = await adopted();
    const local = join(s.dir, ".claude", "settings.local.json");
    mkdirSync(join(s.home, ".claude"), { recursive: true });
    writeFileSync(
      join(s.home, ".claude", "settings.json"),
      JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } }),
    );
    writeFileSync(local, JSON.stringify({ permissions: { defaultMode: "default" } }));
    expect(await inForce()).toBe(true); // the local mode decides first
    writeFileSync(local, JSON.stringify({ permissions: { defaultMode: "default" }, model: 3 }));
    expect(await inForce()).toBe(false); // Claude Code skips the local file: the user's bypassPermissions decides
    const w = await widened(s);
    expect(w.map((x) => x.message).join("\n")).toMatch(
      /bypassPermissions mode \(~\/\.claude\/settings\.json: permissions\.defaultMode is "bypassPermissions", as Claude Code skips the files before it\)/,
    );
  });
});

describe("gate.skipped shape (Claude Code's)", () => {
  const shape = loadDescriptor("claude").gate!.skipped!.shape;
  it("names the first key of another type, and lets unknown keys be", () => {
    expect(misfitOf('{"permissions":{"ask":["x"]},"zzz":{"a":1}}', shape)).toBeUndefined();
    expect(misfitOf('{"permissions":{"defaultMode":"bogus"}}', shape)?.at).toEqual(["permissions", "defaultMode"]);
    expect(misfitOf('{"enabledPlugins":{"a@b":1}}', shape)?.at).toEqual(["enabledPlugins", "a@b"]);
    expect(misfitOf('{"hooks":{"PermissionRequest":{}}}', shape)?.at).toEqual(["hooks", "PermissionRequest"]);
    expect(misfitOf("[]", shape)?.at).toEqual([]);
    // a hook is said by the shape of its own type
    expect(misfitOf('{"hooks":{"PreToolUse":[{"hooks":[{"type":"prompt"}]}]}}', shape)?.why).toMatch(
      /^hooks\.PreToolUse\.0\.hooks\.0 is \{"type":"prompt"\}: no prompt$/,
    );
    expect(misfitOf('{"hooks":[{}]}', shape)?.at).toEqual(["hooks", "0"]);
    expect(misfitOf('{"a":1,}', shape)?.why).toMatch(/^it is not plain JSON/);
  });

  it('a statusLine needs its type and command (probed: a command without type, type "bogus", command 3 sink)', () => {
    expect(misfitOf('{"statusLine":{"type":"command","command":"x"}}', shape)).toBeUndefined();
    for (const sl of ['{"command":"x"}', '{"type":"bogus","command":"x"}', '{"type":"command","command":3}'])
      expect(misfitOf(`{"statusLine":${sl}}`, shape)?.at[0], sl).toBe("statusLine");
  });

  it("an extraKnownMarketplaces source of a kind Claude Code does not know sinks the file; other defects are dropped", () => {
    const mkt = (v: string) => misfitOf(`{"extraKnownMarketplaces":{"x":${v}}}`, shape);
    // probed: an unknown kind (case matters) sinks the file
    for (const v of ['{"source":{"source":"bogus"}}', '{"source":{"source":"Github","repo":"o/r"}}'])
      expect(mkt(v)?.at, v).toEqual(["extraKnownMarketplaces", "x", "source", "source"]);
    // probed: Claude Code drops the entry and reads the file (a known kind with a field missing, no kind, no source)
    for (const v of [
      '{"source":{"source":"npm"}}',
      '{"source":{"source":"hostPattern","hostPattern":"x"}}',
      '{"source":{"source":3}}',
      '{"source":{}}',
      '{"source":"bogus"}',
      "3",
    ])
      expect(mkt(v), v).toBeUndefined();
    expect(misfitOf('{"extraKnownMarketplaces":3}', shape)).toBeUndefined();
  });

  it("each key of Claude Code's settings schema: the probed values that sink the file, and those it reads", () => {
    // probed with Claude Code 2.1.332 (test/hosts/HOST-PROBES.md); the rest of the shape is its schema's word
    const sinks = SCHEMA_SINKS;
    const reads = SCHEMA_READS;

    const wrong = [
      ...sinks
        .filter((m) => misfitOf(`{${m}}`, shape) === undefined)
        .map((m) => `${m}: Claude Code skips it, hcpx reads it`),
      ...reads
        .filter((m) => misfitOf(`{${m}}`, shape) !== undefined)
        .map((m) => `${m}: Claude Code reads it, hcpx skips it`),
    ];
    expect(wrong).toEqual([]);
  });

  it("the descriptor's gate.skipped: an unknown key or shape is an error; its files never go up", () => {
    const skipped = loadDescriptor("claude").gate!.skipped!;
    expect(SkippedSchema.safeParse(skipped).success).toBe(true);
    for (const bad of [
      { ...skipped, extra: 1 },
      { ...skipped, shape: { known: { a: "integer" } } },
      { ...skipped, shape: { oneOf: [] } },
      { ...skipped, shape: { number: { min: 0, exact: 1 } } },
      { ...skipped, shape: { number: { whole: false } } },
      { ...skipped, shape: { pattern: "(" } },
      { ...skipped, shape: { pattern: "" } },
      { ...skipped, path: [] },
    ])
      expect(SkippedSchema.safeParse(bad).success, JSON.stringify(bad).slice(0, 80)).toBe(false);
    const d = { scopes: {}, gate: { model: "m", skipped: { ...skipped, path: ["../settings.json"] } } };
    expect(() => checkInForce(d as unknown as Descriptor, "x")).toThrow(/must not go up/);
  });
});
