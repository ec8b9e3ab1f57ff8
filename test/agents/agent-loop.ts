// The agent-loop assertions, one describe per host (each host's test file calls
// agentLoop(host), so that vitest runs the hosts side by side).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { sha16 } from "../../src/projection/build";
import { rm } from "../hosts/e2e/support";
import {
  adopted,
  allText,
  ECHO_TEXT,
  envelopeIn,
  HOSTS,
  readBlock,
  planResults,
  runAgent,
  sha12,
  SHELL_TEXT,
  SKILL_DESCRIPTION,
  SKILL_MARKER,
  UNGRANTED_WORDS,
  why,
  type AgentRun,
  type HostId,
} from "./support";
import type { ModelRequest, OfferedTool } from "../support/fake-model";

/** JSON Schema as a host may re-spell it: drop `$schema`, empty `properties` the host added, key order. */
function normSchema(s: unknown, added: string[] = [], top = true): unknown {
  if (Array.isArray(s)) return s.map((x) => normSchema(x, added, false));
  if (!s || typeof s !== "object") return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (k === "$schema") continue;
    if (k === "properties" && v && typeof v === "object" && Object.keys(v).length === 0) continue;
    if (k === "properties" && top && v && typeof v === "object") {
      out[k] = normSchema(
        Object.fromEntries(Object.entries(v).filter(([name]) => !added.includes(name))),
        added,
        false,
      );
      continue;
    }
    out[k] = normSchema(v, added, false);
  }
  return out;
}

/** The schema without the keys a host leaves out of what it shows its model (HostSpec.dropsSchemaKeys), at every level. */
function dropKeys(s: unknown, keys: string[] = []): unknown {
  if (!keys.length || !s || typeof s !== "object") return s;
  if (Array.isArray(s)) return s.map((x) => dropKeys(x, keys));
  return Object.fromEntries(
    Object.entries(s as Record<string, unknown>)
      .filter(([k]) => !keys.includes(k))
      .map(([k, v]) => [k, dropKeys(v, keys)]),
  );
}

