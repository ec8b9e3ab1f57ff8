// The library as a user installs it: package.json "exports", dist/lib/*.mjs
// and their .d.ts. A scratch consumer with node_modules/hcpx (a link to this
// package) is type-checked by tsc against the shipped declarations (module
// node16, the strictest resolution), compiled, and run by plain Node. The
// README's "Use packs in your own agent" examples are type-checked with it.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, run, tmp } from "../support/hcpx";
import { probeProject } from "./support";

const CONSUMER = `import { openProject, ProjectError, READ_SKILL, type ConfirmRequest, type Envelope } from "hcpx";
import { tools as aiTools } from "hcpx/ai-sdk";
import { toolResults, tools as anthropicTools } from "hcpx/anthropic";
import { tools as agentsTools } from "hcpx/openai-agents";
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolSet } from "ai";
import { Agent } from "@openai/agents";

const p = await openProject({ cwd: process.argv[2] });
const forClaude: Anthropic.Tool[] = anthropicTools(p);
const openai = p.tools("openai");
const firstName: string = openai[0]!.function.name;
const asked: string[] = [];
const set: ToolSet = aiTools(p, { confirm: async (r: ConfirmRequest) => (asked.push(r.message), r.land === "local") });
const agent = new Agent({ name: "consumer", tools: agentsTools(p) });
const env: Envelope = await p.call("calc__add", { a: 1, b: 2 });
const next: Anthropic.MessageParam | undefined = await toolResults(p, { content: [{ type: "tool_use", id: "t1", name: "calc__add", input: { a: 2, b: 2 } }] });
let broken = "";
try {
  await openProject({ config: "/nonexistent/hcp.config.json5" });
} catch (e) {
  if (e instanceof ProjectError) broken = e.code;
}
console.log(JSON.stringify({ env, next, firstName, claude: forClaude.length, ai: Object.keys(set), agent: agent.tools.map((t) => t.name), readSkill: READ_SKILL, broken, prompt: p.promptBlock.slice(0, 15) }));
`;

/** The ```ts blocks of the README's library section. */
function readmeExamples(): string[] {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const start = readme.indexOf("\n## Use packs in your own agent\n");
  expect(start).toBeGreaterThan(0);
  const rest = readme.slice(start + 1);
  const section = rest.slice(0, rest.indexOf("\n## ", 3));
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe("the package: exports, declarations, plain Node", () => {
  it("a consumer type-checks against dist/lib/*.d.ts (node16) and runs", async () => {
    const pp = probeProject({ examples: ["calc"] });
    const dir = tmp("hcpx-consumer-");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    mkdirSync(join(dir, "node_modules", "@types"), { recursive: true });
    mkdirSync(join(dir, "node_modules", "@anthropic-ai"), { recursive: true });
    mkdirSync(join(dir, "node_modules", "@openai"), { recursive: true });
    symlinkSync(REPO, join(dir, "node_modules", "hcpx"));
    for (const m of ["ai", "@anthropic-ai/sdk", "@openai/agents", "@types/node"])
      symlinkSync(join(REPO, "node_modules", m), join(dir, "node_modules", m));
    writeFileSync(join(dir, "consumer.ts"), CONSUMER);
    const examples = readmeExamples();
    expect(examples.length).toBeGreaterThanOrEqual(4);
    examples.forEach((code, i) =>
      writeFileSync(join(dir, `readme-${i}.ts`), code.includes("export ") ? code : `${code}\nexport {};\n`),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "node16",
          moduleResolution: "node16",
          strict: true,
          skipLibCheck: true,
          types: ["node"],
          outDir: "out",
        },
        files: ["consumer.ts", ...examples.map((_, i) => `readme-${i}.ts`)],
      }),
    );
    const tsc = await run(process.execPath, [join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", dir], {
      cwd: dir,
      timeoutMs: 120_000,
    });
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
    const r = await run(process.execPath, [join(dir, "out", "consumer.js"), pp.dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      env: { ok: true, data: { sum: 3 } },
      next: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: JSON.stringify({ ok: true, data: { sum: 4 } }) }],
      },
      firstName: "calc__ping",
      claude: expect.any(Number),
      ai: expect.arrayContaining(["calc__add", "probe__status", "probe__save", "hcp__read_skill"]),
      agent: expect.arrayContaining(["calc__add", "probe__save"]),
      readSkill: "hcp__read_skill",
      broken: expect.any(String),
      prompt: "<!-- hcp:prompt",
    });
  }, 180_000);

  it("the adapters are thin (no copy of the core) and leave their SDK external", () => {
    const sdk: Record<string, string | undefined> = {
      "ai-sdk": "ai",
      anthropic: undefined,
      "openai-agents": "@openai/agents",
    };
    for (const [a, peer] of Object.entries(sdk)) {
      const text = readFileSync(join(REPO, "dist", "lib", `${a}.mjs`), "utf8");
      const imports = [...text.matchAll(/from ["']([^"']+)["']/g)].map((m) => m[1]);
      expect(imports).toEqual(["node:module", ...(peer ? [peer] : [])]);
      expect(text.length).toBeLessThan(4000);
    }
    // the CLI bundles carry none of the library
    // (openProject is the library's own; confirm_declined is the runtime's too since the elicitation gate)
    for (const f of ["hcpx.cjs", "commands/exec.cjs", "commands/mcp.cjs"])
      expect(readFileSync(join(REPO, "dist", f), "utf8")).not.toContain("openProject");
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional: boolean }>;
    };
    for (const sdk of ["ai", "@anthropic-ai/sdk", "@openai/agents"]) {
      expect(pkg.dependencies?.[sdk]).toBeUndefined();
      expect(pkg.peerDependenciesMeta[sdk]).toEqual({ optional: true });
    }
  });

  it('import("hcpx") loads the entry, the redaction and the error types: the loader, runtime, projection and front come with openProject()', () => {
    // the modules dist/lib/index.mjs imports statically, at any depth (an import() is not followed)
    const seen = new Set<string>();
    const next = ["index.mjs"];
    while (next.length) {
      const f = next.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      const text = readFileSync(join(REPO, "dist", "lib", f), "utf8");
      for (const m of text.matchAll(/^\s*(?:import|export)\b[^;()]*?["']\.\/([^"']+)["']/gm)) next.push(m[1]!);
    }
    const loaded = [...seen].map((f) => readFileSync(join(REPO, "dist", "lib", f), "utf8")).join("\n");
    for (const heavy of ["function loadProject(", "function execute(", "function buildProjection(", "class McpFront"])
      expect(loaded, `${heavy} is loaded by import("hcpx")`).not.toContain(heavy);
    // bench/lib.bench.mjs: ~34 KB in 5 files, against ~330 KB in 15 with the loader and the runtime
    expect(loaded.length).toBeLessThan(64_000);
  });
});
