// Argv safety, bin resolution, the minimal env, Binding redaction, and the
// failure modes of a spawned bin (timeout, output cap, bad JSON, signal).
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../support/hcpx";
import { execInProcess } from "../support/inproc";
import { activatePacks, alive, fxPack, project } from "./support";

const echoCmd = (verb: string, cli: string[], args: Record<string, unknown>) => ({
  verb_key: verb,
  summary: verb,
  cli,
  args,
});
const TOKEN = "s3cr3t-T0ken-9f8e7d";

let dir: string;
let outside: string;
/** `hcpx exec` as a function call in this process (test/support/inproc.ts): what the runtime does with the bin is the subject here (the bins stay processes); exec's own process is test/cli's */
const exec = (args: string[], env: NodeJS.ProcessEnv = {}) => execInProcess(["exec", ...args], { cwd: dir, env });
const json = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = await exec([...args.slice(0, 2), "--json", ...args.slice(2)], env);
  return { ...r, env: JSON.parse(r.stdout) as { ok: boolean; data?: any; error?: any } };
};

beforeAll(() => {
  outside = tmp("hcpx-outside-");
  writeFileSync(join(outside, "evil.mjs"), "process.stdout.write(JSON.stringify({ evil: true }))\n");
  const p = project({
    packs: [
      fxPack(
        "echo",
        "argv-echo.mjs",
        [
          echoCmd("one", ["echo", "one", "{{value}}"], {
            value: { type: "string", required: true },
            opt: { type: "string", flag: "--opt" },
            on: { type: "boolean", flag: "--on" },
          }),
          echoCmd("dash", ["echo", "dash", "{{value}}"], {
            value: { type: "string", required: true, allow_dash: true },
          }),
          echoCmd("num", ["echo", "num", "{{n}}", "{{x}}", "{{color}}"], {
            n: { type: "integer", required: true },
            x: { type: "number", required: true, allow_dash: true },
            color: { type: "enum", values: ["red", "green"], required: true },
          }),
          echoCmd("gated", ["echo", "gated"], {}),
        ],
        { wrap: { agent_env: { ECHO_AGENT: "yes" } }, binding: { env: ["ECHO_TOKEN"] } },
        { gated: { operation: "write", land: "local", confirm: true } },
      ),
      {
        id: "pathbin",
        surface: {
          kind: "wrap",
          wrap: { bin: "ls", output: "text" },
          commands: [{ verb_key: "list", summary: "l", cli: ["ls"], args: {} }],
        },
      },
      fxPack("escape", "../../../" + "x", []),
      fxPack("leaky", "leaky.mjs", [echoCmd("fail", ["leaky"], {}), echoCmd("ok", ["leaky", "ok"], {})], {
        binding: { env: ["LEAKY_TOKEN"] },
      }),
      fxPack("slow", "hang.mjs", [echoCmd("hang", ["hang"], {})], { wrap: { timeout_ms: 700, output: "text" } }),
      fxPack("flood", "flood.mjs", [echoCmd("flood", ["flood"], {})]),
      fxPack("bad", "badjson.mjs", [
        echoCmd("truncated", ["bad", "truncated"], {}),
        echoCmd("two", ["bad", "two"], {}),
        echoCmd("empty", ["bad", "empty"], {}),
      ]),
      fxPack("sig", "sigkill-self.mjs", [echoCmd("die", ["sig"], {})]),
    ],
  });
  dir = p.dir;
  if (process.env.DEBUG_RT) console.log("RTDIR", dir);
  // escape: a ../ bin outside the roots; link: a symlink inside the project pointing outside
  writeFileSync(
    join(dir, "packs", "escape", "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      id: "escape",
      version: "1",
      description: "d",
      kind: "wrap",
      wrap: { bin: join("..", "..", "..", outside.split("/").pop()!, "evil.mjs") },
      commands: [{ verb_key: "run1", summary: "s", cli: ["e"], args: {} }],
    }),
  );
  writeFileSync(join(dir, "packs", "escape", "policy.json"), '{ rows: { run1: { operation: "read" } } }');
  mkdirSync(join(dir, "links"));
  symlinkSync(join(outside, "evil.mjs"), join(dir, "links", "evil.mjs"));
  mkdirSync(join(dir, "packs", "link"));
  writeFileSync(
    join(dir, "packs", "link", "surface.json"),
    JSON.stringify({
      hcp: "1.1",
      id: "link",
      version: "1",
      description: "d",
      kind: "wrap",
      wrap: { bin: "../../links/evil.mjs" },
      commands: [{ verb_key: "run1", summary: "s", cli: ["e"], args: {} }],
    }),
  );
  writeFileSync(join(dir, "packs", "link", "policy.json"), '{ rows: { run1: { operation: "read" } } }');
  activatePacks(join(dir, "hcp.config.json5"), "link");
});

