// Host e2e, issue 24 §4: Claude Code's own `claude mcp list` against what
// `hcpx adopt claude --url <url> --token-env HCP_TOKEN --write` wrote, the URL
// being a real `hcpx mcp --http` on 127.0.0.1 that authenticates with a static
// token (`hcpx token add`). With the token in HCP_TOKEN the host connects
// (✔ Connected) and `claude mcp get hcp` shows the remote entry; with a wrong
// token it does not. `doctor --url` says the same as the host. Run alone:
//   unshare -rn bash -c 'ip link set lo up && npx vitest run --config vitest.hosts.config.ts test/hosts/e2e/remote-url.test.ts'
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HCPX } from "../../support/cli";
import { tmp } from "../../support/hcpx";
import { serve, type Served } from "../../mcp/http-support";
import {
  availability,
  expectConnected,
  hc,
  hostHome,
  LEDGER_READS,
  makeWorld,
  removeAfterAll,
  type World,
} from "./support";

const avail = availability();
const cleanup = removeAfterAll();

describe.skipIf(!avail.has.claude)(
  "host e2e: Claude Code against an adopt --url entry (a real hcpx mcp --http with token auth)",
  () => {
    let w: World;
    let srv: Served;
    let token: string;
    const claudeHome = () =>
      cleanup(hostHome(w.home, { ".claude/settings.json": '{ "enableAllProjectMcpServers": true }\n' }));

    beforeAll(async () => {
      w = makeWorld();
      cleanup(w.dir, w.home);
      const state = cleanup(tmp("hcpx-e2e-state-"));
      const serverConfig = join(w.dir, "server.json5");
      writeFileSync(serverConfig, JSON.stringify({ principals: { alice: { grants: { allow: LEDGER_READS } } } }));
      const env = {
        PATH: w.env.PATH ?? "",
        HOME: w.home,
        XDG_STATE_HOME: state,
        NO_COLOR: "1",
        LEDGER_FILE: join(w.dir, "ledger.json"),
      };
      const add = spawnSync(
        process.execPath,
        [HCPX, "token", "add", "alice", "--server-config", serverConfig, "--json"],
        { cwd: w.dir, env, encoding: "utf8" },
      );
      expect(add.status, add.stdout + add.stderr).toBe(0);
      token = (JSON.parse(add.stdout) as { data: { token: string } }).data.token;
      srv = await serve({ dir: w.dir, env }, ["--server-config", serverConfig]);
      const r = await w.adopt("claude", "--url", srv.url, "--token-env", "HCP_TOKEN", "--write");
      expect(r.code, r.stdout + r.stderr).toBe(0);
    }, 120_000);
    afterAll(async () => srv?.stop());

    it("with the token in HCP_TOKEN: `claude mcp list` ✔ Connected for hcp; `claude mcp get hcp` shows the HTTP entry at the URL", async () => {
      const h = claudeHome();
      const list = await hc.claudeMcpList({ home: h, cwd: w.dir, env: { HCP_TOKEN: token } });
      expectConnected(list, ["hcp"], "claude mcp list");
      expect(list.servers.find((s) => s.name === "hcp")!.command).toContain(srv.url);
      const get = await hc.claudeMcpGet("hcp", { home: h, cwd: w.dir, env: { HCP_TOKEN: token } });
      expect(get.server.status, get.raw.stdout).toBe("connected");
      expect(get.raw.stdout).toContain(srv.url);
      expect(get.raw.stdout).not.toContain(token);
      // doctor --url agrees with the host
      const d = await w.hcpx(["doctor", "--url", srv.url, "--token-env", "HCP_TOKEN", "--json"], { HCP_TOKEN: token });
      const e = JSON.parse(d.stdout) as {
        data?: { checks: { id: string; status: string }[] };
        error?: { details: { checks: { id: string; status: string }[] } };
      };
      expect((e.data ?? e.error!.details).checks.find((c) => c.id === "remote")!.status, d.stdout).toBe("ok");
    });

    it("with a wrong token the host does not connect (the server refused it), and doctor --url says 401", async () => {
      const h = claudeHome();
      const list = await hc.claudeMcpList({ home: h, cwd: w.dir, env: { HCP_TOKEN: "hcpx_wrong-token" } });
      const hcp = list.servers.find((s) => s.name === "hcp");
      expect(hcp, list.raw.stdout + list.raw.stderr).toBeDefined();
      expect(hcp!.status, list.raw.stdout).not.toBe("connected");
      const d = await w.hcpx(["doctor", "--url", srv.url, "--token-env", "HCP_TOKEN", "--json"], {
        HCP_TOKEN: "hcpx_wrong-token",
      });
      expect(d.code).toBe(1);
      expect(d.stdout).toMatch(/HTTP 401 with the token in HCP_TOKEN/);
    });
  },
);
