// A host that writes its requests and closes stdin at once (or closes it right
// after a request) gets every answer: `hcpx mcp` answers each request it read
// before stdin's end — a tools/call still running is cancelled, its caller
// being gone (test/runtime/cancel*.test.ts), and answered `cancelled` — and
// writes each answer out whole before it exits.
//
// Before the fix, in about 1 of 3 runs at 100 packs per-command, the
// tools/list answer (440 KB, more than a pipe holds) was cut off by the exit
// at stdin's end, and a call still running at stdin's end was never answered. The
// reader here reads nothing until the server has exited or says it waits for
// its answers to be read, so the cut is seen on every run, not by chance.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX } from "../support/hcpx";
import { tmp } from "../support/project";
import { ledgerProject, writeConfig } from "./support";
import { MCP_OPENING as OPENING, mcpRequest as request } from "../support/mcp-lines.mjs";

interface Msg {
  id?: number;
  result?: {
    tools?: { name: string }[];
    isError?: boolean;
    structuredContent?: { ok: boolean; data?: unknown; error?: { code: string } };
  };
  error?: unknown;
}

/**
 * Feed `input` whole and close stdin; read stdout only once the server has
 * exited or logs that it waits for its answers to be read (HCPX_DEBUG), as a
 * host busy elsewhere would.
 */
async function whole(
  dir: string,
  home: string,
  args: string[],
  input: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; msgs: Msg[]; out: string; err: string }> {
  const child = spawn(process.execPath, [HCPX, "mcp", ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1", HCPX_DEBUG: "1", HCPX_AUDIT_LOG: "off", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  let out = "";
  let reading = false;
  const read = () => {
    if (reading) return;
    reading = true;
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  };
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
    if (err.includes("waiting for the host to read")) read();
  });
  // a guard against a hung server, not a timing assertion
  const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
  // read at the exit itself: a stream nobody reads is drained and dropped by Node once the child exits
  const exited = new Promise<number | null>((r) =>
    child.on("exit", (code) => {
      read();
      r(code);
    }),
  );
  const closed = new Promise<void>((r) => child.on("close", () => r()));
  child.stdin.on("error", () => {});
  child.stdin.end(input);
  const code = await exited;
  await closed;
  clearTimeout(guard);
  const msgs: Msg[] = [];
  for (const l of out.split("\n")) {
    if (!l) continue;
    try {
      msgs.push(JSON.parse(l) as Msg);
    } catch {
      msgs.push({ error: `not JSON (cut off?): ${l.length} characters ending ${JSON.stringify(l.slice(-60))}` });
    }
  }
  return { code, msgs, out, err };
}

