// Issue 22 §4: redaction at the one exit. A Binding value split by a cut (an
// MCP server's or a bin's stderr tail) must not leak the piece the cut left,
// at any cut point, in any output path: `hcpx exec` (--json and readable),
// `hcpx mcp`, the library (its envelopes and its confirm request), doctor.
// The value is made of letters that appear nowhere else in the output, so any
// one of them on a line is a leak.
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProject } from "../../../src/pack/load";
import { execute } from "../../../src/runtime/execute";
import { openProject, type ConfirmRequest } from "../../../src/lib/index";
import { HCPX, runHcpx, type RunResult } from "../../support/hcpx";
import { execInProcess, runInProcess } from "../../support/inproc";
import { forgetSecretsInPlay } from "../../../src/util/redact";
import { project, writePack } from "../../runtime/support";
import { OWN_FIXTURES } from "./support";

const SECRET = "ΣΦΨΩΞΔΛΠΓΘ";
const ANY_PIECE = /[ΣΦΨΩΞΔΛΠΓΘ]/;
const CUTS = Array.from({ length: SECRET.length - 1 }, (_, i) => i + 1);
const ENV = { ...process.env, ODD_TOKEN: SECRET, NO_COLOR: "1" };

// The bins are shell scripts, not Node ones: ~75 start here, each Node start ~40-50 ms of CPU, these ~3 ms.
// The cut of what they write and its redaction on the way out are under test, not the bins.
/** A wrap bin: `tail <cut>` writes 100 x, its token, then y so that the last 2048 characters start `cut` characters into the token, to stderr, and fails. */
const TAIL_BIN =
  [
    "#!/bin/sh",
    "export PATH=/usr/bin:/bin",
    `printf '%s%s' '${"x".repeat(100)}' "$ODD_TOKEN" >&2`,
    `printf "%$((${2048 - SECRET.length} + $1))s" "" | tr ' ' y >&2`,
    "exit 1",
  ].join("\n") + "\n";

let dir: string;
beforeAll(() => {
  const sp = project({ packs: [] });
  dir = sp.dir;
  writeFileSync(join(dir, "fx", "tail.sh"), TAIL_BIN, { mode: 0o755 });
  copyFileSync(join(OWN_FIXTURES, "odd-mcp.sh"), join(dir, "fx", "odd-mcp.sh"));
  const cutArg = { cut: { type: "integer", required: true, description: "where the tail starts in the value" } };
  writePack(dir, {
    id: "odd",
    surface: {
      kind: "mcp",
      // the last 2048 characters of the server's stderr are kept; the value is SECRET.length characters long
      mcp: { bin: "../../fx/odd-mcp.sh", args: ["2048", String(SECRET.length)] },
      binding: { env: ["ODD_TOKEN"] },
      commands: [{ verb_key: "leak", summary: "Leak", tool: "leak", args: cutArg }],
    },
  });
  writePack(dir, {
    id: "wt",
    surface: {
      kind: "wrap",
      wrap: { bin: "../../fx/tail.sh", json_flag: null, output: "json" },
      binding: { env: ["ODD_TOKEN"] },
      commands: [
        { verb_key: "leak", summary: "Leak", cli: ["tail", "{{cut}}"], args: cutArg },
        {
          verb_key: "save",
          summary: "Save a note",
          cli: ["tail", "save", "{{note}}"],
          args: { note: { type: "string", required: true, description: "The note" } },
        },
      ],
    },
    rows: { save: { operation: "write", land: "local", confirm: true } },
  });
  writeFileSync(
    sp.config,
    JSON.stringify(
      {
        packs: ["./packs/odd", "./packs/wt"],
        principal: { id: "test", kind: "agent" },
        grants: { allow: ["odd.*", "wt.*"], deny: [] },
        sandbox: { bins: {}, roots: ["."], cwd: "." },
      },
      null,
      2,
    ) + "\n",
  );
});

