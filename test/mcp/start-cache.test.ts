// Issue 29: `hcpx mcp` on stdio takes the packs' validated files from the
// validation cache (as hcpx exec does), so a start does not parse and
// validate every pack again. A pack edited since — even to the same size —
// is read and validated again: an edit that breaks it is refused, not served
// from the cache. `hcpx mcp --http` takes them from the same cache: each call
// reads its pack again, and without the cache every call ran zod over it.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { grantedLedger, ledgerProject, startMcp, writeConfig, type Ledgered } from "./support";
import { serve } from "./http-support";
import { RACY_MS } from "../../src/mcp/stamp";
import { HCPX, REPO } from "../support/cli";
import { mcpStart } from "../support/mcp-lines.mjs";
import { until } from "../support/until";

// the projects of the cases that need their files settled (older than the racy
// window: the caches keep no file changed within RACY_MS of its read), all made
// first, so that they age at once: the first case to need them waits, the others
// find them aged (each is its case's own: the cases change them)
let made: number;
let broken: Ledgered;
let http: Ledgered;
let listing: Ledgered;
let prebuild: Ledgered;
beforeAll(() => {
  broken = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
  http = grantedLedger();
  listing = ledgerProject({ packs: ["ledger", "transit"], allow: ["ledger.*", "transit.*"] });
  prebuild = ledgerProject({ packs: ["ledger"] });
  // after the last file is written (before it, a slow machine's writes could end past the margin)
  made = Date.now();
});
/** the projects made above are settled: RACY_MS + 100 after they were made */
const settled = () => new Promise((r) => setTimeout(r, Math.max(0, made + RACY_MS + 100 - Date.now())));

describe("hcpx mcp start: the validation cache", () => {
  it("a pack broken after a start that filled the cache is broken at the next start", async () => {
    const p = broken;
    // settled: the validation cache keeps no file changed within RACY_MS of its read (src/pack/validcache.ts)
    await settled();
    const first = await startMcp(p, { args: ["--no-watch"] });
    expect((await first.client.listTools()).tools.find((t) => t.name === "hcp")!.description).toContain("- transit:");
    await first.close();
    // the start filled the cache (surface.json and policy.json of each pack)
    expect(readdirSync(join(p.home, ".cache", "hcpx", "validated")).length).toBeGreaterThanOrEqual(4);
    const file = join(p.dir, "packs", "transit", "policy.json");
    const text = readFileSync(file, "utf8");
    // same size: "read" → "reed" is no operation
    const bad = text.replace('"read"', '"reed"');
    expect(bad.length).toBe(text.length);
    expect(bad).not.toBe(text);
    writeFileSync(file, bad);
    const second = await startMcp(p, { args: ["--no-watch"] });
    const hcp = (await second.client.listTools()).tools.find((t) => t.name === "hcp")!.description!;
    expect(hcp).not.toContain("- transit:");
    expect(hcp).toContain("Not served, broken");
    await second.close();
  });

  it("hcpx mcp --http fills the same cache, and a pack broken since is refused, not served from it", async () => {
    const p = http;
    // settled: the validation cache keeps no file changed within RACY_MS of its read (src/pack/validcache.ts)
    await settled();
    const env = { PATH: process.env.PATH ?? "", HOME: p.home, LEDGER_FILE: p.ledger, HCPX_AUDIT_LOG: "off" };
    const s = await serve({ dir: p.dir, env }, ["--no-auth"]);
    try {
      const c = new ClientV2({ name: "v2", version: "1" }, { versionNegotiation: { mode: "auto" } });
      await c.connect(new HttpV2(new URL(s.url)));
      const call = async () =>
        (
          await c.callTool({
            name: "hcp",
            arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
          })
        ).structuredContent as { ok: boolean; error?: { code: string } };
      expect((await call()).ok).toBe(true);
      expect(readdirSync(join(p.home, ".cache", "hcpx", "validated")).length).toBeGreaterThanOrEqual(2);
      const file = join(p.dir, "packs", "ledger", "policy.json");
      const text = readFileSync(file, "utf8");
      const bad = text.replace('"read"', '"reed"');
      expect(bad.length).toBe(text.length);
      writeFileSync(file, bad);
      const r = await call();
      expect(r.ok).toBe(false);
      await c.close();
    } finally {
      await s.stop();
    }
  });
});

