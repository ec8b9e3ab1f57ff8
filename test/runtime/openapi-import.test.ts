// Issue 11: `hcpx pack from-openapi` on documents as they are, and the requests
// the runtime sends from what it wrote — checked byte for byte by a recording
// server on 127.0.0.1 (the Prism suite, test/openapi/, checks them against the
// documents). Also: names within the hosts' limits, --include/--exclude, and a
// huge pack that keeps the prompt block and the `hcp` tool description bounded.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import { HCPX, REPO, runHcpx as runChild, tmp, baseEnv } from "../support/hcpx";
import { runHere, runInProcess } from "../support/inproc";
import { connectMcp } from "../support/mcp";
import { fitVerb, importOpenapi, MAX_SERVER_TOOL } from "../../src/openapi/import";

/**
 * Function calls in this process (test/support/inproc.ts): pack from-openapi, generate, lint and
 * activate (the packs and files they write are under test here) and exec (the requests it sends and
 * the envelope it prints are; exec's process is test/cli's). `hcpx mcp` stays a real process.
 */
const runHcpx = runHere;

const FIX = join(REPO, "test", "fixtures", "openapi");
const SECRETS = {
  SHOP_TOKEN: "tok-AAAA1111zz",
  SHOP_USERNAME: "alice-user",
  SHOP_PASSWORD: "pw-BBBB2222zz",
  SHOP_SHOPKEY: "key-CCCC3333zz",
  SHOP_KEYINQUERY: "qk-DDDD4444zz",
  SHOP_SESSION: "sess-EEEE5555zz",
};

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}
let server: Server;
let origin: string;
const seen: Seen[] = [];
let dir: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === "/report") {
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        res.end("sales: 3");
      } else if (req.url === "/export") {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.end(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff]));
      } else if (req.url!.endsWith("/archive")) {
        res.writeHead(204);
        res.end();
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ok: true }));
      }
    });
  });
  // exec runs in this process (execInProcess): fetch's pool keeps its sockets between the runs, and one the
  // server closed after its default 5 s idle could be taken for the next request as it closed (ECONNRESET,
  // seen under load): the server keeps them for the file, server.close() ends them
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  dir = tmp("hcpx-oa-shop-");
  const w = await runHcpx(["pack", "from-openapi", join(FIX, "shop", "openapi.yaml"), "--id", "shop", "--json"], {
    cwd: dir,
  });
  expect(w.code, w.stderr).toBe(0);
  writeFileSync(
    join(dir, "hcp.config.json5"),
    JSON.stringify({ packs: ["./packs/shop"], grants: { allow: ["shop.*"] } }),
  );
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function exec(verb: string, kv: string[], env: Record<string, string> = SECRETS, confirm = false) {
  const r = await runHcpx(["exec", "shop", verb, "--json", ...(confirm ? ["--confirm"] : []), "--", ...kv], {
    cwd: dir,
    env: { HCP_SHOP_BASE_URL: origin, ...env },
  });
  const out = r.stdout + r.stderr;
  for (const v of Object.values(env)) {
    expect(out, `${verb}: a Binding value in the output`).not.toContain(v);
    expect(out).not.toContain(Buffer.from(v).toString("base64"));
  }
  return { ...JSON.parse(r.stdout), last: seen.at(-1)! } as { ok: boolean; data: any; error: any; last: Seen };
}