/** A project of `n` packs × 10 commands: its per-command tools/list is ~4.4 KB a pack. */
function manyPacks(n: number): string {
  const dir = tmp("hcpx-eof-");
  const packs: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `pack-${String(i).padStart(3, "0")}`;
    const pd = join(dir, "packs", id);
    mkdirSync(pd, { recursive: true });
    const verbs = Array.from({ length: 10 }, (_, j) => `item.get${j}`);
    const commands = verbs.map((v, j) => ({
      verb_key: v,
      summary: `Read the items of ${id}, variant ${j}`,
      cli: [id, ...v.split("."), "{{name}}"],
      args: {
        name: { type: "string", required: true, description: "Item name" },
        limit: { type: "integer", flag: "--limit", description: "At most this many" },
      },
    }));
    writeFileSync(
      join(pd, "surface.json"),
      JSON.stringify({
        hcp: "1.1",
        id,
        version: "1.0.0",
        description: `Pack ${id}`,
        kind: "wrap",
        wrap: { bin: "../../bins/x.mjs", json_flag: "--json", output: "json" },
        commands,
      }),
    );
    writeFileSync(
      join(pd, "policy.json"),
      JSON.stringify({ rows: Object.fromEntries(verbs.map((v) => [v, { operation: "read" }])) }),
    );
    writeFileSync(
      join(pd, "SKILL.md"),
      `---\nname: ${id}\ndescription: "Pack ${id}: reads items."\n---\n\n# ${id}\n\n| verb | what it does | read/write |\n|---|---|---|\n${verbs.map((v, j) => `| \`${v}\` | Read the items of ${id}, variant ${j} | read |`).join("\n")}\n`,
    );
    packs.push(`./packs/${id}`);
  }
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({ packs, principal: { id: "t", kind: "agent" }, grants: { allow: ["*"] } }),
  );
  return dir;
}

/** The ledger project with two more packs: `slow` (answers after SLOW_MS) and `stuck` (never answers; timeout_ms 1500). */
function slowProject() {
  const p = ledgerProject({ packs: ["ledger"] });
  writeFileSync(
    join(p.dir, "bins", "slow.mjs"),
    "#!/usr/bin/env node\nconst ms = Number(process.env.SLOW_MS ?? 800);\nsetTimeout(() => process.stdout.write(JSON.stringify({ slept: ms }) + '\\n'), ms);\n",
    { mode: 0o755 },
  );
  writeFileSync(join(p.dir, "bins", "stuck.mjs"), "#!/usr/bin/env node\nsetInterval(() => {}, 1 << 30);\n", {
    mode: 0o755,
  });
  for (const [id, bin, timeout] of [
    ["slow", "slow.mjs", 20_000],
    ["stuck", "stuck.mjs", 1500],
  ] as const) {
    const pd = join(p.dir, "packs", id);
    mkdirSync(pd, { recursive: true });
    writeFileSync(
      join(pd, "surface.json"),
      JSON.stringify({
        hcp: "1.1",
        id,
        version: "0.1.0",
        description: `A ${id} bin`,
        kind: "wrap",
        wrap: { bin: `../../bins/${bin}`, json_flag: null, output: "json", timeout_ms: timeout },
        binding: { env: ["SLOW_MS"] },
        commands: [{ verb_key: "wait", summary: "Wait, then answer", cli: [id, "wait"], args: {} }],
      }),
    );
    writeFileSync(join(pd, "policy.json"), JSON.stringify({ rows: { wait: { operation: "read" } } }));
    writeFileSync(
      join(pd, "SKILL.md"),
      `---\nname: ${id}\ndescription: A ${id} bin.\n---\n\n# ${id}\n\n| verb | what it does | read/write |\n|---|---|---|\n| \`wait\` | Wait, then answer | read |\n`,
    );
  }
  writeConfig(p.config, {
    packs: ["./packs/ledger", "./packs/slow", "./packs/stuck"],
    principal: { id: "test", kind: "agent" },
    grants: { allow: ["ledger.*", "slow.*", "stuck.*"], deny: [] },
    sandbox: { bins: {}, roots: ["."], cwd: "." },
  });
  return p;
}

const call = (pack: string) => ({ name: "hcp", arguments: { pack, verb: "wait" } });

describe("hcpx mcp: every request read before stdin's end is answered", () => {
  const big = manyPacks(60);
  for (const era of ["legacy", "modern"] as const) {
    it(`a tools/list larger than a pipe holds, then EOF, comes out whole (${era}, per-command, 60 packs)`, async () => {
      const r = await whole(
        big,
        tmp("hcpx-eof-home-"),
        ["--shape", "per-command", "--config", join(big, "hcp.config.json5")],
        OPENING[era] + request(era, 2, "tools/list"),
      );
      expect(r.code).toBe(0);
      const list = r.msgs.find((m) => m.id === 2);
      expect(
        list,
        `no whole tools/list answer in ${r.out.length} bytes: ${JSON.stringify(r.msgs.filter((m) => m.id !== 1)).slice(0, 300)}\n${r.err}`,
      ).toBeDefined();
      expect(list!.result!.tools!.filter((t) => t.name.startsWith("pack-"))).toHaveLength(600);
      expect(r.out.length).toBeGreaterThan(200_000);
    });

    it(`a tools/call still running at EOF is cancelled and answered so, and a tools/list read after it is answered (${era})`, async () => {
      const p = slowProject();
      const r = await whole(
        p.dir,
        p.home,
        ["--config", p.config],
        OPENING[era] + request(era, 2, "tools/call", call("slow")) + request(era, 3, "tools/list"),
        // a Binding value is at least 4 characters (binding_too_short)
        { SLOW_MS: "0800" },
      );
      expect(r.code).toBe(0);
      const byId = new Map(r.msgs.map((m) => [m.id, m]));
      expect(byId.get(2)?.result?.isError, r.err).toBe(true);
      expect(byId.get(2)?.result?.structuredContent, r.err).toMatchObject({ ok: false, error: { code: "cancelled" } });
      expect(byId.get(3)?.result?.tools?.map((t) => t.name)).toContain("hcp");
    });
  }

  it("a call whose bin never answers is cancelled at EOF, answered `cancelled` without waiting for its timeout, then the server exits", async () => {
    const p = slowProject();
    const r = await whole(
      p.dir,
      p.home,
      ["--config", p.config],
      OPENING.legacy + request("legacy", 2, "tools/call", call("stuck")),
    );
    expect(r.code).toBe(0);
    const answer = r.msgs.find((m) => m.id === 2);
    expect(answer?.result?.isError, r.err).toBe(true);
    expect(answer?.result?.structuredContent?.error?.code).toBe("cancelled");
  });
});