describe("argv safety", () => {
  const hostile = [
    "a;b",
    "a | b",
    "$(touch pwned)",
    "`touch pwned`",
    'it\'s "quoted"',
    "line1\nline2",
    "*",
    "two words",
    "  ",
    "\\",
    "{{value}}",
    "é ✓",
    "x --opt=y inside",
  ];
  it.each(hostile)("%j arrives as exactly one literal argv element", async (v) => {
    const r = await json(["echo", "one", "--", `value=${v}`]);
    expect(r.env.ok).toBe(true);
    expect(r.env.data.argv).toEqual(["one", v]);
    expect(existsSync(join(dir, "pwned"))).toBe(false);
  });

  it("optional args by flag: `flag value`, a boolean true as the flag alone", async () => {
    const r = await json(["echo", "one", "--", "value=v", "opt=a b; c", "on=true"]);
    expect(r.env.data.argv).toEqual(["one", "v", "--opt", "a b; c", "--on"]);
    const off = await json(["echo", "one", "--", "value=v", "on=false"]);
    expect(off.env.data.argv).toEqual(["one", "v"]);
  });

  it("a positional value starting with '-' is refused unless allow_dash", async () => {
    const r = await json(["echo", "one", "--", "value=--delete-all"]);
    expect(r.code).toBe(1);
    expect(r.env.error).toMatchObject({ code: "bad_args", arg: "value" });
    const flagged = await json(["echo", "one", "--", "value=v", "opt=-rf"]);
    expect(flagged.env.error.code).toBe("bad_args");
    const ok = await json(["echo", "dash", "--", "value=--delete-all"]);
    expect(ok.env.data.argv).toEqual(["dash", "--delete-all"]);
  });

  it("k=v coercion by type: integer, number, enum", async () => {
    const r = await json(["echo", "num", "--", "n=42", "x=-1.5e2", "color=green"]);
    expect(r.env.data.argv).toEqual(["num", "42", "-150", "green"]);
    expect((await json(["echo", "num", "--", "n=4.2", "x=1", "color=green"])).env.error.code).toBe("bad_args");
    expect((await json(["echo", "num", "--", "n=4", "x=1", "color=blue"])).env.error.code).toBe("bad_args");
    expect((await json(["echo", "num", "--", "n=4", "x=abc", "color=red"])).env.error.code).toBe("bad_args");
  });

  it("the bin gets a minimal env: agent_env + Binding names, not the caller's other variables; cwd = sandbox.cwd", async () => {
    const r = await json(["echo", "one", "--", "value=v"], {
      ECHO_TOKEN: "tok-value-1",
      ECHO_STRAY: "stray",
      SOME_SECRET: "x",
    });
    expect(r.env.data.env.ECHO_AGENT).toBe("yes");
    expect(r.env.data.env_names).toContain("ECHO_TOKEN");
    expect(r.env.data.env_names).not.toContain("ECHO_STRAY");
    expect(r.env.data.env_names).not.toContain("SOME_SECRET");
    expect(r.env.data.env_names).not.toContain("PATH");
    expect(r.env.data.cwd).toBe(dir);
  });

  it("a confirm-gated command without confirm spawns nothing", async () => {
    // had argv-echo run, it would have printed its argv: the envelope says nothing ran
    const r = await json(["echo", "gated"]);
    expect(r.env.error.code).toBe("confirm_required");
    const ok = await json(["echo", "gated", "--confirm"]);
    expect(ok.env.ok).toBe(true);
  });
});

describe("bin resolution", () => {
  it("a bare name that is on PATH but not in sandbox.bins is bin_denied", async () => {
    const r = await json(["pathbin", "list"]);
    expect(r.env.error.code).toBe("bin_denied");
    expect(r.code).toBe(1);
  });
  it("a ../ bin outside sandbox.roots is denied", async () => {
    const r = await json(["escape", "run1"]);
    expect(r.env.error.code).toBe("bin_denied");
  });
  it("a bin inside the roots that is a symlink pointing outside is denied", async () => {
    const r = await json(["link", "run1"]);
    expect(r.env.error.code).toBe("bin_denied");
  });
});

describe("Binding redaction", () => {
  for (const json_ of [true, false]) {
    it(`a bin that prints its token to stdout and stderr and exits 1: the token is in no output (${json_ ? "--json" : "readable"})`, async () => {
      const r = await exec(["leaky", "fail", ...(json_ ? ["--json"] : [])], { LEAKY_TOKEN: TOKEN });
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
      expect(r.stdout + r.stderr).toContain("***");
    });
    it(`a bin that returns its token in JSON data: redacted (${json_ ? "--json" : "readable"})`, async () => {
      const r = await exec(["leaky", "ok", ...(json_ ? ["--json"] : [])], { LEAKY_TOKEN: TOKEN });
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
      const data = json_ ? JSON.parse(r.stdout).data : JSON.parse(r.stdout);
      expect(data.token).toBe("***");
      expect(data.nested.list).toEqual(["***"]);
    });
  }
});

describe("failure modes", () => {
  it("timeout kills the bin and its children", async () => {
    const pidFile = join(dir, "hang.pid");
    const r = await exec(["slow", "hang", "--json"], { HANG_PID_FILE: pidFile });
    // HANG_PID_FILE is not passed (minimal env); read the pids from the stderr tail instead
    const env = JSON.parse(r.stdout);
    expect(env.error.code).toBe("timeout");
    expect(r.code).toBe(1);
    const m = /\{"pid":(\d+),"child":(\d+)\}/.exec(env.error.stderr_tail);
    expect(m).not.toBeNull();
    // sent SIGKILL before hcpx answered, they still run until the kernel has ended them (tens of ms under load):
    // waited for, at most 5 s (unkilled, they would run forever)
    const pids = [Number(m![1]), Number(m![2])];
    for (const end = Date.now() + 5000; pids.some(alive) && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 20));
    expect(alive(pids[0]!)).toBe(false);
    expect(alive(pids[1]!)).toBe(false);
  });
  it("stdout past the cap: output_too_large", async () => {
    const r = await json(["flood", "flood"]);
    expect(r.env.error.code).toBe("output_too_large");
  });
  it("unparseable JSON: bad_output", async () => {
    for (const v of ["truncated", "two", "empty"]) expect((await json(["bad", v])).env.error.code).toBe("bad_output");
  });
  it("killed by a signal: a clear error naming the signal", async () => {
    const r = await json(["sig", "die"]);
    expect(r.env.error).toMatchObject({ code: "exit_nonzero", signal: "SIGKILL" });
    expect(r.env.error.message).toMatch(/SIGKILL/);
  });
});
