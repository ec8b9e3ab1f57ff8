// hcpx doctor (§12.1.3, §12.1.7): is this project healthy? The checks are the
// doctor use case's (src/app/doctor.ts); this module renders them and owns the
// check that starts `hcpx mcp` as an MCP host would.
// Exit 0 healthy, 2 warnings, 1 failure.
import type { Project } from "../../pack/model";
import type { CommonOpts } from "../../config/common";
import { doctor, type Check, type CheckStatus } from "../../app/doctor";
import { c, finish, makeOut, sayRaw } from "../output";
import { msOption } from "../options";
import { BROKEN_HEADER } from "../../mcp/view";

export { MIN_NODE, type Check, type CheckStatus } from "../../app/doctor";

export async function run(opts: CommonOpts & { mcpTimeout?: string }): Promise<number> {
  const out = makeOut(opts);
  const mcpTimeout = msOption("--mcp-timeout", opts.mcpTimeout, 15000);
  const checks = await doctor({ config: opts.config, mcpCheck: (project) => mcpCheck(project, mcpTimeout) });

  const fails = checks.filter((x) => x.status === "fail").length;
  const warns = checks.filter((x) => x.status === "warn").length;
  const code = fails ? 1 : warns ? 2 : 0;
  const summary = fails ? `${fails} check(s) failed${warns ? `, ${warns} warning(s)` : ""}` : warns ? `healthy, with ${warns} warning(s)` : "healthy";
  if (out.json) {
    finish(out, code, { status: fails ? "unhealthy" : warns ? "warnings" : "healthy", checks }, { code: fails ? "unhealthy" : "warnings", message: summary, hint: checks.find((x) => x.status === (fails ? "fail" : "warn"))?.hint });
  } else {
    const col = out.color;
    const mark = (s: CheckStatus) => (s === "ok" ? c.green(col, "✓") : s === "warn" ? c.yellow(col, "!") : c.red(col, "✗"));
    const lines = checks.map((x) => `${mark(x.status)} ${x.message}${x.status !== "ok" && x.hint ? `\n    ${c.dim(col, `→ ${x.hint}`)}` : ""}`);
    lines.push("", fails ? c.red(col, summary) : warns ? c.yellow(col, summary) : c.green(col, summary));
    sayRaw(lines.join("\n") + "\n");
  }
  return code;
}

/**
 * Start `hcpx mcp` as an MCP host would and ask for its tools over stdio, with
 * the MCP SDK's own Client and StdioClientTransport (loaded only here). The
 * whole check is bounded by `timeoutMs`: a server that does not answer is
 * killed, not waited for.
 */
async function mcpCheck(project: Project, timeoutMs: number): Promise<Check> {
  const entry = process.argv[1];
  if (!entry) return { id: "mcp", status: "warn", message: "cannot tell how hcpx was started; skipped the MCP check" };
  const args = [entry, "mcp", ...(project.configFile ? ["--config", project.configFile] : [])];
  // dist/lib/mcp-adapter.mjs at run time (scripts/build.mjs): the SDK client bundled once
  const { Client, StdioClientTransport, ErrorCode, McpError } = await import("../../runtime/mcp-adapter");
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: project.root, env: process.env as Record<string, string>, stderr: "pipe" });
  let stderr = "";
  (transport.stderr as NodeJS.ReadableStream | null)?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const client = new Client({ name: "hcpx-doctor", version: "1" });
  const exited = (): Check => ({ id: "mcp", status: "fail", message: `hcpx mcp exited before listing its tools${stderr.trim() ? `: ${stderr.trim().split("\n")[0]}` : ""}`, hint: "run `hcpx mcp` by hand to see why" });
  return new Promise<Check>((resolveCheck) => {
    let settled = false;
    const finish = (c: Check) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // no grace period for a server that misbehaved: stop it now (close() would wait up to 4 s)
      if (c.status !== "ok" && transport.pid) {
        try {
          process.kill(transport.pid, "SIGKILL");
        } catch {
          /* already gone */
        }
      }
      void client.close().catch(() => undefined);
      resolveCheck(c);
    };
    const timer = setTimeout(() => finish({ id: "mcp", status: "fail", message: `hcpx mcp did not answer within ${timeoutMs} ms`, hint: "run `hcpx mcp` by hand and look at its stderr" }), timeoutMs);
    client.onerror = (e: Error) => {
      // the transport reports a line it cannot read as JSON-RPC (JSON.parse, or the message schema)
      if (e instanceof SyntaxError || e.name === "ZodError" || /JSON|Unexpected token/i.test(e.message)) finish({ id: "mcp", status: "fail", message: "hcpx mcp wrote something that is not JSON-RPC on stdout", hint: "a pack or hook may be printing to stdout" });
    };
    client.onclose = () => finish(exited());
    void (async () => {
      try {
        await client.connect(transport, { timeout: timeoutMs });
      } catch (e) {
        if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) return finish(exited());
        if (e instanceof McpError) return finish({ id: "mcp", status: "fail", message: `hcpx mcp answered an error: ${e.message}` });
        return finish({ id: "mcp", status: "fail", message: `hcpx mcp did not start: ${(e as Error).message}` });
      }
      try {
        const { tools } = await client.listTools(undefined, { timeout: timeoutMs });
        const names = tools.map((t) => t.name);
        const listed = `hcpx mcp starts and lists ${names.length} tool(s)${names.length ? `: ${names.slice(0, 5).join(", ")}${names.length > 5 ? ", …" : ""}` : ""}`;
        // the server names the packs it does not serve in its tools' descriptions (src/mcp/view.ts)
        const note = tools.map((t) => t.description ?? "").find((d) => d.includes(BROKEN_HEADER));
        const broken = note ? note.slice(note.indexOf(BROKEN_HEADER)).split("\n").filter((l) => l.startsWith("- ")) : [];
        if (broken.length) return finish({ id: "mcp", status: "fail", message: `${listed}; it does not serve ${broken.length} broken pack(s): ${broken.map((l) => l.slice(2)).join("; ")}`, hint: "fix the pack (hcpx lint), or deactivate it" });
        return finish({ id: "mcp", status: "ok", message: listed });
      } catch (e) {
        if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) return finish(exited());
        return finish({ id: "mcp", status: "fail", message: `hcpx mcp answered an error: ${(e as Error).message}` });
      }
    })();
  });
}
