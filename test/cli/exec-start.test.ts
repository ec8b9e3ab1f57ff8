// issue 29: what `hcpx exec` loads on its start path. Node's builtins cost
// instructions to load on every call (callgrind: node:crypto ~10 M, node:os and
// the sandbox module ~2 M); exec needs neither unless a question is asked or
// sandbox.enforce is "os". Node itself lists what it loaded (process.moduleLoadList).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HCPX, run, scratchProject, tmp } from "../support/hcpx";


describe("exec's start path", () => {
  it("a plain wrap call loads neither node:crypto nor node:os (sandbox.enforce off)", async () => {
    const p = scratchProject({ packs: ["calc-wrap"] });
    const home = tmp("hcpx-start-home-");
    const out = join(tmp("hcpx-start-"), "modules.txt");
    const preload = join(tmp("hcpx-start-"), "list.cjs");
    writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join("\\n")));\n`);
    const bin = HCPX;
    const r = await run(process.execPath, ["-r", preload, bin, "exec", "calc-wrap", "ping", "--json"], { cwd: p.dir, env: { HOME: home } });
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, data: { pong: true } });
    const loaded = readFileSync(out, "utf8").split("\n");
    expect(loaded).toContain("NativeModule child_process");
    expect(loaded.filter((m) => /^NativeModule (crypto|os)$/.test(m))).toEqual([]);
  });
});