describe("a Binding value cut by a stderr tail, at every cut point", () => {
  it("execute() (the runtime): the mcp adapter's tail and the wrap adapter's tail", async () => {
    const p = loadProject({ cwd: dir });
    for (const pack of ["odd", "wt"]) {
      // the cuts side by side: each call its own child
      const envs = await Promise.all(
        CUTS.map((cut) => execute(p, { pack, verb: "leak", args: { cut } }, { env: ENV })),
      );
      for (const [i, env] of envs.entries()) {
        const cut = CUTS[i]!;
        expect(env.ok).toBe(false);
        const text = JSON.stringify(env);
        expect(env.ok ? undefined : env.error.stderr_tail, `${pack} cut at ${cut}`).toContain("yyyy"); // the tail is there
        expect(text, `${pack} cut at ${cut}: ${text.slice(0, 400)}`).not.toMatch(ANY_PIECE);
      }
    }
  }, 60_000);

  it("hcpx exec: the envelope (--json) and the readable error on stderr", async () => {
    const check = (r: RunResult, cut: number, json: boolean) => {
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).toContain("yyyy");
      expect(r.stdout + r.stderr, `cut at ${cut}${json ? " --json" : ""}`).not.toMatch(ANY_PIECE);
    };
    const args = (cut: number, json: boolean) => ["exec", "odd", "leak", `cut=${cut}`, ...(json ? ["--json"] : [])];
    // real processes (what reaches a real exec's stdout and stderr), the first and the last cut, side by side;
    // started before the in-process runs below, which set this process's environment while they run
    const ends = [CUTS[0]!, CUTS[CUTS.length - 1]!];
    const real = ends.flatMap((cut) =>
      [true, false].map(async (json) => ({ cut, json, r: await runHcpx(args(cut, json), { cwd: dir, env: ENV }) })),
    );
    // every cut, in this process (the same command and output path), the redaction's values forgotten before
    // each run as a new process starts with none
    for (const cut of CUTS) {
      for (const json of [true, false]) {
        forgetSecretsInPlay();
        check(await execInProcess(args(cut, json), { cwd: dir, env: ENV }), cut, json);
      }
    }
    for (const { cut, json, r } of await Promise.all(real)) check(r, cut, json);
  }, 120_000);

  describe("hcpx mcp", () => {
    let client: Client;
    let asked: string[];
    beforeAll(async () => {
      asked = [];
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [HCPX, "mcp"],
        cwd: dir,
        env: ENV as Record<string, string>,
        stderr: "pipe",
      });
      client = new Client({ name: "split-secret", version: "1" }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params.message);
        return { action: "decline" };
      });
      await client.connect(transport);
    });
    afterAll(async () => {
      await client?.close();
    });

    it("the tool result of every cut", async () => {
      for (const pack of ["odd", "wt"]) {
        // the cuts side by side: one server, each call its own child
        const results = await Promise.all(
          CUTS.map((cut) => client.callTool({ name: "hcp", arguments: { pack, verb: "leak", args: { cut } } })),
        );
        for (const [i, r] of results.entries()) {
          const cut = CUTS[i]!;
          const text = JSON.stringify(r);
          expect(r.isError).toBe(true);
          expect((r.structuredContent as { error: { stderr_tail?: string } }).error.stderr_tail).toContain("yyyy");
          expect(text, `${pack} cut at ${cut}`).not.toMatch(ANY_PIECE);
        }
      }
    }, 60_000);

    it("the elicitation message of a write whose argument holds the value (whole, and where the message's 2000-character cut splits it)", async () => {
      // the message shows the args as JSON ({"note":"…"}, 9 characters before the note), cut after 2000 characters
      const notes = [`note ${SECRET} end`, ...CUTS.map((k) => "a".repeat(1991 - k) + SECRET)];
      for (const note of notes) {
        const r = await client.callTool({ name: "hcp", arguments: { pack: "wt", verb: "save", args: { note } } });
        expect(JSON.stringify(r)).toContain("confirm_declined");
      }
      expect(asked.length).toBe(notes.length);
      expect(asked[0]).toContain("note *** end");
      for (const m of asked) expect(m).not.toMatch(ANY_PIECE);
    });
  });

  describe("the library", () => {
    it("call(): the envelope of every cut", async () => {
      const proj = await openProject({ cwd: dir, env: ENV });
      for (const tool of ["odd__leak", "wt__leak"]) {
        // the cuts side by side: each call its own child
        const envs = await Promise.all(CUTS.map((cut) => proj.call(tool, { cut })));
        for (const [i, env] of envs.entries()) {
          const cut = CUTS[i]!;
          expect(env.ok).toBe(false);
          expect(JSON.stringify(env), `${tool} cut at ${cut}`).not.toMatch(ANY_PIECE);
        }
      }
    }, 60_000);

    it("the confirm request (message, args) never holds the value, whole or cut", async () => {
      const proj = await openProject({ cwd: dir, env: ENV });
      const seen: ConfirmRequest[] = [];
      const notes = [`note ${SECRET} end`, SECRET, ...CUTS.map((k) => "a".repeat(1991 - k) + SECRET)];
      for (const note of notes) {
        const env = await proj.call("wt__save", { note }, { confirm: (req) => (seen.push(req), false) });
        expect(env.ok).toBe(false);
      }
      expect(seen.length).toBe(notes.length);
      expect(seen[0]!.message).toContain("note *** end");
      for (const req of seen) expect(JSON.stringify(req)).not.toMatch(ANY_PIECE);
    });
  });

  it("doctor: a message that quotes the value (a bin path) shows it redacted", async () => {
    const d = project({ packs: [] });
    writePack(d.dir, {
      id: "doc",
      surface: {
        kind: "wrap",
        wrap: { bin: `../../fx/missing-${SECRET}.mjs`, json_flag: null, output: "json" },
        binding: { env: ["ODD_TOKEN"] },
        commands: [{ verb_key: "go", summary: "Go", cli: ["go"], args: {} }],
      },
    });
    writeFileSync(
      d.config,
      JSON.stringify(
        {
          packs: ["./packs/doc"],
          principal: { id: "test", kind: "agent" },
          grants: { allow: ["doc.*"], deny: [] },
          sandbox: { bins: {}, roots: ["."], cwd: "." },
        },
        null,
        2,
      ) + "\n",
    );
    // --json as a real process, the readable form in this process (each with the redaction's values forgotten:
    // a new process starts with none); the real one is started first, with the environment as it is now
    const doctor = (json: boolean) => ["doctor", "--mcp-timeout", "20000", ...(json ? ["--json"] : [])];
    const real = runHcpx(doctor(true), { cwd: d.dir, env: ENV, timeoutMs: 60_000 });
    forgetSecretsInPlay();
    const readable = await runInProcess(doctor(false), { cwd: d.dir, env: ENV });
    for (const r of [await real, readable]) {
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).toContain("missing-***");
      expect(r.stdout + r.stderr).not.toMatch(ANY_PIECE);
    }
  }, 90_000);
});