export function agentLoop(host: HostId): void {
  const spec = HOSTS[host];
  describe(`${spec.id}: the host's own agent against the fake model`, () => {
    let run: AgentRun;
    let first: ModelRequest;
    let last: ModelRequest;
    const result = (what: string) => {
      const i = run.plan.findIndex((p) => p.what === what);
      const r = planResults(last.toolResults)[i];
      expect(r, `no tool result for step ${what}\n${why(run)}`).toBeDefined();
      return r!;
    };
    // the tools as offered: in the first request, or (a host that defers them: HostSpec.loadTools) after the load step
    let offering: ModelRequest;
    const offered = (t: { name: string; namespace?: string }): OfferedTool | undefined =>
      offering.tools.find((o) => o.name === t.name && o.namespace === t.namespace);

    beforeAll(async () => {
      run = await runAgent(host);
      console.log(
        `[agents] ${host}: ${run.ms} ms (agent ${run.raw.ms} ms), ${run.fake.modelRequests.length} model requests, ${run.fake.sideRequests.length} side calls${run.loadRetries ? `, the deferred tools loaded again ${run.loadRetries}×` : ""}`,
      );
      const main = run.fake.modelRequests.filter((r) => r.tools.length > 0);
      first = main[0]!;
      last = main.reduce((a, b) => (b.toolResults.length >= a.toolResults.length ? b : a), main[0]!);
      offering =
        (spec.loadTools
          ? main.find((r) => r.tools.some((t) => t.name === spec.tool("probe__echo").name))
          : undefined) ?? first;
    }, 180_000);
    afterAll(async () => {
      await run?.fake.close();
      if (run && !process.env.HCPX_E2E_KEEP) for (const d of [run.dir, run.home]) rm(d);
    });

    it("the agent ran the whole script and exited 0; every request had a route and a turn", () => {
      expect(run.raw.code, why(run)).toBe(spec.exitCode ?? 0);
      expect(
        run.fake.unexpected.map((u) => u.path),
        why(run),
      ).toEqual([]);
      expect(first, why(run)).toBeDefined();
      // a host whose approval stops a headless run ends at the gated write (HostSpec.gatedWrite)
      expect(planResults(last.toolResults).length, why(run)).toBe(
        spec.gatedWrite === "stops" ? run.plan.findIndex((p) => p.what === "unconfirmed") : run.plan.length,
      );
    });

    it("the prompt block reached the model intact", () => {
      const text = allText(first.body);
      const [hashLine, ...rest] = run.block.split("\n");
      const body = rest.join("\n").trimEnd();
      expect(hashLine).toMatch(/^<!-- hcp:prompt sha256:[0-9a-f]{16} -->$/);
      expect(text, why(run)).toContain(body);
      if (spec.keepsComments) expect(text).toContain(hashLine);
      // where the host strips comments, the body that arrived is the one the hash was taken of
      else expect(`<!-- hcp:prompt sha256:${sha16(body + "\n")} -->`).toBe(hashLine);
    });

    it("the tools offered are the projection's (names as the host prefixes them, descriptions, schemas); confirm markers there; no ungranted command anywhere", () => {
      for (const ref of ["probe__echo", "probe__stamp", "hcp__read_skill"]) {
        const mine = spec.tool(ref);
        const o = offered(mine);
        expect(
          o,
          `${mine.namespace ?? ""} ${mine.name} not offered; offered: ${offering.tools.map((t) => `${t.namespace ?? ""}/${t.name}`).join(", ")}`,
        ).toBeDefined();
        const want = run.mcpTools.find((t) => t.name === ref)!;
        expect(o!.description).toBe(
          spec.toolDescription ? spec.toolDescription(want.description ?? "") : want.description,
        );
        expect(
          isDeepStrictEqual(
            normSchema(dropKeys(o!.schema, spec.dropsSchemaKeys), spec.addsToolProperties),
            normSchema(dropKeys(want.inputSchema, spec.dropsSchemaKeys)),
          ),
          `${JSON.stringify(o!.schema)}\n  vs hcpx mcp's\n${JSON.stringify(want.inputSchema)}`,
        ).toBe(true);
      }
      expect(offered(spec.tool("probe__stamp"))!.description).toContain("confirm required");
      expect(offered(spec.tool("probe__echo"))!.description).not.toContain("confirm");
      expect(run.block).toContain("Verbs: echo (r), stamp (w, confirm required)");
      // everything the host sent before the script called anything
      const seen = first.raw.toLowerCase();
      for (const w of UNGRANTED_WORDS) expect(seen.includes(w), `'${w}' is in what the model saw`).toBe(false);
    });

    it("the Skill is discovered by the host's own skill mechanism and its body can be read", () => {
      expect(allText(first.body), "the Skill's description is not in what the host sent").toContain(SKILL_DESCRIPTION);
      // the body arrives after the skill call: as its result, or (Claude Code) as a message the host adds
      expect(first.raw.includes(SKILL_MARKER), "the Skill body was in the first request already").toBe(false);
      const skillStep = run.plan.findIndex((p) => p.what === "skill");
      const after = run.fake.modelRequests.find((r) => planResults(r.toolResults).length === skillStep + 1);
      expect(
        after && allText(after.body).includes(SKILL_MARKER),
        `the Skill body did not reach the model after the skill call\n${why(run)}`,
      ).toBe(true);
    });

    it("a granted read ran exactly once through hcpx, and the result sent back is hcpx's envelope", () => {
      const env = envelopeIn(result("echo").output);
      expect(env, result("echo").output).toMatchObject({
        ok: true,
        data: { echo: ECHO_TEXT, tokenSha: sha12(run.token) },
      });
      expect(run.calls().filter((c) => c.verb === "echo" && c.argv[0] === ECHO_TEXT)).toHaveLength(1);
    });

    it("the ungranted command is no tool of the host's (hcpx serves granted commands only) and never ran", () => {
      expect(offering.tools.some((t) => t.name.includes("vault"))).toBe(false);
      expect(envelopeIn(result("ungranted").output)?.ok, result("ungranted").output).not.toBe(true);
      expect(run.calls().filter((c) => c.verb === "vault")).toEqual([]);
    });

    if (spec.gatedWrite === "stops") {
      it("the gated write does not run without a person's approval: the headless run stops at the host's approval prompt", () => {
        expect(planResults(last.toolResults).length, why(run)).toBe(
          run.plan.findIndex((p) => p.what === "unconfirmed"),
        );
        expect(
          run.calls().filter((c) => c.verb === "stamp"),
          why(run),
        ).toEqual([]);
      });
    } else if (spec.gatedWrite === "refused") {
      // issue 10: confirm: true is the model's word; the host's approval (rules adopt wrote) asks the
      // person, and in a headless run nobody answers — the gated write does not run at all
      it("the gated write does not run without a person's approval, even when the model passes confirm: true", () => {
        for (const step of ["unconfirmed", "confirmed"])
          expect(envelopeIn(result(step).output)?.ok, `${step}: ${result(step).output}`).not.toBe(true);
        expect(
          run.calls().filter((c) => c.verb === "stamp"),
          why(run),
        ).toEqual([]);
      });
    } else {
      it("the gated write reaches hcpx: without confirm confirm_required and nothing ran; with confirm it ran once", () => {
        expect(envelopeIn(result("unconfirmed").output)?.error?.code, result("unconfirmed").output).toBe(
          "confirm_required",
        );
        expect(envelopeIn(result("confirmed").output), result("confirmed").output).toMatchObject({
          ok: true,
          data: { stamped: "confirmed-1" },
        });
        expect(
          run
            .calls()
            .filter((c) => c.verb === "stamp")
            .map((c) => c.argv[0]),
        ).toEqual(["confirmed-1"]);
      });
    }

    // the confirm table (docs/confirm.md): hcpx's audit log says whether hcpx itself asked anyone
    it("no path asks twice: one asker per gated call — the host's approval, or hcpx's question, never both", () => {
      const f = join(run.home, ".local", "state", "hcpx", "audit.jsonl");
      const lines = existsSync(f)
        ? readFileSync(f, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map(
              (l) =>
                JSON.parse(l) as { verb?: string; args_sha256?: string; confirm?: { answer: string }; result: string },
            )
        : [];
      const stamps = lines.filter((l) => l.verb === "stamp");
      if (spec.refusedBy === "hcpx") {
        // the host let the call through without asking (its approval of every tool); hcpx asked once per call (2026-07-28: the
        // InputRequiredResult, "pending", then the retry with the answer; legacy: one elicitation), and nobody said yes
        const calls = new Map<string, typeof stamps>();
        for (const l of stamps) calls.set(l.args_sha256 ?? "", [...(calls.get(l.args_sha256 ?? "") ?? []), l]);
        expect(calls.size, JSON.stringify(stamps)).toBe(2);
        for (const ls of calls.values()) {
          const asked = ls.filter((l) => l.confirm?.answer === "pending").length || ls.filter((l) => l.confirm).length;
          expect(asked, JSON.stringify(ls)).toBe(1);
          expect(ls.at(-1), JSON.stringify(ls)).toMatchObject({
            result: "confirm_declined",
            confirm: { answer: expect.not.stringMatching(/^(accept|pending)$/) },
          });
        }
        return;
      }
      expect(
        stamps.filter((l) => l.confirm !== undefined),
        JSON.stringify(stamps),
      ).toEqual([]);
      // refused or stopped by the host: the call never reached hcpx; reaching hcpx: both calls, hcpx's answers
      if (spec.gatedWrite === "hcpx") expect(stamps.map((l) => l.result)).toEqual(["confirm_required", "ok"]);
      else expect(stamps, JSON.stringify(stamps)).toEqual([]);
    });

    it("the Binding value reaches the bin, and is in no request the host sent", () => {
      const calls = run.calls();
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) expect(c.token, JSON.stringify(c)).toBe(run.token);
      const leaked = run.fake.requests.filter(
        (r) => r.raw.includes(run.token) || JSON.stringify(r.headers).includes(run.token),
      );
      expect(leaked.map((r) => r.path)).toEqual([]);
    });

    if (spec.shell) {
      it("the shell route the block advertises works through the host's shell tool", () => {
        expect(run.block).toContain("hcpx exec <pack> <verb>");
        const out = result("shell").output;
        expect(envelopeIn(out), out).toMatchObject({
          ok: true,
          data: { echo: SHELL_TEXT, tokenSha: sha12(run.token) },
        });
        expect(run.calls().filter((c) => c.verb === "echo" && c.argv[0] === SHELL_TEXT)).toHaveLength(1);
      });
    } else {
      it("the block does not advertise the shell route, which cannot work in this host's shell", () => {
        expect(run.block).not.toContain("hcpx exec");
      });
    }

    it("without hcpx on PATH the block does not advertise `hcpx exec` (the MCP entry runs node + dist)", async () => {
      const w = await adopted(host, false);
      try {
        const block = readBlock(`${w.dir}/${spec.instructions}`);
        expect(block).not.toContain("hcpx exec");
        expect(block).toContain("Verbs: echo (r), stamp (w, confirm required)");
      } finally {
        rm(w.dir);
        rm(w.home);
      }
    });
  });
}