describe("the requests the runtime sends (recording server)", () => {
  it("query array (form, explode), deepObject, header and cookie params; bearer first of the OR", async () => {
    const r = await exec("list_items", [
      "limit=5",
      'tags=["a","b c"]',
      'filter={"color":"red","size":"m"}',
      "X-Request-Id=r1",
      "pref=dark",
    ]);
    expect(r.ok).toBe(true);
    expect(r.last.url).toBe("/items?limit=5&tags=a&tags=b%20c&filter%5Bcolor%5D=red&filter%5Bsize%5D=m");
    expect(r.last.headers["x-request-id"]).toBe("r1");
    expect(r.last.headers.cookie).toBe("pref=dark");
    expect(r.last.headers.authorization).toBe(`Bearer ${SECRETS.SHOP_TOKEN}`);
    expect(r.last.headers["x-shop-key"]).toBeUndefined();
    expect(r.last.headers["content-type"]).toBeUndefined();
  });

  it("the OR falls back to the alternative whose Binding is set", async () => {
    const r = await exec("list_items", [], { SHOP_SHOPKEY: SECRETS.SHOP_SHOPKEY });
    expect(r.last.headers["x-shop-key"]).toBe(SECRETS.SHOP_SHOPKEY);
    expect(r.last.headers.authorization).toBeUndefined();
  });

  it("apiKey in the query; HTTP Basic from two env names; an array as the whole JSON body", async () => {
    const g = await exec("get_item", ["itemId=3"]);
    expect(g.last.url).toBe(`/items/3?api_key=${SECRETS.SHOP_KEYINQUERY}`);
    expect(g.last.headers.authorization).toBeUndefined();
    const l = await exec("set_labels", ["itemId=3", 'body=["x","y"]']);
    expect(l.last).toMatchObject({ method: "PUT", url: "/items/3/labels", body: '["x","y"]' });
    expect(l.last.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SECRETS.SHOP_USERNAME}:${SECRETS.SHOP_PASSWORD}`).toString("base64")}`,
    );
    expect(l.last.headers["content-type"]).toBe("application/json");
  });

  it("allOf body: properties merged, required kept, nested object passed as JSON", async () => {
    const missing = await exec("create_item", ["name=lamp"]);
    expect(missing.error).toMatchObject({ code: "bad_args", arg: "tags" });
    const badJson = await exec("create_item", ["name=lamp", "tags=home"]);
    expect(badJson.error).toMatchObject({ code: "bad_args", arg: "tags" });
    const r = await exec("create_item", [
      "name=lamp",
      "price=3.5",
      'tags=["home"]',
      'attrs={"origin":"se","weight":2}',
    ]);
    expect(r.ok).toBe(true);
    expect(JSON.parse(r.last.body)).toEqual({
      name: "lamp",
      price: 3.5,
      tags: ["home"],
      attrs: { origin: "se", weight: 2 },
    });
  });

  it("a form-urlencoded body with an AND of two schemes (header key + cookie)", async () => {
    const r = await exec("create_order", ["item_id=3", "quantity=2", "note=hi there & more", "gift=true"]);
    expect(r.ok).toBe(true);
    expect(r.last.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(r.last.body).toBe("item_id=3&quantity=2&note=hi%20there%20%26%20more&gift=true");
    expect(r.last.headers["x-shop-key"]).toBe(SECRETS.SHOP_SHOPKEY);
    expect(r.last.headers.cookie).toBe(`shop_session=${SECRETS.SHOP_SESSION}`);
    expect(r.last.headers.authorization).toBeUndefined();
  });

  it("multipart text fields; a write without a body sends no body and no content type; DELETE behind confirm", async () => {
    const m = await exec("upload_note", ["title=T", "text=some text"]);
    expect(m.ok).toBe(true);
    expect(m.last.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(m.last.body).toMatch(/name="title"\r\n\r\nT\r\n/);
    expect(m.last.body).toMatch(/name="text"\r\n\r\nsome text\r\n/);
    const a = await exec("archive_item", ["itemId=3"]);
    expect(a).toMatchObject({ ok: true, data: null });
    expect(a.last).toMatchObject({ method: "POST", body: "" });
    expect(a.last.headers["content-type"]).toBeUndefined();
    expect(a.last.headers["content-length"] ?? "0").toBe("0");
    const before = seen.length;
    expect((await exec("delete_item", ["itemId=3"])).error.code).toBe("confirm_required");
    expect(seen.length).toBe(before);
    const d = await exec("delete_item", ["itemId=3"], SECRETS, true);
    expect(d.last).toMatchObject({ method: "DELETE", url: "/items/3" });
  });

  it("Accept from the operation's media types; text answers as text, binary as size + type", async () => {
    const t = await exec("get_report", []);
    expect(t.last.headers.accept).toBe("text/plain");
    expect(t.data).toEqual({ text: "sales: 3" });
    const b = await exec("get_export", []);
    expect(b.last.headers.accept).toBe("application/octet-stream");
    expect(b.data).toEqual({ binary: { bytes: 5, content_type: "application/octet-stream" } });
    const j = await exec("get_item", ["itemId=1"]);
    expect(j.last.headers.accept).toBe("application/json");
  });

  it("the MCP tool's input schema carries the JSON Schema of array and object args", async () => {
    const env = { ...(baseEnv() as Record<string, string>), HCP_SHOP_BASE_URL: origin, ...SECRETS };
    const c = await connectMcp([HCPX, "mcp", "--shape", "per-command"], dir, env);
    try {
      const tools = (await c.client.listTools()).tools;
      const create = tools.find((t) => t.name === "shop__create_item")!;
      const props = create.inputSchema.properties as Record<string, any>;
      expect(props.tags).toMatchObject({ type: "array", items: { type: "string" }, minItems: 1 });
      expect(props.attrs).toMatchObject({ type: "object", required: ["origin"] });
      expect(create.inputSchema.required).toEqual(expect.arrayContaining(["name", "tags"]));
      const res = await c.client.callTool({
        name: "shop__create_item",
        arguments: { name: "pen", tags: ["office"], attrs: { origin: "no" } },
      });
      expect(res.isError).toBeFalsy();
      expect(JSON.parse(seen.at(-1)!.body)).toEqual({ name: "pen", tags: ["office"], attrs: { origin: "no" } });
    } finally {
      await c.client.close();
    }
  });
});

describe("documents as they are", () => {
  it("3.1 with external $refs: resolved, and the pack's copy is one bundled file; server variables at their defaults; per-operation servers", () => {
    const s = JSON.parse(readFileSync(join(dir, "packs", "shop", "surface.json"), "utf8").replace(/^(\/\/.*\n)+/, ""));
    expect(s.openapi.base_url).toBe("https://shop.example.com/v2");
    const byVerb = Object.fromEntries(s.commands.map((c: { verb_key: string }) => [c.verb_key, c]));
    expect(byVerb.upload_note.http.base_url).toBe("https://uploads.shop.example.com/v2");
    expect(byVerb.list_items.args.limit).toMatchObject({ type: "integer", in: "query" }); // from params.json
    expect(byVerb.create_item.args.name).toMatchObject({ type: "string", required: true }); // from schemas.yaml
    const copy = readFileSync(join(dir, "packs", "shop", "openapi.json"), "utf8");
    expect(copy).not.toMatch(/schemas\.yaml|params\.json/);
  });

  it("YAML by content, whatever the file name; Swagger 2.0 and 3.2 are refused with what to do", async () => {
    const w = tmp("hcpx-oa-doc-");
    copyFileSync(join(FIX, "petstore.yaml"), join(w, "petstore.txt"));
    const ok = await runHcpx(["pack", "from-openapi", "petstore.txt", "--id", "pets", "--json"], { cwd: w });
    expect(ok.code, ok.stdout).toBe(0);
    expect(
      JSON.parse(ok.stdout)
        .data.commands.map((c: { verb_key: string }) => c.verb_key)
        .sort(),
    ).toEqual(["create_pets", "list_pets", "show_pet_by_id"]);
    const old = await runHcpx(["pack", "from-openapi", join(FIX, "swagger2.json"), "--id", "old", "--json"], {
      cwd: w,
    });
    expect(old.code).toBe(1);
    expect(JSON.parse(old.stdout).error.message).toMatch(/Swagger 2\.0.*convert it first/);
    writeFileSync(
      join(w, "new.json"),
      JSON.stringify({ openapi: "3.2.0", info: { title: "t", version: "1" }, paths: {} }),
    );
    const v32 = await runHcpx(["pack", "from-openapi", "new.json", "--id", "new", "--json"], { cwd: w });
    expect(JSON.parse(v32.stdout).error.message).toMatch(/3\.2\.0 is not supported/);
  });

  it("a $ref is read by the one reader, in the document's folder only: no FIFO, no device, no file outside, no size without bound", async () => {
    const w = tmp("hcpx-oa-refs-");
    mkdirSync(join(w, "api", "sub"), { recursive: true });
    writeFileSync(
      join(w, "api", "sub", "p.json"),
      JSON.stringify({ x: { get: { operationId: "geta", responses: { 200: { description: "ok" } } } } }),
    );
    execFileSync("mkfifo", [join(w, "api", "fifo.json")]);
    symlinkSync("/dev/zero", join(w, "api", "zero.json"));
    symlinkSync("/etc/passwd", join(w, "api", "link.json"));
    writeFileSync(
      join(w, "outside.json"),
      JSON.stringify({ x: { get: { responses: { 200: { description: "ok" } } } } }),
    );
    const doc = (ref: string) =>
      JSON.stringify({ openapi: "3.0.0", info: { title: "t", version: "1" }, paths: { "/a": { $ref: `${ref}#/x` } } });
    const cases: [string, RegExp | undefined][] = [
      ["sub/p.json", undefined],
      ["fifo.json", /fifo\.json: is a FIFO/],
      ["zero.json", /zero\.json: is a symlink leading outside the document's folder/],
      ["link.json", /link\.json: is a symlink leading outside the document's folder/],
      ["../outside.json", /outside\.json: is outside the document's folder/],
      ["/etc/hostname", /\/etc\/hostname: is outside the document's folder/],
    ];
    // the FIFO and the device each in a process of its own, bounded (a read of them without the reader's checks
    // would never end), side by side; the others in this process
    const bounded = new Set(["fifo.json", "zero.json"]);
    const runs = await Promise.all(
      cases.map(([ref], i) => {
        writeFileSync(join(w, "api", `d${i}.json`), doc(ref));
        const args = ["pack", "from-openapi", `api/d${i}.json`, "--id", "r", "--out", `packs/r-${i}`, "--json"];
        return bounded.has(ref) ? runChild(args, { cwd: w, timeoutMs: 20_000 }) : runInProcess(args, { cwd: w });
      }),
    );
    for (const [i, [ref, refused]] of cases.entries()) {
      const r = runs[i]!;
      expect(r.signal, ref).toBeNull();
      const env = JSON.parse(r.stdout);
      if (!refused) expect(env.ok, r.stdout).toBe(true);
      else {
        expect(env.error.code, ref).toBe("bad_document");
        expect(env.error.message, ref).toMatch(refused);
        expect(r.stdout, "no line of a file outside").not.toContain("root:");
      }
    }
  });

  it("a document nested past what can be read says so (too_deep, naming the file), not that its $refs do not resolve", async () => {
    const w = tmp("hcpx-oa-deep-");
    const op = (schema: string) =>
      `{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/x":{"post":{"operationId":"x","requestBody":{"content":{"application/json":{"schema":${schema}}}},"responses":{"200":{"description":"ok"}}}}}}`;
    let nested = '{"type":"string"}';
    for (let i = 0; i < 3000; i++) nested = `{"type":"object","properties":{"a":${nested}}}`;
    writeFileSync(join(w, "nested.json"), op(nested));
    // as deep through a chain of $refs, each level a schema of its own: no bracket nests
    const schemas = Array.from({ length: 3000 }, (_, i) =>
      i === 2999
        ? `"s${i}":{"type":"string"}`
        : `"s${i}":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/s${i + 1}"}}}`,
    );
    writeFileSync(
      join(w, "chain.json"),
      op('{"$ref":"#/components/schemas/s0"}').slice(0, -1) + `,"components":{"schemas":{${schemas.join(",")}}}}`,
    );
    for (const [file, where] of [
      ["nested.json", /nested\.json/],
      ["chain.json", /chain\.json/],
    ] as const) {
      const r = await runHcpx(["pack", "from-openapi", file, "--id", "deep", "--out", `packs/${file}`, "--json"], {
        cwd: w,
      });
      const env = JSON.parse(r.stdout);
      expect(env.ok, file).toBe(false);
      expect(env.error.code, r.stdout).toBe("too_deep");
      expect(env.error.message, file).not.toMatch(/do not resolve|call stack/);
      expect(env.error.file, file).toMatch(where);
      expect(existsSync(join(w, "packs", file)), file).toBe(false);
    }
  });

  it("a pack whose surface.json would be more than hcpx reads is refused before anything is written", async () => {
    const w = tmp("hcpx-oa-big-");
    const properties = Object.fromEntries(
      Array.from({ length: 40_000 }, (_, i) => [`p${i}`, { type: "string", description: "x".repeat(100) }]),
    );
    const body = { content: { "application/json": { schema: { type: "object", properties } } } };
    writeFileSync(
      join(w, "big.json"),
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "big", version: "1" },
        servers: [{ url: "http://127.0.0.1:9" }],
        paths: { "/w": { post: { operationId: "wide", requestBody: body, responses: {} } } },
      }),
    );
    const r = await runHcpx(["pack", "from-openapi", "big.json", "--id", "big", "--json"], { cwd: w });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "too_large",
      message: expect.stringContaining("surface.json would be"),
    });
    expect(existsSync(join(w, "packs", "big"))).toBe(false);
  });

  it("a relative server URL resolves against --origin; without it the pack keeps the path and the runtime asks for the origin", async () => {
    const doc = {
      openapi: "3.0.3",
      info: { title: "Rel", version: "1" },
      servers: [{ url: "/api/v3" }],
      paths: { "/ping": { get: { operationId: "ping", responses: { "200": { description: "ok" } } } } },
    };
    expect(
      importOpenapi(structuredClone(doc), "rel", { origin: "https://rel.example.com/docs/openapi.json" }).baseUrl,
    ).toBe("https://rel.example.com/api/v3");
    const r = importOpenapi(structuredClone(doc), "rel");
    expect(r.baseUrl).toBe("/api/v3");
    expect(r.notes.join("\n")).toMatch(/HCP_REL_BASE_URL/);
    const w = tmp("hcpx-oa-rel-");
    writeFileSync(join(w, "rel.json"), JSON.stringify(doc));
    expect((await runHcpx(["pack", "from-openapi", "rel.json", "--id", "rel"], { cwd: w })).code).toBe(0);
    writeFileSync(
      join(w, "hcp.config.json5"),
      JSON.stringify({ packs: ["./packs/rel"], grants: { allow: ["rel.*"] } }),
    );
    const no = await runHcpx(["exec", "rel", "ping", "--json"], { cwd: w });
    expect(JSON.parse(no.stdout).error).toMatchObject({ code: "bad_pack" });
    expect(JSON.parse(no.stdout).error.hint).toMatch(/HCP_REL_BASE_URL/);
    const yes = await runHcpx(["exec", "rel", "ping", "--json"], { cwd: w, env: { HCP_REL_BASE_URL: origin } });
    expect(JSON.parse(yes.stdout).ok).toBe(true);
    expect(seen.at(-1)!.url).toBe("/api/v3/ping");
  });

  it("--include / --exclude by tag, path glob or operationId", () => {
    const doc = () =>
      JSON.parse(
        JSON.stringify({
          openapi: "3.0.0",
          info: { title: "t", version: "1" },
          paths: {
            "/a/{x}": {
              get: { operationId: "getA", tags: ["alpha"] },
              delete: { operationId: "deleteA", tags: ["alpha"] },
            },
            "/b": { get: { operationId: "listB", tags: ["beta"] } },
            "/c/d/e": { post: { operationId: "makeE", tags: ["gamma"] } },
          },
        }),
      );
    const verbs = (o: Parameters<typeof importOpenapi>[2]) =>
      importOpenapi(doc(), "t", o)
        .commands.map((c) => c.verb_key)
        .sort();
    expect(verbs({ include: ["tag:alpha"] })).toEqual(["delete_a", "get_a"]);
    expect(verbs({ include: ["alpha"], exclude: ["op:delete*"] })).toEqual(["get_a"]);
    expect(verbs({ include: ["/c/**"] })).toEqual(["make_e"]);
    expect(verbs({ include: ["path:/*"] })).toEqual(["list_b"]);
    expect(verbs({ exclude: ["tag:alpha", "listB"] })).toEqual(["make_e"]);
    expect(importOpenapi(doc(), "t", { include: ["tag:nothing"] }).filtered).toBe(4);
  });
});

