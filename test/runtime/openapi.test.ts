// openapi packs against a real HTTP server on 127.0.0.1 (bins/todo-server.mjs),
// `hcpx pack from-openapi`, and composite packs in-process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runHcpx as runChild, tmp, REPO } from "../support/hcpx";
import { execInProcess, needsProcess, runInProcess } from "../support/inproc";
import { project, startTodoServer } from "./support";
import { execute } from "../../src/runtime/execute";
import { loadProject } from "../../src/pack/load";
import { verbFromOperationId, verbFromPath, importOpenapi } from "../../src/openapi/import";

/**
 * Function calls in this process (test/support/inproc.ts): pack from-openapi and lint (the pack
 * they write and judge is under test here) and exec of the openapi packs (the requests and the
 * envelope are; exec's process is test/cli's). `hcpx exec` of the composite pack stays a real
 * process: a composite's module is imported into the process that runs it.
 */
const runHcpx = (args: string[], opts?: Parameters<typeof runChild>[1]) =>
  args[0] === "exec" && args[1] !== "calc"
    ? execInProcess(args, opts)
    : needsProcess(args)
      ? runChild(args, opts)
      : runInProcess(args, opts);

const TOKEN = "todo-T0KEN-abc123xyz";
let server: Awaited<ReturnType<typeof startTodoServer>>;
let dir: string;
let baseEnv: NodeJS.ProcessEnv;

const json = async (args: string[], env: NodeJS.ProcessEnv = baseEnv) => {
  const r = await runHcpx(["exec", ...args.slice(0, 2), "--json", ...args.slice(2)], { cwd: dir, env });
  return { ...r, env: JSON.parse(r.stdout) as { ok: boolean; data?: any; error?: any } };
};

beforeAll(async () => {
  server = await startTodoServer(TOKEN);
  dir = project({ examples: ["todo", "calc", "calc-wrap"] }).dir;
  baseEnv = { HCP_TODO_BASE_URL: server.url, TODO_TOKEN: TOKEN };
});
afterAll(() => server?.stop());

describe("openapi adapter (todo pack, real server)", () => {
  it("GET with query args returns the JSON body as data", async () => {
    const r = await json(["todo", "list", "--", "limit=2"]);
    expect(r.code).toBe(0);
    expect(r.env.ok).toBe(true);
    expect(JSON.stringify(r.env.data)).toMatch(/title/);
  });

  it("POST with a JSON body, then GET by path arg, PATCH, DELETE behind confirm", async () => {
    const c = await json(["todo", "create", "--", "title=Water the plants; $(rm -rf /)", "due=2026-12-01"]);
    expect(c.env.ok).toBe(true);
    const id = c.env.data.id ?? c.env.data.todo?.id;
    expect(typeof id).toBe("number");
    const g = await json(["todo", "get", "--", `id=${id}`]);
    expect(JSON.stringify(g.env.data)).toContain("Water the plants; $(rm -rf /)");
    const u = await json(["todo", "update", "--", `id=${id}`, "done=true"]);
    expect(u.env.ok).toBe(true);
    const d0 = await json(["todo", "delete", "--", `id=${id}`]);
    expect(d0.env.error.code).toBe("confirm_required");
    expect((await json(["todo", "get", "--", `id=${id}`])).env.ok).toBe(true);
    const d = await json(["todo", "delete", "--confirm", "--", `id=${id}`]);
    expect(d.env.ok).toBe(true);
    const gone = await json(["todo", "get", "--", `id=${id}`]);
    expect(gone.code).toBe(1);
    expect(gone.env.error).toMatchObject({ code: "http_error", status: 404 });
    expect(typeof gone.env.error.body).toBe("string");
  });

  it("the auth header comes from the Binding; without it: http_error 401 with a hint; the token never shows", async () => {
    const r = await json(["todo", "list"], { HCP_TODO_BASE_URL: server.url });
    expect(r.env.error).toMatchObject({ code: "http_error", status: 401 });
    expect(r.env.error.hint).toMatch(/TODO_TOKEN/);
    const wrong = await json(["todo", "list"], { HCP_TODO_BASE_URL: server.url, TODO_TOKEN: "wrong-token-value" });
    expect(wrong.env.error.status).toBe(401);
    expect(wrong.stdout).not.toContain("wrong-token-value");
  });

  it("a server that echoes the token: redacted", async () => {
    const c = await json(["todo", "create", "--", `title=${TOKEN}`]);
    expect(c.env.ok).toBe(true);
    expect(c.stdout).not.toContain(TOKEN);
    expect(c.stdout).toContain("***");
  });

  it("no server: http_error naming the base URL", async () => {
    const r = await json(["todo", "list"], { HCP_TODO_BASE_URL: "http://127.0.0.1:9", TODO_TOKEN: TOKEN });
    expect(r.env.error.code).toBe("http_error");
    expect(r.code).toBe(1);
  });
});

describe("composite adapter (in-process execute())", () => {
  it("calls default[verb](args, ctx) with typed args; a throw is composite_error", async () => {
    const project_ = loadProject({ config: join(dir, "hcp.config.json5"), user: false });
    const ok = await execute(project_, { pack: "calc", verb: "add", kv: ["a=-1.5", "b=2"] });
    expect(ok).toEqual({ ok: true, data: { sum: 0.5 } });
    const typed = await execute(project_, { pack: "calc", verb: "convert", args: { value: 100, from: "c", to: "f" } });
    expect(typed).toMatchObject({ ok: true, data: { result: 212 } });
    const thrown = await execute(project_, { pack: "calc", verb: "stats", args: { values: "1, x" } });
    expect(thrown).toMatchObject({ ok: false, error: { code: "composite_error", reason: "bad_args" } });
    const wrap = await execute(project_, { pack: "calc-wrap", verb: "add", kv: ["a=-1.5", "b=2"] });
    expect(wrap).toEqual(ok);
  });
  it("hcpx exec of a composite pack", async () => {
    const r = await json(["calc", "stats", "--", "values=1 2 3 4"]);
    expect(r.env).toMatchObject({ ok: true, data: { count: 4, mean: 2.5 } });
  });
});

