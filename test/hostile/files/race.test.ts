// Two at once (issue 6 item 2): adopt --write racing adopt --write (same host,
// different hosts) and activate; config edits racing config edits; stale locks
// (a dead pid written by hand, a writer SIGKILLed while it holds the lock).
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import JSON5 from "json5";
import { hcpx, snapshot, TEMP_RE } from "./helpers";
import { adoptRace, CMD, deadPid, hcpxHere, ledger, project } from "./race-cases";

describe("two adopt --write at once", () => {
  it("same host twice, and different hosts, two rounds (five in race.slow.ts): each waits for the lock; no entry of either is lost", async () => {
    await adoptRace(2);
  }, 180_000);

  it("a lock held by a live process: the second waits, then fails with the lock path and pid, writing nothing", async () => {
    const p = project();
    const before = snapshot(p.dir);
    mkdirSync(join(p.dir, ".hcp"));
    writeFileSync(join(p.dir, ".hcp/adopt.lock"), `${process.pid}\nx\n`);
    const r = await hcpx(["adopt", "claude", "--write", "--json"], p.dir, { ...p.env, HCPX_LOCK_WAIT_MS: "300" });
    expect(r.code).toBe(1);
    const locked = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; file: string; message: string } };
    expect(locked.error).toMatchObject({ code: "locked", file: ".hcp/adopt.lock" });
    expect(locked.error.message).toContain(`another hcpx adopt is running (pid ${process.pid})`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const after = snapshot(p.dir);
    delete after[".hcp/"];
    delete after[".hcp/adopt.lock"];
    expect(after).toEqual(before);
  });

  it("a stale lock (dead pid, empty, or garbage) does not block; neither does one left by a writer SIGKILLed while holding it", async () => {
    for (const content of [`${deadPid()}\n`, "", "not a pid\n"]) {
      const p = project();
      mkdirSync(join(p.dir, ".hcp"));
      writeFileSync(join(p.dir, ".hcp/adopt.lock"), content);
      // what a stale lock does to one writer: in this process (the killed writer below is a process)
      const r = await hcpxHere(["adopt", "claude", ...CMD, "--write"], p.dir, p.env);
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(p.dir, ".hcp/adopt.lock"))).toBe(false);
    }
    const p = project();
    const killed = await hcpx(["adopt", "claude", "cursor", ...CMD, "--write"], p.dir, {
      ...p.env,
      HCPX_TEST_KILL_AFTER_WRITES: "5",
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(join(p.dir, ".hcp/adopt.lock"))).toBe(true);
    const r = await hcpxHere(["adopt", "claude", "cursor", ...CMD, "--write"], p.dir, {
      ...p.env,
      HCPX_LOCK_WAIT_MS: "100",
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(p.dir, ".hcp/adopt.lock"))).toBe(false);
    expect((await hcpxHere(["adopt", "claude", "cursor", ...CMD, "--check"], p.dir, p.env)).code).toBe(0);
    expect(Object.keys(snapshot(p.dir)).filter((k) => TEMP_RE.test(k))).toEqual([]);
  });

  it("temp files of a lock left by a writer killed while taking the lock (or breaking a stale one) are removed; a live writer's are kept", async () => {
    const p = project();
    mkdirSync(join(p.dir, ".hcp"));
    const dead = deadPid();
    const leftovers = [`.hcp/adopt.lock.${dead}-k1ll3d.tmp`, `.hcp/adopt.lock.break.${dead}-k1ll3d.tmp`];
    const live = `.hcp/adopt.lock.${process.pid}-l1ve00.tmp`;
    for (const f of [...leftovers, live]) writeFileSync(join(p.dir, f), `${dead}\n`);
    const r = await hcpx(["adopt", "claude", ...CMD, "--write"], p.dir, p.env);
    expect(r.code, r.stderr).toBe(0);
    for (const f of leftovers) expect(existsSync(join(p.dir, f)), f).toBe(false);
    expect(existsSync(join(p.dir, live))).toBe(true);
  });

  it("activate racing two adopt --write: the pack is in the config, both hosts' entries in the ledger, a re-run converges", async () => {
    for (let round = 0; round < 3; round++) {
      const p = project();
      const [a, b, act] = await Promise.all([
        hcpx(["adopt", "claude", ...CMD, "--write"], p.dir, p.env),
        hcpx(["adopt", "cursor", ...CMD, "--write"], p.dir, p.env),
        hcpx(["activate", "packs/calc"], p.dir, p.env),
      ]);
      for (const r of [a, b, act]) expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(p.dir, "hcp.config.json5"), "utf8")).toContain("./packs/calc");
      expect(Object.keys(ledger(p.dir).hosts).sort()).toEqual(["claude", "cursor"]);
      // the re-run and the check race nothing: in this process
      expect((await hcpxHere(["adopt", "claude", "cursor", ...CMD, "--write"], p.dir, p.env)).code).toBe(0);
      const check = await hcpxHere(["adopt", "claude", "cursor", ...CMD, "--check"], p.dir, p.env);
      expect(check.code, check.stdout).toBe(0);
      expect(readdirSync(join(p.dir, ".claude/skills")).sort()).toEqual(["calc", "ledger", "transit"]);
    }
  }, 120_000);
});

