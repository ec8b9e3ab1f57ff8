// issue 29: what `hcpx exec` loads on its start path. Node's builtins cost
// instructions to load on every call (callgrind: node:crypto ~10 M, node:os and
// the sandbox module ~2 M); exec needs neither unless a question is asked or
// sandbox.enforce is "os". Node itself lists what it loaded (process.moduleLoadList).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, run, scratchProject, tmp } from "../support/hcpx";


describe("exec's start path", () => {
  it("a plain wrap call loads neither node:crypto nor node:os (sandbox.enforce off, audit log off); the audit record alone brings node:crypto", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    const home = tmp("hcpx-start-home-");
    const out = join(tmp("hcpx-start-"), "modules.txt");
    const preload = join(tmp("hcpx-start-"), "list.cjs");
    writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join("\\n")));\n`);
    const bin = HCPX;
    const modules = async (audit: string | undefined) => {
      const r = await run(process.execPath, ["-r", preload, bin, "exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home, ...(audit ? { HCPX_AUDIT_LOG: audit } : {}) } });
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
      return readFileSync(out, "utf8").split("\n");
    };
    // the audit log off: nothing but the call
    const off = await modules("off");
    expect(off).toContain("NativeModule child_process");
    expect(off.filter((m) => /^NativeModule (crypto|os)$/.test(m))).toEqual([]);
    // the audit log on (the default): its record's args hash is the one reason node:crypto loads (docs/audit.md)
    const on = await modules(undefined);
    expect(on.filter((m) => /^NativeModule os$/.test(m))).toEqual([]);
    expect(on).toContain("NativeModule crypto");
  });
});
