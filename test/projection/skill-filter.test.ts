// Exact Skill filtering (issue 17): a withheld command's hot-path row, its
// example lines (`hcpx exec <pack> <verb>`, not the bare word) and its mentions
// in leads and descriptions go; nothing else does. Run as a user would: `hcpx init`,
// `activate`, `revoke`, `generate`, and the files it writes, the commands as function calls in
// this process (test/support/inproc.ts) with a run's checks (no stack trace, no internal error).
import { describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../cli/helpers";
import { runInProcessChecked } from "../support/inproc";
import { filterLeads, removeMentions } from "../../src/projection/skillcopy";

const DB_SURFACE = `{
  hcp: "1.1", id: "db", version: "0.1.0",
  description: "sqlite3 on one database file: query (read) and exec (write)",
  kind: "wrap",
  wrap: { bin: "sqlite3", output: "text" },
  commands: [
    { verb_key: "query", summary: "Run a read-only SQL query", cli: ["db", "-readonly", "{{file}}", "{{sql}}"], args: { file: { type: "string", required: true }, sql: { type: "string", required: true } } },
    { verb_key: "tables", summary: "List the tables", cli: ["db", "{{file}}", ".tables"], args: { file: { type: "string", required: true } } },
    { verb_key: "exec", summary: "Run SQL that changes the database", cli: ["db", "{{file}}", "{{sql}}"], args: { file: { type: "string", required: true }, sql: { type: "string", required: true } } },
  ],
}
`;
const DB_POLICY = `{ rows: { query: { operation: "read" }, tables: { operation: "read" }, exec: { operation: "write", land: "local", confirm: true } } }\n`;
const DB_SKILL = `---
name: db
description: "SQL on a sqlite3 file through hcpx: \`query\`, \`tables\` and \`exec\`."
leads:
  - "db: query, tables and exec on one sqlite3 file."
---

# db

\`\`\`sh
hcpx exec db tables -- file=app.db
hcpx exec db query -- file=app.db sql="select * from users"
hcpx exec db exec --confirm -- file=app.db sql="delete from users"
\`\`\`

## Hot path

| verb | what it does | read/write |
|---|---|---|
| \`query\` | Run a read-only SQL query | read |
| \`tables\` | List the tables | read |
| \`exec\` | Run SQL that changes the database | write, confirm |
`;

async function ok(args: string[], cwd: string) {
  const r = await runInProcessChecked(args, { cwd });
  expect(r.code, `hcpx ${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r;
}

describe("Skill copies after a revoke", () => {
  it("revoking db.exec keeps every other `hcpx exec db …` line and row; no trace of exec in any projection", async () => {
    const dir = tmp("hcpx-filter-db-");
    await ok(["init", "--yes"], dir);
    mkdirSync(join(dir, "packs/db"), { recursive: true });
    writeFileSync(join(dir, "packs/db/surface.json"), DB_SURFACE);
    writeFileSync(join(dir, "packs/db/policy.json"), DB_POLICY);
    writeFileSync(join(dir, "packs/db/SKILL.md"), DB_SKILL);
    await ok(["activate", "packs/db"], dir);
    await ok(["grant", "db.exec"], dir);
    await ok(["revoke", "db.exec"], dir);
    await ok(["generate"], dir);
    const skill = readFileSync(join(dir, ".hcp/generated/skills/db/SKILL.md"), "utf8");
    expect(skill).toContain("hcpx exec db tables -- file=app.db");
    expect(skill).toContain('hcpx exec db query -- file=app.db sql="select * from users"');
    expect(skill).toContain("| `query` | Run a read-only SQL query | read |");
    expect(skill).toContain("| `tables` | List the tables | read |");
    expect(skill).not.toContain("db exec");
    expect(skill).not.toContain("`exec`");
    expect(skill).toContain('description: "SQL on a sqlite3 file through hcpx: `query`, `tables`."');
    const prompt = readFileSync(join(dir, ".hcp/generated/system-prompt.md"), "utf8");
    expect(prompt).toContain("db: query, tables on one sqlite3 file.");
    expect(prompt).not.toMatch(/\bexec (?:on|\()/);
  });

  it("revoking gitx.show keeps the pack's only lead, without show; the description loses show too", async () => {
    const dir = tmp("hcpx-filter-gitx-");
    await ok(["init", "--yes"], dir);
    await ok(
      [
        "pack",
        "new",
        "gitx",
        "--wrap",
        "git",
        "--verb",
        "status=status --short --branch",
        "--verb",
        "log=log --oneline -n 5",
        "--verb",
        "show=show --stat {{rev}}",
      ],
      dir,
    );
    await ok(["activate", "packs/gitx"], dir);
    await ok(["revoke", "gitx.show"], dir);
    await ok(["generate"], dir);
    const prompt = readFileSync(join(dir, ".hcp/generated/system-prompt.md"), "utf8");
    const block = prompt.slice(prompt.indexOf("### gitx"));
    expect(block.split("\n")[1]).toMatch(/^gitx: .*status.*log/);
    expect(block).not.toMatch(/\bshow\b/);
    const skill = readFileSync(join(dir, ".hcp/generated/skills/gitx/SKILL.md"), "utf8");
    expect(skill).not.toMatch(/\bshow\b/);
    expect(skill).toContain("hcpx exec gitx status");
    expect(skill).toContain("hcpx exec gitx log");
  });
});

describe("a scaffolded pack with a write that is not granted", () => {
  it("no trace of the write in the Skill copy, the prompt block or the host files", async () => {
    const dir = tmp("hcpx-filter-write-");
    await ok(["init", "--yes"], dir);
    await ok(
      [
        "pack",
        "new",
        "gitx",
        "--wrap",
        "git",
        "--verb",
        "status=status --short",
        "--verb",
        "log=log --oneline -n 5",
        "--write",
        "commit:local:confirm=commit -m {{message}}",
      ],
      dir,
    );
    await ok(["activate", "packs/gitx"], dir); // grants the reads only
    await ok(["generate"], dir);
    await ok(["adopt", "codex", "--write"], dir);
    const skill = readFileSync(join(dir, ".hcp/generated/skills/gitx/SKILL.md"), "utf8");
    const prompt = readFileSync(join(dir, ".hcp/generated/system-prompt.md"), "utf8");
    const agents = readFileSync(join(dir, "AGENTS.md"), "utf8");
    for (const text of [skill, prompt, agents]) expect(text).not.toMatch(/\bcommit\b/);
    expect(skill).toContain(
      'description: "Runs git for the agent through hcpx: `status`, `log`. Use it instead of calling git directly; the table marks each command read or write."',
    );
    expect(skill).toContain("| `status` |");
    expect(prompt).toContain("gitx: status, log (read).");
  });
});

describe("the mention rule", () => {
  const w = { packId: "gitx", verbs: ["show"] };
  it("cuts a mention with its list separator, nothing else", () => {
    expect(removeMentions("gitx: status, log, show (read-only).", w, true)).toBe("gitx: status, log (read-only).");
    expect(removeMentions("gitx: show, status and log.", w, true)).toBe("gitx: status and log.");
    expect(removeMentions("gitx: status and show.", w, true)).toBe("gitx: status.");
    // not a list item: the clause about it goes, not only its name ("…, then." said nothing true)
    expect(removeMentions("Use `status` first, then `show -- rev=HEAD`.", w, false)).toBe("Use `status` first.");
    expect(removeMentions("showcase the shows", w, true)).toBe("showcase the shows");
    // without `bare` (body rows), a plain word is not a name; qualified forms always are
    expect(removeMentions("show the log, gitx.show", w, false)).toBe("show the log");
  });
  it("drops a lead left with only its pack prefix", () => {
    expect(filterLeads(["gitx: show (read-only).", "gitx: commit history"], w)).toEqual(["gitx: commit history"]);
  });
});