describe("hcpx pack from-openapi", () => {
  it("readable verb_keys from operationIds and from method + path", () => {
    expect(verbFromOperationId("listTodos")).toBe("list_todos");
    expect(verbFromOperationId("todos.get-one")).toBe("todos.get_one");
    expect(verbFromOperationId("getHTTPStatus")).toBe("get_http_status");
    expect(verbFromPath("get", "/users/{uid}/posts")).toBe("users.posts.list");
    expect(verbFromPath("get", "/users/{uid}")).toBe("users.get");
    expect(verbFromPath("delete", "/users/{uid}")).toBe("users.delete");
    expect(verbFromPath("post", "/v1/users")).toBe("v1.users.create");
  });

  it("args from parameters and the JSON body; GET → read, DELETE → write + confirm", () => {
    const doc = JSON.parse(readFileSync(join(REPO, "packs/todo/openapi.json"), "utf8"));
    const r = importOpenapi(doc, "todo2");
    const byVerb = Object.fromEntries(r.commands.map((c) => [c.verb_key, c]));
    expect(Object.keys(byVerb).sort()).toEqual(["create", "delete", "get", "list", "update"]);
    expect(byVerb.get!.args.id).toMatchObject({ type: "integer", required: true, in: "path" });
    expect(byVerb.create!.args.title).toMatchObject({ type: "string", required: true, in: "body" });
    expect(byVerb.list!.operation).toBe("read");
    expect(byVerb.delete).toMatchObject({ operation: "write", confirm: true });
    expect(r.schemes).toEqual({ bearerAuth: { type: "bearer", env: "TODO2_TOKEN" } });
  });

  it("writes a pack that loads, lints (the inferred warning only) and runs against the server; refuses to overwrite", async () => {
    const work = tmp("hcpx-oa-");
    const out = join(work, "packs", "todo2");
    const w = await runHcpx(
      ["pack", "from-openapi", join(REPO, "packs/todo/openapi.json"), "--id", "todo2", "--out", out, "--json"],
      { cwd: work },
    );
    expect(w.code).toBe(0);
    expect(JSON.parse(w.stdout).ok).toBe(true);
    for (const f of ["surface.json", "policy.json", "SKILL.md", "openapi.json"])
      expect(existsSync(join(out, f))).toBe(true);
    expect(readFileSync(join(out, "policy.json"), "utf8")).toMatch(/inferred: true/);
    const lint = await runHcpx(["lint", out, "--json"], { cwd: work });
    expect(lint.code).toBe(0);
    const again = await runHcpx(
      ["pack", "from-openapi", join(REPO, "packs/todo/openapi.json"), "--id", "todo2", "--out", out, "--json"],
      { cwd: work },
    );
    expect(again.code).toBe(1);
    const exists = JSON.parse(again.stdout) as { ok: boolean; error: { code: string; hint: string } };
    expect(exists.error.code).toBe("exists");
    expect(exists.error.hint).toMatch(/--force/);
    const forced = await runHcpx(
      ["pack", "from-openapi", join(REPO, "packs/todo/openapi.json"), "--id", "todo2", "--out", out, "--force"],
      { cwd: work },
    );
    expect(forced.code).toBe(0);
    writeFileSync(
      join(work, "hcp.config.json5"),
      JSON.stringify({ packs: ["./packs/todo2"], grants: { allow: ["todo2.*"] } }),
    );
    const r = await runHcpx(["exec", "todo2", "get", "--json", "--", "id=1"], {
      cwd: work,
      env: { HCP_TODO2_BASE_URL: server.url, TODO2_TOKEN: TOKEN },
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true });
  });

  it("a document without operationIds gets synthesised verb_keys; a bad id or document is a clear error", async () => {
    const work = tmp("hcpx-oa-");
    const doc = {
      openapi: "3.1.0",
      info: { title: "Pets", version: "1" },
      paths: {
        "/pets": {
          get: { summary: "List pets" },
          post: {
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["name"],
                    properties: { name: { type: "string" }, tags: { type: "array" } },
                  },
                },
              },
            },
          },
        },
        "/pets/{petId}": { delete: {} },
      },
    };
    writeFileSync(join(work, "pets.json"), JSON.stringify(doc));
    const w = await runHcpx(["pack", "from-openapi", "pets.json", "--id", "pets", "--json"], { cwd: work });
    expect(w.code).toBe(0);
    const data = JSON.parse(w.stdout).data;
    expect(data.commands.map((c: { verb_key: string }) => c.verb_key).sort()).toEqual([
      "pets.create",
      "pets.delete",
      "pets.list",
    ]);
    expect(existsSync(join(work, "packs", "pets", "surface.json"))).toBe(true);
    const lint = await runHcpx(["lint", join(work, "packs", "pets")], { cwd: work });
    expect(lint.code).toBe(0);
    const badId = await runHcpx(["pack", "from-openapi", "pets.json", "--id", "Bad_Id"], { cwd: work });
    expect(badId.code).toBe(64); // a usage error: the command line is wrong
    writeFileSync(join(work, "nope.json"), "{ not json");
    const bad = await runHcpx(["pack", "from-openapi", "nope.json", "--id", "nope", "--json"], { cwd: work });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error).toMatchObject({ code: "bad_document", file: "nope.json" });
  });
});
