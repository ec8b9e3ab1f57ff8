// activate / deactivate / grant / revoke edit hcp.config.json5 in place: every
// byte outside the changed array stays as the person wrote it.
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import JSON5 from "json5";
import { HAND, envelope, hcpx as hcpxChild, project, tmp } from "./helpers";
import { needsProcess, runInProcessChecked } from "../support/inproc";

/** activate, deactivate, grant, revoke (what they write and refuse) as function calls in this process (test/support/inproc.ts); exec as a process */
const hcpx = (args: string[], cwd: string, env?: NodeJS.ProcessEnv) =>
  needsProcess(args) ? hcpxChild(args, cwd, env) : runInProcessChecked(args, { cwd, env });

const TRANSIT_READS = ["transit.plan", "transit.departures", "transit.stops", "transit.lines"];
const withTransit = HAND.replace(
  "'./packs/ledger',   // money\n",
  "'./packs/ledger',   // money\n    './packs/transit',\n",
).replace(
  "      'ledger.balance',\n",
  "      'ledger.balance',\n" + TRANSIT_READS.map((p) => `      '${p}',\n`).join(""),
);

describe("hcpx activate / deactivate", () => {
  it("activates a pack keeping the hand-edited config byte for byte, granting reads only; deactivate restores it", async () => {
    const p = project();
    const r = await hcpx(["activate", "packs/transit", "--json"], p.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(p.read()).toBe(withTransit);
    expect(envelope(r)).toMatchObject({
      ok: true,
      data: { pack: "transit", entry: "./packs/transit", alreadyActive: false, granted: TRANSIT_READS },
    });
    const d = await hcpx(["deactivate", "transit"], p.dir);
    expect(d.code, d.stderr).toBe(0);
    expect(p.read()).toBe(HAND);
  });

  it("says which writes a pattern already in the grants covers: activate granted none, but they run", async () => {
    const p = project(`{ packs: [], grants: { allow: ["ledger.*"], deny: ["ledger.entry.delete"] } }\n`);
    const r = await hcpx(["activate", "./packs/ledger", "--json"], p.dir);
    expect(r.code, r.stderr).toBe(0);
    const env = envelope<{ grantedBy: { verb: string; operation: string; by: string[] }[]; withheld: unknown[] }>(r);
    expect(env.data.grantedBy.map((g) => g.verb).sort()).toEqual(["account.open", "entry.add", "transfer"]);
    expect(env.data.grantedBy.find((g) => g.verb === "transfer")).toMatchObject({
      operation: "write",
      by: ["ledger.*"],
    });
    const human = await hcpx(["activate", "./packs/ledger"], p.dir);
    expect(human.stdout).toContain(
      "already granted by 'ledger.*': ledger.account.open (write), ledger.entry.add (write), ledger.transfer (write, confirm)",
    );
  });

  it("grants the reads of a pack with writes, and says how to grant a write", async () => {
    const p = project(`{ packs: [], grants: { allow: [] } }\n`);
    const r = await hcpx(["activate", "./packs/ledger", "--json"], p.dir);
    expect(r.code, r.stderr).toBe(0);
    const env = envelope<{ granted: string[]; withheld: { verb: string; operation: string; confirm: boolean }[] }>(r);
    expect(env.ok).toBe(true);
    expect(env.data.granted.sort()).toEqual(["ledger.accounts", "ledger.balance", "ledger.doctor", "ledger.entries"]);
    expect(env.data.withheld.map((w) => w.verb).sort()).toEqual([
      "account.open",
      "entry.add",
      "entry.delete",
      "transfer",
    ]);
    expect(env.data.withheld.find((w) => w.verb === "transfer")).toMatchObject({ operation: "write", confirm: true });
    expect(p.read()).toBe(
      `{ packs: ["./packs/ledger"], grants: { allow: ["ledger.accounts", "ledger.balance", "ledger.entries", "ledger.doctor"] } }\n`,
    );
    expect(envelope(await hcpx(["activate", "./packs/ledger", "--json"], p.dir)).data).toMatchObject({
      alreadyActive: true,
    });
    const human = await hcpx(["activate", "./packs/ledger"], p.dir);
    // prose on purpose: the hint a person reads, naming the command to run
    expect(human.stdout).toMatch(/to grant one: hcpx grant ledger\.\S+/);
  });

  it("grants no pass-through verb, read or not: its argv is the agent's own (options that write included)", async () => {
    const p = project(`{ packs: [], grants: { allow: [] } }\n`);
    const r = await hcpx(["activate", "./packs/notes", "--json"], p.dir);
    expect(r.code, r.stderr).toBe(0);
    const env = envelope<{ granted: string[]; withheld: { verb: string; passThrough?: true }[] }>(r);
    expect(env.data.granted).toEqual([]);
    expect(env.data.withheld.map((w) => [w.verb, w.passThrough]).sort()).toEqual([
      ["add", true],
      ["list", true],
      ["search", true],
      ["show", true],
      ["tags", true],
    ]);
    expect(p.read()).toBe(`{ packs: ["./packs/notes"], grants: { allow: [] } }\n`);
    const human = await hcpx(["activate", "./packs/notes"], p.dir);
    expect(human.stdout).toContain("notes.list (read, pass-through)");
  });

  it("refuses a directory that is not a pack, and a pack with lint errors, leaving the config alone", async () => {
    const p = project();
    mkdirSync(join(p.dir, "empty"));
    const r = await hcpx(["activate", "empty", "--json"], p.dir);
    expect(r.code).toBe(1);
    expect(envelope(r).error).toMatchObject({
      code: "not_a_pack",
      file: "empty",
      hint: expect.stringContaining("hcpx pack new"),
    });
    const j = envelope(await hcpx(["activate", "nowhere", "--json"], p.dir));
    expect(j.error.code).toBe("not_a_pack");
    // lint error: the Skill table lacks a row
    writeFileSync(
      join(p.dir, "packs/transit/SKILL.md"),
      '---\nname: transit\ndescription: x\nleads: ["transit: plans"]\n---\n# transit\n',
    );
    const l = await hcpx(["activate", "packs/transit", "--json"], p.dir);
    expect(l.code).toBe(1);
    expect(envelope(l).error.code).toBe("lint_failed");
    expect(p.read()).toBe(HAND);
  });

  it("deactivate of an unknown pack lists the active ones", async () => {
    const p = project();
    const r = await hcpx(["deactivate", "nosuch", "--json"], p.dir);
    expect(r.code).toBe(64);
    expect(envelope(r).error).toMatchObject({
      code: "unknown_pack",
      message: "no active pack 'nosuch' in hcp.config.json5",
      hint: "active packs: ledger",
    });
    expect(p.read()).toBe(HAND);
  });
});

describe("hcpx grant / revoke", () => {
  it("grant appends to allow byte for byte; revoke takes it out again", async () => {
    const p = project();
    const g = await hcpx(["grant", "ledger.entry.add"], p.dir);
    expect(g.code, g.stderr).toBe(0);
    expect(p.read()).toBe(
      HAND.replace("      'ledger.balance',\n", "      'ledger.balance',\n      'ledger.entry.add',\n"),
    );
    const again = envelope<{ added: string[]; unchanged: string[] }>(
      await hcpx(["grant", "ledger.entry.add", "--json"], p.dir),
    );
    expect(again.data).toMatchObject({ added: [], unchanged: ["ledger.entry.add"] });
    const r = await hcpx(["revoke", "ledger.entry.add"], p.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(p.read()).toBe(HAND);
  });

  it("a config edit's lock goes when the command is done: no lock file left, no 'exit' listener gathered over many runs", async () => {
    const before = process.listenerCount("exit");
    for (let i = 0; i < 12; i++) {
      // a project of its own each time: one more config lock for a leak to keep
      const p = project();
      const g = await hcpx(["grant", "ledger.entry.add"], p.dir);
      expect(g.code, g.stderr).toBe(0);
      expect(existsSync(join(p.dir, ".hcp.config.json5.lock"))).toBe(false);
    }
    expect(process.listenerCount("exit")).toBe(before);
  });

  it("refuses a bad pattern with exit 64 and the pattern rule, writing nothing", async () => {
    const p = project();
    for (const bad of ["ledger", "Ledger.*", "../x.y", "ledger.*.add"]) {
      const r = await hcpx(["grant", bad, "--json"], p.dir);
      expect(r.code, bad).toBe(64);
      const e = envelope(r).error;
      expect(e.code).toBe("bad_pattern");
      expect(e.hint).toContain("<pack>.<verb>");
    }
    const h = await hcpx(["revoke", "nope", "--json"], p.dir);
    expect(h.code).toBe(64);
    expect(envelope(h).error).toMatchObject({ code: "bad_pattern", message: "'nope' is not a grant pattern" });
    expect(p.read()).toBe(HAND);
  });

  it("refuses an unknown verb of an active pack (did you mean, exit 64, nothing written); warns about a pack not active", async () => {
    const p = project();
    const r = await hcpx(["grant", "ledger.balanse", "--json"], p.dir);
    expect(r.code).toBe(64);
    const env = envelope(r);
    expect(env.error).toMatchObject({ code: "matches_nothing" });
    expect(env.error.hint).toContain("did you mean 'ledger.balance'?");
    expect(p.read()).toBe(HAND);
    const u = await hcpx(["grant", "weather.*", "--json"], p.dir);
    expect(u.code).toBe(0);
    expect(envelope<{ added: string[]; warnings: unknown[] }>(u).data).toMatchObject({
      added: ["weather.*"],
      warnings: [
        expect.objectContaining({
          code: "matches_nothing",
          severity: "warning",
          message: expect.stringContaining("no active pack 'weather'"),
        }),
      ],
    });
  });

  it("a wildcard grant with deny: revoke of one verb says to deny it, --deny does", async () => {
    const p = project(
      `{\n  packs: ["./packs/ledger"],\n  grants: {\n    allow: ["ledger.*"], // everything\n  },\n}\n`,
    );
    const r = await hcpx(["revoke", "ledger.transfer", "--json"], p.dir);
    expect(r.code).toBe(1);
    const e = envelope(r).error;
    expect(e.code).toBe("granted_by_wildcard");
    expect(e.hint).toBe("to withhold it, deny it: hcpx revoke --deny ledger.transfer");
    const d = await hcpx(["revoke", "--deny", "ledger.transfer"], p.dir);
    expect(d.code, d.stderr).toBe(0);
    expect(p.read()).toBe(
      `{\n  packs: ["./packs/ledger"],\n  grants: {\n    allow: ["ledger.*"], // everything\n    deny: ["ledger.transfer"],\n  },\n}\n`,
    );
    const s = envelope<{ packs: { commands: { verb: string; granted: boolean }[] }[] }>(
      await hcpx(["status", "--json"], p.dir),
    );
    expect(s.data.packs[0]!.commands.find((c) => c.verb === "transfer")!.granted).toBe(false);
    expect(s.data.packs[0]!.commands.find((c) => c.verb === "balance")!.granted).toBe(true);
  });

  it("revoke counts every grant exec counts: the user config's, and a `*` beside a `<pack>.*`", async () => {
    const p = project(`{ packs: ["./packs/ledger"], grants: { allow: ["ledger.balance"] } }\n`);
    const xdg = tmp("hcpx-xdg-");
    mkdirSync(join(xdg, "hcp"));
    writeFileSync(join(xdg, "hcp", "config.json5"), `{ grants: { allow: ["ledger.*"] } }\n`);
    const env = { XDG_CONFIG_HOME: xdg };
    // granted by the user config alone: not "was not granted", nothing written
    const r = await hcpx(["revoke", "ledger.transfer", "--json"], p.dir, env);
    expect(r.code).toBe(1);
    expect(envelope(r).error).toMatchObject({
      code: "granted_by_wildcard",
      message: expect.stringContaining("'ledger.*' (in "),
      hint: "to withhold it, deny it: hcpx revoke --deny ledger.transfer",
    });
    // taken out here, still granted there: refused, the config as it was (the person asked it not to run)
    const before = p.read();
    const b = await hcpx(["revoke", "ledger.balance", "--json"], p.dir, env);
    expect(b.code, b.stdout).toBe(1);
    expect(envelope(b).error).toMatchObject({
      code: "still_granted",
      message: expect.stringContaining("'ledger.*' (in "),
      hint: expect.stringContaining("hcpx revoke --deny ledger.balance"),
    });
    expect(p.read()).toBe(before);
    const q = project(`{ packs: ["./packs/ledger"], grants: { allow: ["ledger.*", "*"] } }\n`);
    const w = await hcpx(["revoke", "ledger.*", "--json"], q.dir);
    expect(w.code, w.stdout).toBe(1);
    expect(envelope(w).error).toMatchObject({
      code: "still_granted",
      message: expect.stringContaining("by '*'"),
      hint: expect.stringContaining("hcpx revoke ledger.* *"),
    });
    // both at once: nothing grants it any more
    const both = await hcpx(["revoke", "ledger.*", "*", "--json"], q.dir);
    expect(both.code, both.stdout).toBe(0);
    expect(JSON5.parse(q.read()).grants.allow).toEqual([]);
    // with --deny: withheld, whatever else grants it
    expect((await hcpx(["revoke", "ledger.balance", "--deny", "--json"], p.dir, env)).code).toBe(0);
  });

  it("every edited config still parses as JSON5 with the expected value", async () => {
    const p = project();
    await hcpx(["activate", "packs/git"], p.dir);
    await hcpx(["grant", "transit.*"], p.dir);
    const v = JSON5.parse(p.read());
    expect(v.packs).toEqual(["./packs/ledger", "./packs/git"]);
    expect(v.grants.allow).toEqual([
      "ledger.balance",
      "git.status",
      "git.log",
      "git.diff",
      "git.branch",
      "git.show",
      "transit.*",
    ]);
  });
});

describe("a config that is missing or does not parse", () => {
  const commands = [
    ["activate", "packs/transit"],
    ["deactivate", "ledger"],
    ["grant", "ledger.*"],
    ["revoke", "ledger.*"],
    ["status"],
    ["doctor"],
  ];
  it("missing: every config command says to run hcpx init", async () => {
    const empty = tmp("hcpx-noconf-");
    for (const args of commands) {
      const r = await hcpx([...args, "--json"], empty);
      expect(r.code, args.join(" ")).toBe(1);
      const env = envelope(r);
      if (args[0] === "doctor") expect(JSON.stringify(env.error)).toContain("hcpx init");
      else {
        expect(env.error.code, args.join(" ")).toBe("no_config");
        expect(env.error.hint).toContain("hcpx init");
      }
    }
  });

  it("a syntax error: line and column in the message, and the file is not rewritten", async () => {
    const broken = `{\n  packs: ["./packs/ledger"],\n  grants: { allow: ["ledger.*" "x.y"] },\n}\n`;
    const p = project(broken);
    for (const args of commands) {
      const r = await hcpx([...args, "--json"], p.dir);
      expect(r.code, args.join(" ")).toBe(1);
      const e = envelope(r).error;
      // doctor reports it as its config check; the others stop with it
      const problem =
        args[0] === "doctor"
          ? (e.details as { checks: { id: string; problems?: unknown[] }[] }).checks.find((c) => c.id === "config")
              ?.problems?.[0]
          : e;
      expect(problem, args.join(" ")).toMatchObject({
        code: "bad_json5",
        file: "hcp.config.json5",
        line: 3,
        column: expect.any(Number),
      });
    }
    const j = envelope(await hcpx(["grant", "ledger.x", "--json"], p.dir));
    expect(j.error.code).toBe("bad_json5");
    expect(j.error.line).toBe(3);
    expect(p.read()).toBe(broken);
  });
});
