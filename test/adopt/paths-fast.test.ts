// adopt names every file every host's targets point at (AdoptRun.absOf, showOf: src/host/adopt-run.ts),
// looks each host's program up on PATH (src/util/which.ts) and finds the descriptors and templates; it
// did so with node:path's join and relative, whose normalizing loop runs over every character, enough
// calls that V8 compiled that loop with its optimizing compiler. They take src/util/paths.ts's joinIn and
// relativeTo: path's own answers, without the loop for the normal paths these nearly always are
// (test/util/paths-fast.test.ts holds those answers to node:path's). callgrind, a first `adopt claude
// --write` at the bench's project: 258.3 M -> 239.4 M instructions (median of 5). Isolated (not in
// test/support/shared-worker.ts): it mocks node:path, counting its join and relative calls, and sets PATH.
import { describe, expect, it, vi } from "vitest";
import { scratchProject } from "../support/project";

// each call's callers are kept too: a bound that fails once in a whole run (94 joins, stop 69) names them
const calls = vi.hoisted(() => ({ relative: 0, join: 0, callers: new Map<string, number>() }));
vi.mock("node:path", async (original) => {
  const m = await original<typeof import("node:path")>();
  const seen = () => {
    const at = (new Error().stack ?? "")
      .split("\n")
      .slice(3, 6)
      .map((l) => l.trim())
      .join(" < ");
    calls.callers.set(at, (calls.callers.get(at) ?? 0) + 1);
  };
  const relative = (from: string, to: string) => (calls.relative++, seen(), m.relative(from, to));
  const join = (...parts: string[]) => (calls.join++, seen(), m.join(...parts));
  return { ...m, relative, join, default: { ...m, relative, join } };
});
const { planAdopt } = await import("../../src/host/engine");
const { buildProjection } = await import("../../src/projection/build");
const { loadProject } = await import("../../src/pack/load");

describe("adopt's plan", () => {
  it("takes node:path's loop a few times, not once per file a host names or per PATH entry", async () => {
    const p = scratchProject({ packs: ["ledger", "transit"], ownHome: true });
    const project = loadProject({ config: p.config });
    const path = process.env.PATH;
    // eight normal entries, none holding a host's program: every host's lookup walks them all
    process.env.PATH = [
      "/usr/local/sbin",
      "/usr/local/bin",
      "/usr/sbin",
      "/usr/bin",
      "/sbin",
      "/bin",
      "/opt/a",
      "/opt/b",
    ]
      .map((d) => `${p.dir}${d}`)
      .join(":");
    try {
      const counts = [];
      for (const hosts of [["claude"], ["claude", "codex", "cursor", "gemini"]]) {
        calls.relative = 0;
        calls.join = 0;
        calls.callers.clear();
        const plan = await planAdopt(project, hosts, (skillsPath) => buildProjection(project, [], { skillsPath }), {
          scope: "project",
          home: p.home!,
        });
        expect(plan.changes.map((c) => c.path)).toContain("CLAUDE.md");
        counts.push({
          relative: calls.relative,
          join: calls.join,
          callers: [...calls.callers].map(([at, n]) => `${n}× ${at}`),
        });
      }
      // before: relative 22 and 67, join 154 and 337 (with this machine's PATH)
      const callers = `callers:\n${counts[1]!.callers.join("\n")}`;
      expect(counts[1]!.relative, callers).toBe(counts[0]!.relative);
      expect(counts[1]!.relative, callers).toBeLessThanOrEqual(5);
      expect(counts[1]!.join, callers).toBeLessThanOrEqual(30);
    } finally {
      process.env.PATH = path;
    }
  });
});