describe("names within every host's limits", () => {
  it("property: a fitted verb keeps server + tool ≤ 50, stays a verb_key, is deterministic", () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9]{0,14}$/);
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
        (segs, id) => {
          const verb = segs.map((ws) => ws.join("_")).join(".");
          const v = fitVerb(verb, id, verb);
          expect(v).toMatch(/^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$/);
          // "hcp" + "<id>__<verb with dots as _>"
          expect(3 + id.length + 2 + v.length).toBeLessThanOrEqual(MAX_SERVER_TOOL);
          if (3 + id.length + 2 + verb.length <= MAX_SERVER_TOOL) expect(v).toBe(verb);
          expect(fitVerb(verb, id, verb)).toBe(v);
        },
      ),
    );
  });

  it("a document of 400 long, near-identical operationIds: every tool name distinct and within the limit", () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 400; i++)
      paths[`/orgs/{org}/settings/security/advanced/item${i}`] = {
        get: {
          operationId: `security-advisories/get-organization-level-advanced-security-settings-for-${i % 7 === 0 ? "x" : "item"}-${i}`,
        },
      };
    const r = importOpenapi({ openapi: "3.0.0", info: { title: "t", version: "1" }, paths }, "big-api");
    const tools = r.commands.map((c) => `big-api__${c.verb_key.replace(/\./g, "_")}`);
    expect(new Set(tools).size).toBe(400);
    for (const t of tools) expect(3 + t.length).toBeLessThanOrEqual(MAX_SERVER_TOOL);
  });
});

