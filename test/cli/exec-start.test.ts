// issue 29: what `hcpx exec` loads on its start path. Node's builtins cost
// instructions to load on every call (callgrind: node:crypto ~10 M, node:os and
// the sandbox module ~2 M); exec needs neither unless a question is asked or
// sandbox.enforce is "os". Node itself lists what it loaded (process.moduleLoadList).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, run, scratchProject, tmp } from "../support/hcpx";

describe("exec's start path", () => {
  it("a plain wrap call loads neither node:crypto nor node:os, the audit log off or on (its args hash is @noble/hashes' sha256)", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    const home = tmp("hcpx-start-home-");
    const out = join(tmp("hcpx-start-"), "modules.txt");
    const preload = join(tmp("hcpx-start-"), "list.cjs");
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join("\\n")));\n`,
    );
    const bin = HCPX;
    const modules = async (audit: string | undefined) => {
      const r = await run(process.execPath, ["-r", preload, bin, "exec", "calc-wrap", "ping", "--json"], {
        cwd: p.dir,
        env: { HOME: home, ...(audit ? { HCPX_AUDIT_LOG: audit } : {}) },
      });
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
      return readFileSync(out, "utf8").split("\n");
    };
    // the audit log off: nothing but the call
    const off = await modules("off");
    expect(off).toContain("NativeModule child_process");
    expect(off.filter((m) => /^NativeModule (crypto|os)$/.test(m))).toEqual([]);
    // the audit log on (the default): the record is written, with its args hash, and node:crypto still not loaded
    const on = await modules(undefined);
    expect(on).toContain("NativeModule child_process");
    expect(on.filter((m) => /^NativeModule (crypto|os)$/.test(m))).toEqual([]);
    const log = readFileSync(join(home, ".local", "state", "hcpx", "audit.jsonl"), "utf8")
      .trim()
      .split("\n");
    const rec = JSON.parse(log.at(-1)!) as { pack: string; verb: string; args: unknown; args_sha256: string };
    expect(rec).toMatchObject({ pack: "calc-wrap", verb: "ping", args: [] });
    // sha256 of the canonical JSON "[]"
    expect(rec.args_sha256).toBe("4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945");
  });
});