// The start cache (src/mcp/start-cache.ts): a start answers initialize and the
// first tools/list from what the last start built, while every file that was
// built from (the config, the user config, each pack's three files) is as it
// was; the view itself is built when a call or a Skill needs it. A change of
// any of them, a grant, a pack added or removed, a same-size edit, is served
// at the next start. An entry is only kept when no file changed within 2 s
// of the start reading it: two same-size writes within one clock tick can
// leave a file's identity as it was.
describe("hcpx mcp start: the start cache", () => {
  const FROM_CACHE = "the tool list from the start cache";
  const debug = { env: { HCPX_DEBUG: "1" } };
  const list = async (s: Awaited<ReturnType<typeof startMcp>>) => (await s.client.listTools()).tools;
  const hcp = async (s: Awaited<ReturnType<typeof startMcp>>) =>
    (await list(s)).find((t) => t.name === "hcp")!.description!;

  it("a start that read a file changed within 2 s of its read keeps no entry (here a Skill whose mtime is ahead of the clock: always within)", async () => {
    const p = ledgerProject({ packs: ["ledger"] });
    const ahead = new Date(Date.now() + 3_600_000);
    utimesSync(join(p.dir, "packs", "ledger", "SKILL.md"), ahead, ahead);
    const s = await startMcp(p, { args: ["--no-watch"], ...debug });
    expect((await list(s)).map((t) => t.name)).toContain("hcp");
    await s.close();
    expect(existsSync(join(p.home, ".cache", "hcpx", "mcp-start"))).toBe(false);
  });

  it("serves the same listing from the cache, calls and Skills from the files; a same-size edit, a grant, a pack added or removed show at the next start", async () => {
    const p = listing;
    // the project's files settle (older than the racy window): RACY_MS + 100 after they were made
    await settled();
    const start = () => startMcp(p, { args: ["--no-watch"], ...debug });
    const cold = await start();
    const first = await list(cold);
    expect(cold.stderr()).not.toContain(FROM_CACHE);
    await cold.close();
    expect(readdirSync(join(p.home, ".cache", "hcpx", "mcp-start"))).toHaveLength(1);

    const warm = await start();
    expect(await list(warm)).toEqual(first);
    expect(warm.stderr()).toContain(FROM_CACHE);
    expect(warm.stderr()).toContain("serving 2 pack(s), 2 tool(s)");
    const r = (
      await warm.client.callTool({
        name: "hcp",
        arguments: { pack: "ledger", verb: "balance", args: { account: "checking" } },
      })
    ).structuredContent as { ok: boolean };
    expect(r.ok).toBe(true);
    expect(
      ((await warm.client.readResource({ uri: "skill://transit/SKILL.md" })).contents[0] as { text: string }).text,
    ).toContain("# transit");
    await warm.close();

    // per-command: its own entry, the same listing as a cold start's
    const pc = () => startMcp(p, { args: ["--no-watch"], shape: "per-command", ...debug });
    const pcCold = await pc();
    const pcFirst = await list(pcCold);
    await pcCold.close();
    const pcWarm = await pc();
    expect(pcWarm.stderr()).toContain(FROM_CACHE);
    expect(await list(pcWarm)).toEqual(pcFirst);
    await pcWarm.close();

    // a same-size edit that breaks transit's policy.json
    const policy = join(p.dir, "packs", "transit", "policy.json");
    const text = readFileSync(policy, "utf8");
    const bad = text.replace('"read"', '"reed"');
    expect(bad.length).toBe(text.length);
    writeFileSync(policy, bad);
    const edited = await start();
    expect(edited.stderr()).not.toContain(FROM_CACHE);
    expect(await hcp(edited)).toContain("Not served, broken");
    await edited.close();
    writeFileSync(policy, text);

    // a grant revoked
    writeConfig(p.config, {
      packs: ["./packs/ledger", "./packs/transit"],
      principal: { id: "test", kind: "agent" },
      grants: { allow: ["ledger.*"], deny: [] },
      sandbox: { bins: {}, roots: ["."], cwd: "." },
    });
    const revoked = await start();
    expect(revoked.stderr()).not.toContain(FROM_CACHE);
    const d = await hcp(revoked);
    expect(d).toContain("- ledger:");
    expect(d).not.toContain("- transit:");
    await revoked.close();

    // a pack removed, then added back
    writeConfig(p.config, {
      packs: ["./packs/ledger"],
      principal: { id: "test", kind: "agent" },
      grants: { allow: ["ledger.*", "transit.*"], deny: [] },
      sandbox: { bins: {}, roots: ["."], cwd: "." },
    });
    const removed = await start();
    expect((await removed.client.listResources()).resources.map((r) => r.uri)).toEqual(["skill://ledger/SKILL.md"]);
    expect(await hcp(removed)).not.toContain("- transit:");
    await removed.close();
    writeConfig(p.config, {
      packs: ["./packs/ledger", "./packs/transit"],
      principal: { id: "test", kind: "agent" },
      grants: { allow: ["ledger.*", "transit.*"], deny: [] },
      sandbox: { bins: {}, roots: ["."], cwd: "." },
    });
    const added = await start();
    expect(added.stderr()).not.toContain(FROM_CACHE);
    expect(await hcp(added)).toContain("- transit:");
    expect(await list(added)).toEqual(first);
    await added.close();
  });
});

