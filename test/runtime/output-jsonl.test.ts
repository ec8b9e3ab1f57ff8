// Issue 26 §5: packs that fit real CLIs. `output: "jsonl"` reads JSON Lines
// (jq -c, many CLIs) as { items: [...] }; a line that is not JSON is a
// bad_output naming the line. An exit_nonzero quotes the stderr line that says
// what failed (git's `fatal: …`, followed by usage lines), not only the last.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failureLine } from "../../src/runtime/wrap";
import { scratchProject } from "../support/project";

const BIN = `#!/usr/bin/env node
const mode = process.argv[2];
if (mode === "lines") process.stdout.write('{"id":1,"name":"a"}\\n\\n{"id":2,"name":"b"}\\n');
else if (mode === "bad") process.stdout.write('{"id":1}\\nnot json\\n');
else if (mode === "none") process.stdout.write("");
else { process.stderr.write("fatal: ambiguous argument 'nope': unknown revision or path not in the working tree.\\nUse '--' to separate paths from revisions, like this:\\n'git <command> [<revision>...] -- [<file>...]'\\n"); process.exit(128); }
`;

function project() {
  const p = scratchProject({ packs: [], allow: ["lines.*"] });
  const dir = join(p.dir, "packs/lines");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "emit.mjs"), BIN);
  chmodSync(join(dir, "emit.mjs"), 0o755);
  const cmd = (v: string) => `{ verb_key: "${v}", summary: "Emit ${v}", cli: ["lines", "${v}"] }`;
  writeFileSync(
    join(dir, "surface.json"),
    `{ hcp: "1.1", id: "lines", version: "0.1.0", description: "JSON Lines", kind: "wrap", wrap: { bin: "./emit.mjs", output: "jsonl" }, commands: [${["lines", "bad", "none", "fail"].map(cmd).join(", ")}] }\n`,
  );
  writeFileSync(
    join(dir, "policy.json"),
    `{ rows: { lines: { operation: "read" }, bad: { operation: "read" }, none: { operation: "read" }, fail: { operation: "read" } } }\n`,
  );
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: lines\ndescription: "JSON Lines test pack"\nleads:\n  - "lines: emit JSON Lines"\n---\n\n# lines\n\n| verb | what it does | read/write |\n|---|---|---|\n| \`lines\` | Emit lines | read |\n| \`bad\` | Emit bad | read |\n| \`none\` | Emit none | read |\n| \`fail\` | Fail | read |\n`,
  );
  writeFileSync(
    p.config,
    JSON.stringify(
      {
        packs: ["./packs/lines"],
        principal: { id: "t", kind: "agent" },
        grants: { allow: ["lines.*"], deny: [] },
        sandbox: { bins: {}, roots: ["."], cwd: "." },
      },
      null,
      2,
    ) + "\n",
  );
  return p;
}

describe("output: jsonl", () => {
  it("one JSON value per line becomes { items }; blank lines skipped; no output is no items; a bad line is named", async () => {
    const p = project();
    const ok = await p.run(["exec", "lines", "lines", "--json"]);
    expect(ok.code, ok.stderr + ok.stdout).toBe(0);
    expect(JSON.parse(ok.stdout).data).toEqual({
      items: [
        { id: 1, name: "a" },
        { id: 2, name: "b" },
      ],
    });
    expect(JSON.parse((await p.run(["exec", "lines", "none", "--json"])).stdout).data).toEqual({ items: [] });
    const bad = await p.run(["exec", "lines", "bad", "--json"]);
    expect(bad.code).not.toBe(0);
    const e = JSON.parse(bad.stdout).error;
    expect(e.code).toBe("bad_output");
    expect(e.message).toMatch(/line 2 of its output/);
  });

  it("exit_nonzero quotes the line that says what failed (git's fatal:), not the usage line after it", async () => {
    const p = project();
    const r = await p.run(["exec", "lines", "fail", "--json"]);
    const e = JSON.parse(r.stdout).error;
    expect(e.code).toBe("exit_nonzero");
    expect(e.message).toContain("fatal: ambiguous argument 'nope'");
    expect(failureLine("warning: x\nerror: pathspec 'y' did not match\nhint: z")).toBe(
      "error: pathspec 'y' did not match",
    );
    expect(failureLine('jq: error (at <stdin>:1): Cannot index number with "a"')).toContain("jq: error");
    expect(failureLine("just a line\nlast line")).toBe("last line");
  });
});