describe("a huge pack keeps the context bounded", () => {
  it("1,500 operations add ≤ 4 KB to the prompt block and to the hcp tool description; lint has 0 errors", async () => {
    const w = tmp("hcpx-oa-huge-");
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 500; i++) {
      paths[`/things${i}/{id}`] = {
        get: { operationId: `things/get-a-thing-by-its-identifier-number-${i}`, tags: [`area${i % 30}`] },
        delete: { operationId: `things/delete-a-thing-by-its-identifier-number-${i}`, tags: [`area${i % 30}`] },
      };
      paths[`/things${i}`] = {
        post: {
          operationId: `things/create-a-thing-in-collection-${i}`,
          tags: [`area${i % 30}`],
          requestBody: {
            content: { "application/json": { schema: { type: "object", properties: { name: { type: "string" } } } } },
          },
        },
      };
    }
    writeFileSync(
      join(w, "huge.json"),
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "Huge", version: "1" },
        servers: [{ url: "https://huge.example.com" }],
        paths,
      }),
    );
    writeFileSync(join(w, "hcp.config.json5"), "{ packs: [], grants: { allow: [] } }\n");
    const measure = async () => {
      const g = await runHcpx(["generate", "--json"], { cwd: w, timeoutMs: 60_000 });
      expect(g.code, g.stdout + g.stderr).toBe(0);
      const prompt = readFileSync(join(w, ".hcp", "generated", "system-prompt.md"), "utf8").length;
      const c = await connectMcp([HCPX, "mcp"], w, baseEnv() as Record<string, string>);
      try {
        const hcp = (await c.client.listTools()).tools.find((t) => t.name === "hcp")!;
        return { prompt, tool: hcp.description!.length };
      } finally {
        await c.client.close();
      }
    };
    // the import and its lint (in this process) while the first `hcpx mcp` lists: they write packs/huge, not the config
    const measured = measure();
    const imported = runHcpx(["pack", "from-openapi", "huge.json", "--id", "huge"], { cwd: w, timeoutMs: 60_000 });
    const linted = runHcpx(["lint", "packs/huge", "--json"], { cwd: w, timeoutMs: 60_000 });
    const before = await measured;
    expect((await imported).code).toBe(0);
    const lint = await linted;
    expect(lint.code, lint.stdout.slice(0, 500)).toBe(0);
    expect((await runHcpx(["activate", "packs/huge"], { cwd: w, timeoutMs: 60_000 })).code).toBe(0);
    // grant the writes too, so every verb is in the lists
    const cfg = readFileSync(join(w, "hcp.config.json5"), "utf8");
    writeFileSync(join(w, "hcp.config.json5"), cfg.replace(/allow: \[/, 'allow: ["huge.*", '));
    const after = await measure();
    expect(after.prompt - before.prompt).toBeLessThanOrEqual(4096);
    expect(after.tool - before.tool).toBeLessThanOrEqual(4096);
    const prompt = readFileSync(join(w, ".hcp", "generated", "system-prompt.md"), "utf8");
    expect(prompt).toMatch(/… and \d+ more \(the Skill lists every verb/);
  });
});
