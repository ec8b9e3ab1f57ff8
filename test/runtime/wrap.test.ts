// `hcpx exec` on the example wrap packs: ledger writes change the ledger file, a
// confirm-gated write without confirm leaves it byte-identical. What a call does
// (its envelope, its exit code, its stdout and stderr, the bin's effects) is the
// subject, not exec's own process: exec runs in this process (execInProcess,
// test/support/inproc.ts), the bins it starts are real processes.
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { execInProcess } from "../support/inproc";
import { project } from "./support";

let dir: string;
let ledgerFile: string;

const exec = (args: string[]) => execInProcess(["exec", ...args], { cwd: dir });
const json = async (args: string[]) => {
  const r = await exec([...args.slice(0, 2), "--json", ...args.slice(2)]);
  return { ...r, env: JSON.parse(r.stdout) as { ok: boolean; data?: any; error?: any } };
};

beforeAll(() => {
  dir = project({ examples: ["ledger", "transit", "notes", "git"], deny: ["git.show"] }).dir;
  ledgerFile = join(dir, "ledger-data.json");
  // the ledger's file and seed come from agent_env: the runtime passes no other env to a bin
  const sf = join(dir, "packs", "ledger", "surface.json");
  const text = readFileSync(sf, "utf8");
  writeFileSync(
    sf,
    text.replace(
      'agent_env: { LEDGER_OUTPUT: "json" }',
      `agent_env: { LEDGER_OUTPUT: "json", LEDGER_FILE: ${JSON.stringify(ledgerFile)}, LEDGER_SEED: "1" }`,
    ),
  );
});

describe("hcpx exec: wrap (ledger)", () => {
  it("reads: accounts as an ok envelope, exit 0", async () => {
    const r = await json(["ledger", "accounts"]);
    expect(r.code).toBe(0);
    expect(r.env.ok).toBe(true);
    expect(r.env.data.accounts.map((a: { id: string }) => a.id).sort()).toEqual(["checking", "savings"]);
  });

  it("a write really changes the ledger file", async () => {
    await json(["ledger", "accounts"]);
    const before = existsSync(ledgerFile) ? readFileSync(ledgerFile, "utf8") : "";
    const r = await json(["ledger", "entry.add", "--", "account=checking", "amount=-12.5", "memo=coffee; rm -rf /"]);
    expect(r.env).toMatchObject({ ok: true });
    expect(r.code).toBe(0);
    const after = readFileSync(ledgerFile, "utf8");
    expect(after).not.toBe(before);
    expect(after).toContain("coffee; rm -rf /");
    const e = await json(["ledger", "entries", "--", "account=checking", "limit=1"]);
    expect(JSON.stringify(e.env.data)).toContain("coffee; rm -rf /");
  });

  it("a confirm-gated write without --confirm: confirm_required, exit 1, file byte-identical", async () => {
    await json(["ledger", "accounts"]);
    const before = readFileSync(ledgerFile);
    const r = await json(["ledger", "transfer", "--", "from=checking", "to=savings", "amount=5"]);
    expect(r.code).toBe(1);
    expect(r.env.ok).toBe(false);
    expect(r.env.error.code).toBe("confirm_required");
    expect(readFileSync(ledgerFile).equals(before)).toBe(true);
    const ok = await json(["ledger", "transfer", "--confirm", "--", "from=checking", "to=savings", "amount=5"]);
    expect(ok.env).toMatchObject({ ok: true });
    expect(readFileSync(ledgerFile).equals(before)).toBe(false);
  });

  it("args: missing, unknown, badly typed are bad_args before anything runs", async () => {
    expect((await json(["ledger", "balance"])).env.error.code).toBe("bad_args");
    expect((await json(["ledger", "balance", "--", "account=checking", "nope=1"])).env.error.code).toBe("bad_args");
    const bad = await json(["ledger", "entry.delete", "--confirm", "--", "id=abc"]);
    expect(bad.env.error.code).toBe("bad_args");
    expect(bad.env.error.message).toMatch(/id/);
    expect((await json(["ledger", "balance", "--", "account"])).env.error.code).toBe("bad_args");
  });

  it("non-zero exit of the bin: exit_nonzero with exit_code and the bin's message", async () => {
    const r = await json(["ledger", "balance", "--", "account=nosuch"]);
    expect(r.code).toBe(1);
    expect(r.env.error).toMatchObject({ code: "exit_nonzero", exit_code: 1 });
    expect(r.env.error.message).toMatch(/nosuch/);
    expect(typeof r.env.error.stderr_tail).toBe("string");
  });

  it("readable form without --json: data on stdout; errors on stderr with the code", async () => {
    const ok = await exec(["ledger", "balance", "--", "account=checking"]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toHaveProperty("balance");
    const bad = await exec(["ledger", "balance", "--", "account=nosuch"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/error \[exit_nonzero\]/);
  });
});

describe("hcpx exec: pack, verb and grant errors", () => {
  it("unknown pack, unknown verb, not granted", async () => {
    expect((await json(["nopack", "x"])).env.error.code).toBe("unknown_pack");
    const v = await json(["ledger", "nope"]);
    expect(v.env.error.code).toBe("unknown_verb");
    expect(v.code).toBe(64);
    const g = await json(["git", "show", "--", "rev=HEAD"]);
    expect(g.env.error.code).toBe("not_granted");
  });
});

describe("hcpx exec: other wrap packs", () => {
  it("transit: argv_template fallback + flags", async () => {
    const r = await json(["transit", "departures", "--", "station=airport", "limit=2", "at=08:00"]);
    expect(r.env.ok).toBe(true);
  });

  it("git: a bare bin through sandbox.bins, output text → { text }", async () => {
    spawnSync("/usr/bin/git", ["init", "-q", "-b", "trunk"], { cwd: dir });
    const r = await json(["git", "status"]);
    expect(r.env.ok).toBe(true);
    expect(r.env.data.text).toMatch(/trunk/);
  });

  it("notes: pass_through passes the operands literally, refuses other subcommands and too many args", async () => {
    const add = await json(["notes", "add", "--", "first note; $(echo hi)"]);
    expect(add.env).toMatchObject({ ok: true });
    const list = await json(["notes", "list"]);
    expect(JSON.stringify(list.env.data)).toContain("first note; $(echo hi)");
    const del = await json(["notes", "delete", "--", "1"]);
    expect(del.env.error.code).toBe("unknown_verb");
    const many = await json(["notes", "search", "--", "1", "2", "3", "4", "5", "6", "7"]);
    expect(many.env.error.code).toBe("bad_args");
  });
});
