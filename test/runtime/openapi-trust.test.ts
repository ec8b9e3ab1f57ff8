// Issue 9 §4: openapi requests go exactly where the grant says. Real HTTP
// servers on 127.0.0.1 (two of them, on different ports, for the cross-origin
// cases), the real runtime (`execute()`), and `hcpx exec` for the CLI output.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import fc from "fast-check";
import { runHcpx } from "../support/hcpx";
import { project, type MiniPack } from "./support";
import { execute } from "../../src/runtime/execute";
import { loadProject } from "../../src/pack/load";
import type { Project } from "../../src/pack/model";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

interface TestServer {
  origin: string;
  port: number;
  seen: Seen[];
  close: () => Promise<void>;
}

/** A loopback server: records every request; `route` answers it (default: 200 {"ok":true}). */
type Answer = { status: number; headers?: Record<string, string>; body?: string } | undefined;
async function startServer(
  route: (req: IncomingMessage, body: string, self: TestServer) => Answer = () => undefined,
): Promise<TestServer> {
  const self = { seen: [] as Seen[] } as TestServer;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (d: string) => (body += d));
    req.on("end", () => {
      self.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const r = route(req, body, self) ?? {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ok: true, url: req.url }),
      };
      res.writeHead(r.status, r.headers);
      res.end(r.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  self.port = port;
  self.origin = `http://127.0.0.1:${port}`;
  self.close = () => new Promise((resolve) => server.close(() => resolve()));
  return self;
}

const KEY = "k3y-Of-the-API-0123456789";
const PASS = "pa55-w0rd-s3cret";

const pack: MiniPack = {
  id: "api",
  surface: {
    kind: "openapi",
    openapi: {
      document: "./openapi.json",
      base_url: "http://127.0.0.1:9",
      auth: { header: "X-Api-Key", env: "API_KEY" },
    },
    binding: { env: ["API_KEY"] },
    commands: [
      {
        verb_key: "item",
        summary: "one item",
        http: { method: "GET", path: "/items/{id}/detail" },
        args: { id: { type: "string", required: true, in: "path" } },
      },
      {
        verb_key: "file",
        summary: "one file",
        http: { method: "GET", path: "/files/{name}.json" },
        args: { name: { type: "string", required: true, in: "path" } },
      },
      {
        verb_key: "go",
        summary: "follow",
        http: { method: "GET", path: "/go/{where}" },
        args: { where: { type: "string", required: true, in: "path" } },
      },
      {
        verb_key: "post",
        summary: "post",
        http: { method: "POST", path: "/post/{where}" },
        args: { where: { type: "string", required: true, in: "path" }, title: { type: "string", in: "body" } },
      },
      { verb_key: "echo", summary: "echo", http: { method: "GET", path: "/echo" } },
    ],
  },
  rows: {
    item: { operation: "read" },
    file: { operation: "read" },
    go: { operation: "read" },
    post: { operation: "write", land: "remote" },
    echo: { operation: "read" },
  },
};

let a: TestServer;
let b: TestServer;
let dir: string;
let proj: Project;

beforeAll(async () => {
  b = await startServer();
  a = await startServer((req, _body, self): Answer => {
    const u = req.url!;
    if (u.startsWith("/go/away")) return { status: 302, headers: { location: `${b.origin}/steal` } };
    if (u.startsWith("/go/away-rel")) return { status: 302, headers: { location: `//127.0.0.1:${b.port}/steal` } };
    if (u.startsWith("/go/same")) return { status: 302, headers: { location: "/landed" } };
    if (u.startsWith("/go/loop")) return { status: 302, headers: { location: "/go/loop" } };
    // a chain: /go/hops-<n> redirects to /go/hops-<n-1>, and /go/hops-0 answers
    const hops = /^\/go\/hops-(\d+)$/.exec(u);
    if (hops && Number(hops[1]) > 0) return { status: 302, headers: { location: `/go/hops-${Number(hops[1]) - 1}` } };
    if (u.startsWith("/go/userinfo"))
      return { status: 302, headers: { location: `http://evil:x@127.0.0.1:${self.port}/landed` } };
    if (u.startsWith("/post/away")) return { status: 307, headers: { location: `${b.origin}/steal` } };
    if (u.startsWith("/post/same")) return { status: 307, headers: { location: "/landed-post" } };
    if (u === "/echo")
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ auth: req.headers.authorization ?? null, key: req.headers["x-api-key"] ?? null }),
      };
    return undefined;
  });
  dir = project({ packs: [pack] }).dir;
  proj = loadProject({ config: `${dir}/hcp.config.json5`, user: false });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

