// The Skill copy's read/write cell is made true whenever it does not state what
// policy.json says, read as lint reads it (src/pack/policycell.ts): a cell that
// merely contains the operation word and "confirm" somewhere is not kept.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { scratchProject } from "../support/hcpx";
import { readPolicyCell, cellStates } from "../../src/pack/policycell";
import { parseSkill } from "../../src/pack/skill";
import { filterSkillBody } from "../../src/projection/skillcopy";
import type { Command } from "../../src/pack/model";

/** A SKILL.md of pack p: its frontmatter, then these body lines. */
const skill = (...body: string[]) => ["---", "name: p", "description: d", "---", "", ...body].join("\n");

const cmd = (verb_key: string, operation: "read" | "write", confirm = false): Command =>
  ({ verb_key, summary: verb_key, args: {}, policy: { operation, confirm, inferred: false } }) as unknown as Command;

/** readPolicyCell as it was written with the `i` flag, the reference the lower-case reading must agree with. */
function caseBlind(cell: string) {
  const op = /\b(read|write)\b/i.exec(cell)?.[1]?.toLowerCase();
  const before =
    /\b(?:no|not|without|never|skips?|skipped|skipping|non)[\s-]+(?:(?:a|an|any|the|user|users|person|person's|human|explicit|prior|need|needed|required|to)\s+){0,3}confirm\b/i;
  const after = /\bconfirm\b\s*(?:[:=]\s*)?(?:no|none|false|off|never|not|optional|unneeded|n\/a)(?![\w/])/i;
  return { operation: op, confirm: /\bconfirm\b/i.test(cell) && !before.test(cell) && !after.test(cell) };
}

describe("the read/write cell, read one way", () => {
  it("reads a cell in lower case as the case-blind patterns did (property), and the Kelvin sign as a k", () => {
    const words = [
      "read",
      "Write",
      "WRITE",
      "confirm",
      "Confirm",
      "CONFIRM",
      "no",
      "Not",
      "without",
      "skip",
      "Skipped",
    ];
    const more = [
      "the",
      "user's",
      "person's",
      "need",
      "to",
      "n/a",
      "optional",
      "none",
      "OFF",
      ":",
      "=",
      "-",
      ", ",
      " ",
      "ü",
      "É",
      "ß",
      "İ",
      "_",
    ];
    const cell = fc
      .array(fc.oneof(fc.constantFrom(...words, ...more), fc.string({ maxLength: 3 })), { maxLength: 9 })
      .map((xs) => xs.join(" "))
      .filter((c) => !c.includes("\u212a"));
    fc.assert(
      fc.property(cell, (c) => {
        expect(readPolicyCell(c)).toEqual(caseBlind(c));
      }),
      { numRuns: 3000 },
    );
    expect(readPolicyCell("write, s\u212Aip confirm")).toEqual({ operation: "write", confirm: false });
    expect(caseBlind("write, s\u212Aip confirm")).toEqual({ operation: "write", confirm: true });
  });

  it("whole words: `unconfirmed` is no confirm marker, `write (already read)` says write", () => {
    expect(readPolicyCell("write, unconfirmed (runs at once)")).toEqual({ operation: "write", confirm: false });
    expect(readPolicyCell("write (already read)").operation).toBe("write");
    expect(readPolicyCell("⚠ write, needs confirm")).toEqual({ operation: "write", confirm: true });
    expect(readPolicyCell("reader")).toEqual({ operation: undefined, confirm: false });
  });
  it("a negated `confirm` is no marker: `write, no confirm` of a gated write is refused and rewritten, of an ungated one kept", () => {
    for (const cell of [
      "write, no confirm",
      "write (no-confirm)",
      "write, without the person's confirm",
      "write, never confirm",
      "write, confirm: no",
      "write; confirm not needed",
      "write, confirm optional",
      "write, confirm=false",
      "write, no need to confirm",
    ])
      expect(readPolicyCell(cell), cell).toEqual({ operation: "write", confirm: false });
    // a negation elsewhere in the cell is not about the marker
    expect(readPolicyCell("write, no undo; confirm")).toEqual({ operation: "write", confirm: true });
    expect(readPolicyCell("write, confirm (nothing runs unasked)")).toEqual({ operation: "write", confirm: true });
    expect(cellStates("write, no confirm", { operation: "write", confirm: true })).toBe(false);
    expect(cellStates("write, no confirm", { operation: "write", confirm: false })).toBe(true);
  });
  it("a cell states the policy only when both its operation and its confirm marker agree", () => {
    const gated = { operation: "write", confirm: true } as const;
    expect(cellStates("write, confirm", gated)).toBe(true);
    expect(cellStates("write, unconfirmed (runs at once)", gated)).toBe(false);
    expect(cellStates("write (already read)", { operation: "read", confirm: false })).toBe(false);
    expect(cellStates("read", { operation: "read", confirm: false })).toBe(true);
    expect(cellStates("read, confirm", { operation: "read", confirm: false })).toBe(false);
  });
});

describe("filterSkillBody: the policy cell of a granted row", () => {
  const text = skill(
    "| verb | what it does | read/write |",
    "|---|---|---|",
    "| `send` | Send it | write, unconfirmed (runs at once) |",
    "| `look` | Look | write (already read) |",
    "| `peek` | Peek |",
    "| `wipe` | Wipe it | write, no confirm |",
    "| `note` | Note it | write, no confirm |",
    "",
  );
  const parsed = parseSkill(text, "SKILL.md");
  const body = filterSkillBody(
    parsed,
    [
      cmd("send", "write", true),
      cmd("look", "read"),
      cmd("peek", "read"),
      cmd("wipe", "write", true),
      cmd("note", "write"),
    ],
    { packId: "p", verbs: [] },
  );
  it("is rewritten when it does not state the policy", () => {
    expect(body).toContain("| `send` | Send it | write, confirm |");
    // a gated write said to need no confirm: lint's reading (no marker: skill_confirm_missing) and the copy's agree
    expect(parsed.rows.find((r) => r.verb === "wipe")).toMatchObject({ operation: "write", confirm: false });
    expect(body).toContain("| `wipe` | Wipe it | write, confirm |");
    expect(body).toContain("| `note` | Note it | write, no confirm |");
    expect(body).toContain("| `look` | Look | read |");
  });
  it("a row too short to hold one gets one", () => {
    expect(body).toContain("| `peek` | Peek | read |");
    expect(body.match(/`peek`/g)).toHaveLength(1);
  });
});

describe("filterSkillBody: a table of two columns", () => {
  it("gets the read/write column: header, delimiter and each granted row", () => {
    const text = skill("| verb | what |", "|---|---|", "| `a` | A |", "| `b` | B |", "");
    const body = filterSkillBody(parseSkill(text, "SKILL.md"), [cmd("a", "read"), cmd("b", "write", true)], {
      packId: "p",
      verbs: [],
    });
    expect(body).toContain(
      "| verb | what | read/write |\n|---|---|---|\n| `a` | A | read |\n| `b` | B | write, confirm |",
    );
  });
});

describe("hcpx generate / adopt: a Skill cell edited after activation", () => {
  it("a gated write keeps its confirm marker; a read is not called a write; a short row gets its cell", async () => {
    const p = scratchProject({ packs: ["todo"], ownHome: true });
    const skill = p
      .read("packs/todo/SKILL.md")
      .replace(
        "| `delete` | Delete a todo | write, confirm |",
        "| `delete` | Delete a todo | write, unconfirmed (runs at once) |",
      )
      .replace("| `get` | Get one todo | read |", "| `get` | Get one todo | write (already read) |")
      .replace("| `list` | List todos | read |", "| `list` | List todos |");
    p.write("packs/todo/SKILL.md", skill);
    const g = await p.run(["generate"]);
    expect(g.code, g.stderr).toBe(0);
    const a = await p.run(["adopt", "claude", "--write"]);
    expect(a.code, a.stderr).toBe(0);
    const copies = [".hcp/generated/skills/todo/SKILL.md", ".claude/skills/todo/SKILL.md"];
    for (const f of copies) {
      expect(existsSync(join(p.dir, f)), f).toBe(true);
      const copy = p.read(f);
      expect(copy, f).toContain("| `delete` | Delete a todo | write, confirm |");
      expect(copy, f).not.toContain("unconfirmed");
      expect(copy, f).toContain("| `get` | Get one todo | read |");
      expect(copy, f).toContain("| `list` | List todos | read |");
    }
  });
});
