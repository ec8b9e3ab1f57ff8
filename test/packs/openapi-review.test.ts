// Issue 26 §5: an OpenAPI pack after the import. A review edit in policy.json is
// carried into the Skill by a command (`hcpx pack sync`), `--include` keeps only
// the imported operations in the pack's copy of the document, a document without
// security schemes gets a warning and `--auth`, and a write whose effect others see
// (the document says so: publish, notify, email, …) is drafted external + confirm.
// The commands (from-openapi, pack new, sync, lint) are what they decide and write: function calls in
// this process (test/support/inproc.ts), not a process each.
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmp } from "../support/hcpx";
import { runInProcess } from "../support/inproc";
import { importOpenapi } from "../../src/openapi/import";

const DOC = {
  openapi: "3.0.3",
  info: { title: "Notes", version: "1.0.0" },
  servers: [{ url: "https://api.example.com/v1" }],
  paths: {
    "/notes": {
      get: {
        operationId: "listNotes",
        tags: ["notes"],
        summary: "List notes",
        responses: { "200": { description: "ok" } },
      },
      post: {
        operationId: "createNote",
        tags: ["notes"],
        summary: "Create a draft note",
        requestBody: {
          content: { "application/json": { schema: { type: "object", properties: { text: { type: "string" } } } } },
        },
        responses: { "201": { description: "ok" } },
      },
    },
    "/notes/{id}/publish": {
      post: {
        operationId: "publishNote",
        tags: ["notes"],
        summary: "Publish a note",
        description: "The note becomes visible to everyone; this endpoint triggers notifications to subscribers.",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    },
    "/admin/stats": {
      get: {
        operationId: "adminStats",
        tags: ["admin"],
        summary: "Stats",
        responses: { "200": { description: "ok" } },
      },
    },
  },
};

async function imported(extra: string[] = [], doc: unknown = DOC) {
  const dir = tmp("hcpx-oa-review-");
  writeFileSync(join(dir, "api.json"), JSON.stringify(doc, null, 2));
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({ packs: ["./packs/notes"], grants: { allow: ["notes.*"] } }),
  );
  const r = await runInProcess(["pack", "from-openapi", "api.json", "--id", "notes", ...extra], { cwd: dir });
  return { dir, r, pack: join(dir, "packs", "notes") };
}

