// Gaps the removal rules of a withheld command had (docs/pack-format.md#what-a-projection-leaves-out):
// a hot-path row whose verb cell is bold, a lead that names it capitalised at a
// sentence's start, an example line continued with `\` onto the next.
import { describe, expect, it } from "vitest";
import { scratchProject } from "../support/hcpx";
import { filterLeads, filterSkillBody } from "../../src/projection/skillcopy";
import { parseSkill } from "../../src/pack/skill";
import type { Command } from "../../src/pack/model";

const W = { packId: "todo", verbs: ["delete"], all: ["list", "get", "create", "update", "delete"] };

describe("a withheld command's mentions the rules missed", () => {
  it("a lead naming it capitalised (a sentence's first word) loses it", () => {
    expect(filterLeads(["todo: list and get. Delete is irreversible."], W)).toEqual(["todo: list and get."]);
    expect(filterLeads(["todo: reads: list, get; DELETE needs confirm"], W)).toEqual(["todo: reads: list, get"]);
  });
  it("a bold verb cell's row goes; a code line continued with \\ goes with its continuation", () => {
    const text = [
      "---",
      "name: todo",
      "description: d",
      "---",
      "```sh",
      "hcpx exec todo list",
      "hcpx exec todo \\",
      "  delete --confirm -- id=3",
      "hcpx exec todo delete \\",
      "  --confirm -- id=4",
      "hcpx exec todo get \\",
      "  -- id=5",
      "```",
      "",
      "| verb | what it does | read/write |",
      "|---|---|---|",
      "| **list** | List todos | read |",
      "| **delete** | Delete a todo | write, confirm |",
      "",
    ].join("\n");
    const list = {
      verb_key: "list",
      summary: "List todos",
      args: {},
      policy: { operation: "read", confirm: false, inferred: false },
    } as unknown as Command;
    const skill = parseSkill(text, "SKILL.md");
    expect(skill.rows.map((r) => r.verb)).toEqual(["list", "delete"]);
    const body = filterSkillBody(skill, [list], W);
    expect(body).not.toMatch(/delete|id=3|id=4/);
    expect(body).toContain("hcpx exec todo get \\\n  -- id=5");
    expect(body).toContain("| **list** | List todos | read |");
    expect(body.match(/list/g)).toHaveLength(2); // the example line and its row: no row added for it
  });
});

describe("hcpx generate: the Skill copy of a pack with `delete` withheld", () => {
  it("keeps none of its bold row, capitalised lead mention or continued example line", async () => {
    const p = scratchProject({ packs: ["todo"], allow: ["todo.*"], deny: ["todo.delete"] });
    p.write(
      "packs/todo/SKILL.md",
      p
        .read("packs/todo/SKILL.md")
        .replace(
          '  - "todo: the user\'s to-dos on an HTTP service; list and get are reads, delete needs confirm."',
          '  - "todo: the user\'s to-dos on an HTTP service. Delete is irreversible."',
        )
        .replace("hcpx exec todo delete --confirm -- id=3", "hcpx exec todo \\\n  delete --confirm -- id=3")
        .replace("| `delete` | Delete a todo |", "| **delete** | Delete a todo |"),
    );
    const r = await p.run(["generate"]);
    expect(r.code, r.stderr).toBe(0);
    const copy = p.read(".hcp/generated/skills/todo/SKILL.md");
    expect(copy).not.toMatch(/\bdelete\b.*confirm|Delete is|Delete a todo|todo \\$/m);
    expect(copy).toContain("hcpx exec todo update -- id=3 done=true");
    expect(copy).toContain("todo: the user's to-dos on an HTTP service.");
  });
});
