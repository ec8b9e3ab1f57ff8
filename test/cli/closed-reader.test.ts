// A reader that leaves before hcpx is done writing (`hcpx --help | head -1`, a host that closes the
// pipe): the rest of the output goes nowhere, the command finishes and exits as it would have,
// and no stack trace is printed (src/cli/output.ts). Node reports the EPIPE as an 'error' event
// on the stream; unhandled, it ended the process with a trace wherever the command was.
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchProject, spawnHcpx, tmp } from "../support/hcpx";

/** Run `hcpx ...args` with stdout's reading end closed before the child writes; its exit code and stderr. */
async function withClosedStdout(args: string[], cwd: string, home: string) {
  const child = spawnHcpx(args, { cwd, env: { HOME: home } });
  child.stdout.destroy(); // the reader is gone: the child's first write to fd 1 fails with EPIPE
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdin.end();
  const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
  return { code, signal, stderr };
}

describe("a reader that leaves early", () => {
  it("help, a readable command and exec's envelope: no stack trace, the exit code the command gives", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    for (const args of [
      ["--version"],
      ["--help"],
      ["pack", "new", "--help"],
      ["status"],
      ["exec", "calc-wrap", "ping", "--json"],
    ]) {
      const r = await withClosedStdout(args, p.dir, tmp("hcpx-epipe-home-"));
      expect(r.stderr, args.join(" ")).not.toMatch(/\n\s+at |EPIPE|Unhandled 'error' event/);
      expect([r.code, r.signal], `${args.join(" ")}: ${r.stderr.slice(0, 300)}`).toEqual([0, null]);
    }
  });

  it("a write command finishes its work when nobody reads what it says", async () => {
    const p = scratchProject({ packs: ["calc-wrap"], allow: [] });
    const config = join(p.dir, "hcp.config.json5");
    expect(readFileSync(config, "utf8")).not.toContain("calc-wrap.ping");
    const r = await withClosedStdout(["grant", "calc-wrap.ping"], p.dir, tmp("hcpx-epipe-home-"));
    expect([r.code, r.signal], r.stderr).toEqual([0, null]);
    expect(readFileSync(config, "utf8")).toContain("calc-wrap.ping");
  });
});