// A start answered from the start cache builds the view calls need 300 ms after its first tools/list
// (src/mcp/server.ts prebuildView), unless stdin has ended: no call can come. A loop held past those
// 300 ms right after the answer (a slow machine; valgrind in bench/mcp-start.bench.mjs, where 3 of 4
// starts built it, ~0.6 G instructions more at 100 packs per-command) ran the due timer before it
// polled again, and built the view though the end of the input had come meanwhile. The preload holds
// the loop and lists what is opened after the answer.
describe("hcpx mcp start: the view built after the first tools/list", () => {
  const PRELOAD = join(REPO, "test", "fixtures", "preload", "slow-after-list.cjs");
  function held(p: Ledgered, log: string, stdin: "pipe" | number) {
    const child = spawn(process.execPath, ["-r", PRELOAD, HCPX, "mcp", "--shape", "per-command", "--no-watch"], {
      cwd: p.dir,
      env: { PATH: process.env.PATH ?? "", HOME: p.home, NO_COLOR: "1", HCPX_DEBUG: "1", OPENED_AFTER_LIST: log },
      stdio: [stdin, "pipe", "pipe"],
    });
    let err = "";
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.stdout!.resume();
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    return { child, exited, stderr: () => err };
  }
  const packFiles = (log: string) =>
    (existsSync(log) ? readFileSync(log, "utf8").split("\n") : []).filter((f) => f.includes(join("packs", "ledger")));

  it("is not built when the input ended with the answer's request, and is while the input is open", async () => {
    const p = prebuild;
    await settled();
    // the first start fills the start cache
    const first = await startMcp(p, { shape: "per-command", args: ["--no-watch"] });
    expect((await first.client.listTools()).tools.map((t) => t.name)).toContain("ledger__accounts");
    await first.close();

    // the input whole and ended, a file (Node reads it on its thread pool: its end comes to the loop in a
    // poll, after the timers): the end is read when the timer is due
    const input = join(p.dir, "input.jsonl");
    writeFileSync(input, mcpStart("legacy"));
    const fd = openSync(input, "r");
    const endedLog = join(p.dir, "opened-ended.txt");
    const ended = held(p, endedLog, fd);
    closeSync(fd);
    expect(await ended.exited).toBe(0);
    expect(ended.stderr()).toContain("the tool list from the start cache");
    expect(packFiles(endedLog)).toEqual([]);

    // the input open: the view is built (what makes the check above able to fail)
    const openLog = join(p.dir, "opened-open.txt");
    const open = held(p, openLog, "pipe");
    open.child.stdin!.write(mcpStart("legacy"));
    expect(await until(() => packFiles(openLog).length > 0, 10_000)).toBe(true);
    expect(open.stderr()).toContain("the tool list from the start cache");
    open.child.stdin!.end();
    expect(await open.exited).toBe(0);
    expect(packFiles(openLog).some((f) => f.endsWith("surface.json"))).toBe(true);
  });
});