describe("config edits at once", () => {
  it("eight grants and an activate racing on one config: every change is kept", async () => {
    const p = project();
    const pats = Array.from({ length: 8 }, (_, i) => `later${i}.read`);
    const runs = await Promise.all([
      ...pats.map((pat) => hcpx(["grant", pat], p.dir, p.env)),
      hcpx(["activate", "packs/calc"], p.dir, p.env),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const cfg = JSON5.parse(readFileSync(join(p.dir, "hcp.config.json5"), "utf8")) as {
      packs: string[];
      grants: { allow: string[] };
    };
    for (const pat of pats) expect(cfg.grants.allow).toContain(pat);
    expect(cfg.packs).toContain("./packs/calc");
    expect(cfg.grants.allow).toContain("calc.add"); // (a pass-through pack, notes, has nothing granted by activate)
    expect(readdirSync(p.dir).filter((n) => n.includes(".lock") || TEMP_RE.test(n))).toEqual([]);
  }, 60_000);

  it("a config edit SIGKILLed mid-write leaves the old bytes; its stale lock and temp file do not block or linger", async () => {
    const p = project();
    const cfg = join(p.dir, "hcp.config.json5");
    const before = readFileSync(cfg);
    const killed = await hcpx(["grant", "x.y"], p.dir, { ...p.env, HCPX_TEST_KILL_AFTER_WRITES: "1" });
    expect(killed.signal).toBe("SIGKILL");
    expect(readFileSync(cfg)).toEqual(before);
    expect(readdirSync(p.dir).filter((n) => n.endsWith(".lock") || TEMP_RE.test(n)).length).toBe(2);
    // the next edit, after the killed one, in this process
    const r = await hcpxHere(["grant", "x.z"], p.dir, { ...p.env, HCPX_LOCK_WAIT_MS: "100" });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(cfg, "utf8")).toContain('"x.z"');
    expect(readdirSync(p.dir).filter((n) => n.endsWith(".lock") || TEMP_RE.test(n))).toEqual([]);
  });

  it("a config lock held by a live process: the edit waits, then fails clearly, config untouched", async () => {
    const p = project();
    const cfg = join(p.dir, "hcp.config.json5");
    const before = readFileSync(cfg);
    writeFileSync(join(p.dir, ".hcp.config.json5.lock"), `${process.pid}\nx\n`);
    const r = await hcpx(["grant", "x.y", "--json"], p.dir, { ...p.env, HCPX_LOCK_WAIT_MS: "200" });
    expect(r.code).toBe(1);
    const locked = JSON.parse(r.stdout) as { ok: boolean; error: { code: string; file: string; message: string } };
    expect(locked.error).toMatchObject({ code: "locked", file: ".hcp.config.json5.lock" });
    expect(locked.error.message).toContain(`another hcpx command editing this config is running (pid ${process.pid})`);
    expect(readFileSync(cfg)).toEqual(before);
  });
});