describe("pack sync: a review edit in policy.json reaches the Skill", () => {
  it("the read/write cells, the lead and the 'inferred' line follow policy.json; other lines stay; --check says when it is out of date", async () => {
    const { dir, r, pack } = await imported();
    expect(r.code, r.stderr).toBe(0);
    // the review: create_note becomes gated, every inferred mark goes
    const policyFile = join(pack, "policy.json");
    const reviewed = readFileSync(policyFile, "utf8")
      .replace(/"create_note": \{[^}]*\}/, `"create_note": { operation: "write", land: "remote", confirm: true }`)
      .replace(/, inferred: true/g, "")
      .replace(/^ {2}inferred: true,\n/m, "");
    expect(reviewed).not.toMatch(/inferred: true/);
    writeFileSync(policyFile, reviewed);
    // a hand-written line of the Skill's own
    writeFileSync(
      join(pack, "SKILL.md"),
      readFileSync(join(pack, "SKILL.md"), "utf8") + "\nAsk before publishing anything.\n",
    );
    const lint0 = await runInProcess(["lint", "packs/notes"], { cwd: dir });
    expect(lint0.code).toBe(1);
    expect(lint0.stdout + lint0.stderr).toMatch(/create_note.*needs confirm/);
    expect(lint0.stdout + lint0.stderr).toMatch(/hcpx pack sync packs\/notes/);

    const check = await runInProcess(["pack", "sync", "packs/notes", "--check", "--json"], { cwd: dir });
    expect(check.code).toBe(1);
    const ce = JSON.parse(check.stdout);
    expect(ce.ok).toBe(false);
    expect(ce.error.code).toBe("skill_out_of_date");

    const s = await runInProcess(["pack", "sync", "packs/notes", "--json"], { cwd: dir });
    expect(s.code, s.stderr + s.stdout).toBe(0);
    expect(JSON.parse(s.stdout).data.changed).toBe(true);
    const skill = readFileSync(join(pack, "SKILL.md"), "utf8");
    expect(skill).toMatch(/\| `create_note` \| Create a draft note \| write, confirm \|/);
    expect(skill).toMatch(/\| `publish_note` \| Publish a note \| write, confirm \|/);
    expect(skill).toMatch(/needs confirm: create_note, publish_note/);
    expect(skill).not.toMatch(/the Policy is inferred/);
    expect(skill).toMatch(/Ask before publishing anything\./);
    const lint1 = await runInProcess(["lint", "packs/notes", "--strict"], { cwd: dir });
    expect(lint1.code, lint1.stdout + lint1.stderr).toBe(0);
    // in sync now: --check passes, a second sync changes nothing
    expect((await runInProcess(["pack", "sync", "packs/notes", "--check"], { cwd: dir })).code).toBe(0);
    const again = await runInProcess(["pack", "sync", "packs/notes", "--json"], { cwd: dir });
    expect(JSON.parse(again.stdout).data.changed).toBe(false);
    expect(readFileSync(join(pack, "SKILL.md"), "utf8")).toBe(skill);
  });

  it("a wrap pack's Skill follows its policy too (a read turned into a gated write)", async () => {
    const dir = tmp("hcpx-sync-wrap-");
    writeFileSync(join(dir, "hcp.config.json5"), JSON.stringify({ packs: ["./packs/g"], grants: { allow: ["g.*"] } }));
    const n = await runInProcess(
      ["pack", "new", "g", "--wrap", "git", "--verb", "status=status", "--verb", "log=log", "--dir", "packs/g"],
      { cwd: dir },
    );
    expect(n.code, n.stderr).toBe(0);
    const pf = join(dir, "packs", "g", "policy.json");
    writeFileSync(
      pf,
      readFileSync(pf, "utf8").replace(
        /"log":\s*\{[^}]*\}/,
        `"log": { operation: "write", land: "local", confirm: true }`,
      ),
    );
    expect((await runInProcess(["lint", "packs/g"], { cwd: dir })).code).toBe(1);
    const s = await runInProcess(["pack", "sync", "packs/g", "--json"], { cwd: dir });
    expect(s.code, s.stderr).toBe(0);
    const synced = (JSON.parse(s.stdout) as { data: { changed: boolean; written: boolean; changes: string[] } }).data;
    expect(synced).toMatchObject({ changed: true, written: true });
    expect(synced.changes.join("\n")).toMatch(/log/);
    expect(readFileSync(join(dir, "packs", "g", "SKILL.md"), "utf8")).toMatch(/\| `log` \|.*\| write, confirm \|/);
    const lint = await runInProcess(["lint", "packs/g"], { cwd: dir });
    expect(lint.code, lint.stderr).toBe(0);
  });
});

