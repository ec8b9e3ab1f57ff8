// The programs of GitHub Copilot CLI, Qwen Code, Factory Droid, Qoder, Kilo Code and Augment
// (installed by scripts/install-hosts.sh): how each proves it reads an MCP entry, run in a
// scratch HOME, and parsed. Findings behind each parser: test/hosts/HOST-PROBES.md, "More hosts".
import { existsSync } from "node:fs";
import { join } from "node:path";
import { hc, type Raw, type Server } from "./support";

export const MORE = ["copilot", "qwen", "droid", "qoder", "kilo", "auggie"] as const;
export type More = (typeof MORE)[number];
/** the npm bin of each host (test/hosts/package.json) */
export const BINS: Record<More, string> = {
  copilot: "copilot",
  qwen: "qwen",
  droid: "droid",
  qoder: "qodercli",
  kilo: "kilo",
  auggie: "auggie",
};

const binDir = join(hc.HOSTS_DIR, "node_modules", ".bin");
export const bin = (h: More) => join(binDir, BINS[h]);
export function moreAvailable(): { all: boolean; reason: string } {
  const missing = MORE.filter((h) => !existsSync(bin(h)));
  const reason = missing.length
    ? `host programs missing in ${hc.HOSTS_DIR} (${missing.map((h) => BINS[h]).join(", ")}): run scripts/install-hosts.sh`
    : "";
  if (missing.length) console.warn(`[host e2e] SKIPPED: ${reason}`);
  return { all: missing.length === 0, reason };
}

// Quiet, offline settings: no update checks, no telemetry (seen: each still works without network).
const QUIET: Record<string, string> = {
  NO_COLOR: "1",
  COPILOT_OFFLINE: "true",
  COPILOT_AUTO_UPDATE: "false",
  QWEN_TELEMETRY_ENABLED: "false",
  KILO_DISABLE_AUTOUPDATE: "1",
  KILO_DISABLE_MODELS_FETCH: "1",
  KILO_DISABLE_LSP_DOWNLOAD: "1",
  KILO_DISABLE_SHARE: "1",
};
export const env = (home: string, extra: Record<string, string> = {}) => hc.hostEnv(home, { ...QUIET, ...extra });

const strip = (s: string) => s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/\x1b\][^\x07]*\x07/g, "");

export interface Listing {
  servers: Server[];
  raw: Raw;
}

/** Run `<bin> <args>` in `cwd` with HOME `home`; no network at all where unshare allows it. */
export async function runHost(
  h: More,
  args: string[],
  o: { home: string; cwd: string; env?: Record<string, string>; offline?: boolean; timeoutMs?: number },
): Promise<Raw> {
  return hc.run(bin(h), args, {
    cwd: o.cwd,
    env: { ...env(o.home, o.env), PWD: o.cwd },
    timeoutMs: o.timeoutMs ?? 120_000,
    ...(o.offline === false ? {} : { offline: true }),
  } as Parameters<typeof hc.run>[2]);
}

/**
 * `copilot mcp list` reads the config only (no connection): "User servers:" /
 * "Workspace servers:" headings, then `  <name> (local)`. Status `configured`, with the scope.
 */
export function parseCopilotMcpList(text: string): Server[] {
  const out: Server[] = [];
  let scope = "";
  for (const line of strip(text).split("\n")) {
    const h = /^(\w+) servers:$/.exec(line.trim());
    if (h) scope = h[1]!.toLowerCase();
    const m = /^ {2}(\S+) \((\w+)\)$/.exec(line);
    if (m) out.push({ name: m[1]!, status: "configured", detail: `${scope} ${m[2]}` });
  }
  return out;
}

/** Qwen Code and Qoder (Gemini CLI's listing): `✓ <name>: <command> (stdio) - Connected[ · …]`, `● … - Pending approval`. */
export function parseCheckList(text: string): Server[] {
  const out: Server[] = [];
  for (const line of strip(text).split("\n")) {
    const m = /^([✓✗○●…])\s+(\S[^:]*?): (.*) - (\w[\w ]*?)(?: · .*)?$/u.exec(line.trim());
    if (!m) continue;
    const word = m[4]!.trim();
    out.push({
      name: m[2]!,
      status:
        ({ Connected: "connected", Disconnected: "failed", "Pending approval": "pending" } as Record<string, string>)[
          word
        ] ?? word.toLowerCase(),
      command: m[3],
      detail: word,
    });
  }
  return out;
}

/** `droid mcp list`: `  <name>  stdio  connected  [project]`. */
export function parseDroidMcpList(text: string): Server[] {
  const out: Server[] = [];
  for (const line of strip(text).split("\n")) {
    const m = /^\s+(\S+)\s+(stdio|http|sse)\s+(\w[\w ]*?)\s+\[(\w+)\]\s*$/.exec(line);
    if (m) out.push({ name: m[1]!, status: m[3] === "connected" ? "connected" : m[3]!, detail: m[4] });
  }
  return out;
}

/** `kilo mcp list` (opencode's listing): `●  ✓ <name> connected`. */
export function parseKiloMcpList(text: string): Server[] {
  const out: Server[] = [];
  for (const line of strip(text).split("\n")) {
    const m = /^[●○◆◇■]?\s*([✓✗○⚠!])\s+(\S+)\s+(\S.*)$/u.exec(line.trim());
    if (m) out.push({ name: m[2]!, status: m[3]!.trim() === "connected" ? "connected" : m[3]!.trim() });
  }
  return out;
}

/** Auggie's start of a `--print` run: `🔌 Waiting for N MCP server(s) to initialize...` then `   ✅ <name>` (`❌ <name>` on failure). */
export function parseAuggieStart(text: string): Server[] {
  const out: Server[] = [];
  for (const line of strip(text).split("\n")) {
    const m = /^\s*(✅|❌)\s+(\S+)\s*$/u.exec(line);
    if (m) out.push({ name: m[2]!, status: m[1] === "✅" ? "connected" : "failed" });
  }
  return out;
}

export async function listing(h: Exclude<More, "auggie">, o: { home: string; cwd: string }): Promise<Listing> {
  const raw = await runHost(h, ["mcp", "list"], o);
  const text = raw.stdout + "\n" + raw.stderr;
  const servers =
    h === "copilot"
      ? parseCopilotMcpList(text)
      : h === "droid"
        ? parseDroidMcpList(text)
        : h === "kilo"
          ? parseKiloMcpList(text)
          : parseCheckList(text);
  return { servers, raw };
}

/** Auggie pointed at a fake Augment API (`tenantURL`): its session needs accessToken, tenantURL and a `scopes` array. */
export const auggieAuth = (url: string) => ({
  AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: "fake", tenantURL: `${url}/`, scopes: ["email"] }),
});

/** Copilot CLI pointed at an OpenAI-compatible fake model (chat completions). */
export const copilotModel = (url: string) => ({
  COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
  COPILOT_PROVIDER_API_KEY: "sk-fake",
  COPILOT_MODEL: "fake-model",
});

export function why(l: Listing, what: string): string {
  return `${what}: ${JSON.stringify(l.servers)}\nexit ${l.raw.code}${l.raw.timedOut ? " (timed out)" : ""}\nstdout:\n${l.raw.stdout.slice(-3000)}\nstderr:\n${l.raw.stderr.slice(-3000)}`;
}