const env = (base: string = a.origin): NodeJS.ProcessEnv => ({ HCP_API_BASE_URL: base, API_KEY: KEY });
const call = (verb: string, args: Record<string, unknown>, base?: string) =>
  execute(proj, { pack: "api", verb, args }, { env: env(base) });

describe("a path parameter can never change the path", () => {
  it("dot segments are refused; slashes, ?, #, % and backslashes are percent-encoded", async () => {
    for (const v of [".", "..", "%2e%2e", "%2E.", ".%2e"]) {
      const before = a.seen.length;
      const r = await call("item", { id: v });
      if (v.includes("%")) {
        // '%' is encoded as %25, so the server sees a literal segment, never a dot segment
        expect(r.ok, v).toBe(true);
        expect(a.seen.at(-1)!.url).toBe(`/items/${encodeURIComponent(v)}/detail`);
      } else {
        expect(r, v).toMatchObject({ ok: false, error: { code: "bad_args", arg: "id" } });
        expect(a.seen.length, `${v}: nothing was sent`).toBe(before);
      }
    }
    expect(await call("item", { id: "" })).toMatchObject({ ok: false, error: { code: "bad_args" } });
    for (const v of ["../../admin", "a/b", "x?admin=1", "x#frag", "a\\..\\b", "..;", "\u2025"]) {
      const r = await call("item", { id: v });
      expect(r.ok, v).toBe(true);
      const url = a.seen.at(-1)!.url;
      expect(url.split("/").length, `${v} → ${url}`).toBe(4);
      expect(url.startsWith("/items/") && url.endsWith("/detail"), url).toBe(true);
      expect(decodeURIComponent(url.split("/")[2]!)).toBe(v);
    }
    // a parameter inside a segment may hold dots: the segment is never a dot segment
    expect(await call("file", { name: ".." })).toMatchObject({ ok: true });
    expect(a.seen.at(-1)!.url).toBe("/files/...json");
  });

  it("property: for any string, the server sees the granted endpoint (or nothing is sent)", async () => {
    const piece = fc.oneof(
      fc.constantFrom(
        ".",
        "..",
        "/",
        "\\",
        "%",
        "%2e",
        "%2F",
        "?",
        "#",
        ";",
        "@",
        ":",
        "~",
        " ",
        "\t",
        "\u0000",
        "é",
        "\u{1F600}",
      ),
      fc.string({ maxLength: 4 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: fc.constantFrom("", ".", ".."), weight: 1 },
          { arbitrary: fc.array(piece, { maxLength: 6 }).map((xs) => xs.join("")), weight: 5 },
        ),
        async (v) => {
          const before = a.seen.length;
          const r = await call("item", { id: v });
          if (!r.ok) {
            expect(r.error.code).toBe("bad_args");
            expect(v === "" || v === "." || v === "..").toBe(true);
            expect(a.seen.length).toBe(before);
            return;
          }
          const url = a.seen.at(-1)!.url;
          const segs = url.split("/");
          expect(segs.length).toBe(4);
          expect(segs[1]).toBe("items");
          expect(segs[3]).toBe("detail");
          expect(decodeURIComponent(segs[2]!)).toBe(v);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("the base URL's own path stays in front", async () => {
    const r = await call("item", { id: "../../x" }, `${a.origin}/api/v1`);
    expect(r.ok).toBe(true);
    expect(a.seen.at(-1)!.url).toBe("/api/v1/items/..%2F..%2Fx/detail");
  });
});

describe("credentials never cross origins", () => {
  it("a redirect to another origin is not followed: the second server gets nothing, the Binding stays home", async () => {
    const before = b.seen.length;
    for (const where of ["away", "away-rel"]) {
      const r = await call("go", { where });
      expect(r, where).toMatchObject({ ok: false, error: { code: "http_error", status: 302 } });
      if (!r.ok) {
        expect(r.error.message).toMatch(/another origin/);
        expect(r.error.location).toBe(`${b.origin}/steal`);
      }
    }
    const post = await call("post", { where: "away", title: "t" });
    expect(post).toMatchObject({ ok: false, error: { code: "http_error", status: 307 } });
    expect(b.seen.length, "server B must see no request").toBe(before);
  });

  it("a same-origin redirect is followed, with the Binding; 307 keeps method and body", async () => {
    const r = await call("go", { where: "same" });
    expect(r).toMatchObject({ ok: true, data: { url: "/landed" } });
    const last = a.seen.at(-1)!;
    expect(last.url).toBe("/landed");
    expect(last.headers["x-api-key"]).toBe(KEY);
    const p = await call("post", { where: "same", title: "kept" });
    expect(p).toMatchObject({ ok: true, data: { url: "/landed-post" } });
    expect(a.seen.at(-1)).toMatchObject({ method: "POST", body: JSON.stringify({ title: "kept" }) });
  });

  it("at most 5 redirects are followed (README, 'Credentials never cross origins'); the 6th is an error", async () => {
    let before = a.seen.length;
    expect(await call("go", { where: "hops-5" })).toMatchObject({ ok: true, data: { url: "/go/hops-0" } });
    expect(a.seen.length - before, "the request and its 5 redirects").toBe(6);
    before = a.seen.length;
    const six = await call("go", { where: "hops-6" });
    expect(six).toMatchObject({ ok: false, error: { code: "http_error", status: 302 } });
    if (!six.ok) expect(six.error.message).toMatch(/more than 5 redirects; stopped/);
    expect(a.seen.length - before, "the 6th redirect is not followed").toBe(6);
  });

  it("a redirect loop ends with an error; a Location with userinfo is not followed", async () => {
    const loop = await call("go", { where: "loop" });
    expect(loop).toMatchObject({ ok: false, error: { code: "http_error" } });
    if (!loop.ok) expect(loop.error.message).toMatch(/redirect/);
    const ui = await call("go", { where: "userinfo" });
    expect(ui).toMatchObject({ ok: false, error: { code: "http_error" } });
    expect(JSON.stringify(ui)).not.toContain("evil:x");
  });
});

describe("a base URL's userinfo is a secret", () => {
  it("sent as HTTP Basic, never shown: not in the envelope, not in the server's echo", async () => {
    const base = `http://alice:${PASS}@127.0.0.1:${a.port}`;
    const r = await call("echo", {}, base);
    expect(r.ok).toBe(true);
    const sent = a.seen.at(-1)!;
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`alice:${PASS}`).toString("base64")}`);
    const out = JSON.stringify(r);
    expect(out).not.toContain(PASS);
    expect(out).not.toContain(Buffer.from(`alice:${PASS}`).toString("base64"));
  });

  // a password under 4 characters cannot be hidden from output: it is never sent (docs/output-safety.md); a
  // short user name beside a long password is not the credential, and the call runs
  it("a password too short to hide is refused, naming no value; a short user with a long password is sent", async () => {
    const short = await call("echo", {}, `http://alice:pw@127.0.0.1:${a.port}`);
    expect(short).toMatchObject({ ok: false, error: { code: "binding_too_short" } });
    expect(JSON.stringify(short)).toMatch(/password in its base URL/);
    const bob = await call("echo", {}, `http://bob:${PASS}@127.0.0.1:${a.port}`);
    expect(bob.ok).toBe(true);
    expect(a.seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from(`bob:${PASS}`).toString("base64")}`);
  });

  it("an unreachable base URL with userinfo: the error names the origin without it (exec --json and plain)", async () => {
    const base = `http://alice:${PASS}@127.0.0.1:9/api`;
    const direct = await call("echo", {}, base);
    expect(direct).toMatchObject({ ok: false, error: { code: "http_error" } });
    expect(JSON.stringify(direct)).not.toContain(PASS);
    for (const extra of [["--json"], []]) {
      const r = await runHcpx(["exec", "api", "echo", ...extra], {
        cwd: dir,
        env: { HCP_API_BASE_URL: base, API_KEY: KEY },
      });
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toContain(PASS);
      expect(r.stdout + r.stderr).not.toContain(`alice:`);
      expect(r.stdout + r.stderr).toContain("127.0.0.1:9");
    }
  });

  it("lint: a user:password in openapi.base_url is an error that does not print it", async () => {
    const { writeFileSync, readFileSync } = await import("node:fs");
    const f = `${dir}/packs/api/surface.json`;
    const orig = readFileSync(f, "utf8");
    try {
      const s = JSON.parse(orig);
      s.openapi.base_url = `https://alice:${PASS}@api.example.com/v1`;
      writeFileSync(f, JSON.stringify(s, null, 2));
      const r = await runHcpx(["lint", `${dir}/packs/api`, "--json"], { cwd: dir });
      expect(r.code).toBe(1);
      const env = JSON.parse(r.stdout) as {
        ok: boolean;
        error: {
          code: string;
          details: { packs: { problems: { code: string; severity: string; path?: string }[] }[] };
        };
      };
      expect(env.error.code).toBe("lint_errors");
      expect(env.error.details.packs[0]!.problems).toContainEqual(
        expect.objectContaining({ code: "openapi_userinfo", severity: "error" }),
      );
      expect(r.stdout + r.stderr).not.toContain(PASS);
    } finally {
      writeFileSync(f, orig);
    }
  });

  it("the Binding header is redacted when a server echoes it", async () => {
    const r = await call("echo", {});
    expect(JSON.stringify(r)).not.toContain(KEY);
    expect(r).toMatchObject({ ok: true, data: { key: "***" } });
  });
});