describe("from-openapi drafts what the document says", () => {
  it("--include keeps only the imported operations in the pack's copy of the document", async () => {
    const { r, pack } = await imported(["--include", "tag:notes"]);
    expect(r.code, r.stderr).toBe(0);
    const copy = JSON.parse(readFileSync(join(pack, "openapi.json"), "utf8"));
    expect(Object.keys(copy.paths).sort()).toEqual(["/notes", "/notes/{id}/publish"]);
    expect(JSON.stringify(copy)).not.toMatch(/adminStats/);
    // without a filter the copy is the document as given
    const all = await imported();
    expect(readFileSync(join(all.pack, "openapi.json"), "utf8")).toBe(JSON.stringify(DOC, null, 2));
  });

  it("a write the document says others see (notifications, publish, email) is drafted external + confirm, and said", async () => {
    const { r, pack } = await imported(["--json"]);
    expect(r.code, r.stderr).toBe(0);
    const env = JSON.parse(r.stdout);
    const byVerb = Object.fromEntries(env.data.commands.map((c: { verb_key: string }) => [c.verb_key, c]));
    expect(byVerb.publish_note).toMatchObject({ operation: "write", land: "external", confirm: true });
    expect(byVerb.create_note).toMatchObject({ operation: "write", land: "remote", confirm: false });
    expect(env.data.notes.join("\n")).toMatch(/publish_note.*external \+ confirm.*notifications/);
    const policy = readFileSync(join(pack, "policy.json"), "utf8");
    expect(policy).toMatch(/"publish_note": \{ operation: "write", land: "external", confirm: true, inferred: true \}/);
    expect(readFileSync(join(pack, "SKILL.md"), "utf8")).toMatch(
      /\| `publish_note` \| Publish a note \| write, confirm \|/,
    );
  });

  it("a GET or HEAD whose own words say it deletes, wipes, destroys, purges, drops, resets or removes is drafted write + confirm, and said", async () => {
    const ok = { responses: { "200": { description: "ok" } } };
    const doc = {
      ...DOC,
      paths: {
        ...DOC.paths,
        "/admin/wipe": {
          get: {
            operationId: "adminWipe",
            tags: ["admin"],
            summary: "Wipe",
            description: "Deletes every todo.",
            ...ok,
          },
        },
        "/cache/reset": { get: { operationId: "cacheState", tags: ["admin"], summary: "Cache", ...ok } },
        "/locks/{id}": {
          head: {
            operationId: "lockProbe",
            tags: ["admin"],
            summary: "Probe a lock",
            description: "Removes the lock when it is stale.",
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            ...ok,
          },
        },
        "/notes/deleted": {
          get: { operationId: "listDeletedNotes", tags: ["notes"], summary: "List deleted notes in a dropdown", ...ok },
        },
      },
    };
    const byVerb = Object.fromEntries(importOpenapi(doc, "notes").commands.map((c) => [c.verb_key, c]));
    for (const v of ["admin_wipe", "cache_state", "lock_probe"])
      expect(byVerb[v], v).toMatchObject({ operation: "write", land: "remote", confirm: true });
    // whole words of the list only: "deleted" (what it lists) and "dropdown" are not a GET that deletes
    expect(byVerb.list_deleted_notes).toMatchObject({ operation: "read", confirm: false });
    expect(byVerb.admin_stats).toMatchObject({ operation: "read" });
    const { r, pack } = await imported([], doc);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /GET \/admin\/wipe \(admin_wipe\): drafted write \+ confirm, not read: the document says "wipe", "deletes"/,
    );
    expect(r.stderr).toMatch(
      /GET \/cache\/reset \(cache_state\): drafted write \+ confirm, not read: the document says "reset"/,
    );
    expect(r.stdout).toMatch(/admin_wipe +GET \/admin\/wipe {2}write, confirm/);
    const policy = readFileSync(join(pack, "policy.json"), "utf8");
    expect(policy).toMatch(/"admin_wipe": \{ operation: "write", land: "remote", confirm: true, inferred: true \}/);
    expect(policy).toMatch(/GET\/HEAD -> read, but write \+ confirm when/);
  });

  it("no security scheme: a warning with how to add auth; --auth adds a scheme and its Binding", async () => {
    const { r } = await imported();
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no security scheme/);
    expect(r.stderr).toMatch(/--auth bearer/);
    const withAuth = await imported(["--auth", "bearer", "--json"]);
    expect(withAuth.r.code, withAuth.r.stderr).toBe(0);
    const e = JSON.parse(withAuth.r.stdout);
    expect(e.data.binding).toEqual(["NOTES_TOKEN"]);
    expect(e.data.notes.join("\n")).not.toMatch(/no security scheme/);
    const surface = readFileSync(join(withAuth.pack, "surface.json"), "utf8");
    expect(surface).toMatch(/"schemes":\s*\{\s*"auth":\s*\{\s*"type":\s*"bearer",\s*"env":\s*"NOTES_TOKEN"/);
    expect(surface).toMatch(/"security":\s*\[\s*\[\s*"auth"\s*\]\s*\]/);
    const key = await imported(["--auth", "header:X-Api-Key", "--json"]);
    expect(key.r.code, key.r.stderr).toBe(0);
    expect(JSON.parse(key.r.stdout).data.binding).toEqual(["NOTES_API_KEY"]);
    expect(readFileSync(join(key.pack, "surface.json"), "utf8")).toMatch(
      /"type":\s*"apiKey",\s*"in":\s*"header",\s*"name":\s*"X-Api-Key"/,
    );
    const bad = await imported(["--auth", "magic", "--json"]);
    expect(bad.r.code).toBe(64);
    expect(JSON.parse(bad.r.stdout).error.hint).toMatch(/bearer.*basic.*header:/);
  });
});
