// OpenAPI packs against a mock server that validates every request against the
// document: Prism (`@stoplight/prism-cli`, `prism mock --errors`, 127.0.0.1),
// started here. For each document: `hcpx pack from-openapi` → `hcpx lint`
// (0 errors) → `hcpx activate` (+ grants for the writes) → `hcpx exec` of a
// sample of operations with the Binding set. Each call must succeed (Prism
// answers a request that breaks the document with an error), Prism's log must
// show no request violation, and no Binding value may appear in any output.
//
// Documents: the OAI petstore example and a multi-file 3.1 shop (fixtures), and
// two large real ones from npm, installed by scripts/install-openapi-docs.sh:
// GitHub's (@octokit/openapi, 13 MB, 1,223 operations) and Blockfrost's
// (@blockfrost/openapi, YAML). Run with `npm run test:openapi` (in .ci/run).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { REPO, runHcpx, tmp } from "../support/hcpx";

const PRISM = join(REPO, "node_modules", ".bin", "prism");
// as the suite's config names it (test/support/suite-setup.ts), before the worker's HOME is a scratch one
const DOCS = process.env.HCPX_OPENAPI_DOCS_DIR!;
const GITHUB_DOC = join(DOCS, "node_modules/@octokit/openapi/generated/api.github.com.json");
const BLOCKFROST_DOC = join(DOCS, "node_modules/@blockfrost/openapi/openapi.yaml");
const FIX = join(REPO, "test", "fixtures", "openapi");

interface Prism {
  url: string;
  log: () => string;
  stop: () => void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startPrism(doc: string, timeoutMs: number): Promise<Prism> {
  const port = await freePort();
  const child: ChildProcess = spawn(PRISM, ["mock", "--errors", "-h", "127.0.0.1", "-p", String(port), doc], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`prism did not start within ${timeoutMs} ms:\n${log.slice(-2000)}`)),
      timeoutMs,
    );
    const on = (d: Buffer) => {
      log += d.toString("utf8");
      if (log.includes("Prism is listening")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", on);
    child.stderr!.on("data", on);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${code}):\n${log.slice(-2000)}`));
    });
  });
  child.removeAllListeners("exit");
  return { url: `http://127.0.0.1:${port}`, log: () => log, stop: () => child.kill("SIGTERM") };
}

interface Call {
  verb: string;
  kv?: string[];
  confirm?: boolean;
  check?: (data: any) => void;
}

interface Imported {
  dir: string;
  verbs: Map<string, string>;
  lintErrors: number;
}

/** import → lint → init + activate + grant every write the sample uses. */
async function importPack(doc: string, id: string, writes: string[] = [], extra: string[] = []): Promise<Imported> {
  const dir = tmp(`hcpx-prism-${id}-`);
  const imp = await runHcpx(["pack", "from-openapi", doc, "--id", id, "--json", ...extra], {
    cwd: dir,
    timeoutMs: 60_000,
  });
  expect(imp.code, imp.stdout + imp.stderr).toBe(0);
  const data = JSON.parse(imp.stdout).data as {
    commands: { verb_key: string; operationId?: string; http: { method: string; path: string } }[];
  };
  // a sample names an operation by its operationId or by "METHOD /path"
  const verbs = new Map<string, string>();
  for (const c of data.commands) {
    verbs.set(`${c.http.method} ${c.http.path}`, c.verb_key);
    if (c.operationId) verbs.set(c.operationId, c.verb_key);
  }
  const lint = await runHcpx(["lint", `packs/${id}`, "--json"], { cwd: dir, timeoutMs: 60_000 });
  const problems = (JSON.parse(lint.stdout).data?.packs ?? []).flatMap(
    (p: { problems: { severity: string; code: string; message: string }[] }) => p.problems,
  );
  const errors = problems.filter((p: { severity: string }) => p.severity === "error");
  expect(errors, JSON.stringify(errors.slice(0, 5))).toEqual([]);
  expect(lint.code).toBe(0);
  writeFileSync(join(dir, "hcp.config.json5"), "{ packs: [], grants: { allow: [] } }\n");
  const act = await runHcpx(["activate", `packs/${id}`, "--json"], { cwd: dir, timeoutMs: 60_000 });
  expect(act.code, act.stdout + act.stderr).toBe(0);
  for (const w of writes) {
    const g = await runHcpx(["grant", `${id}.${verbs.get(w) ?? w}`], { cwd: dir });
    expect(g.code, g.stderr).toBe(0);
  }
  return { dir, verbs, lintErrors: errors.length };
}

/** Every form a Binding value could take in an output. */
function forms(secrets: string[]): string[] {
  return secrets.flatMap((s) => [s, Buffer.from(s).toString("base64"), encodeURIComponent(s)]);
}

async function runSample(
  p: Imported,
  id: string,
  prism: Prism,
  env: Record<string, string>,
  calls: Call[],
): Promise<void> {
  const secrets = forms(
    Object.entries(env)
      .filter(([k]) => !k.startsWith("HCP_"))
      .map(([, v]) => v),
  );
  const failures: string[] = [];
  for (const call of calls) {
    const verb = p.verbs.get(call.verb) ?? call.verb;
    const r = await runHcpx(
      ["exec", id, verb, "--json", ...(call.confirm ? ["--confirm"] : []), "--", ...(call.kv ?? [])],
      { cwd: p.dir, env: { ...env, HCP_CONFIG: "" }, timeoutMs: 30_000 },
    );
    const out = r.stdout + r.stderr;
    for (const s of secrets) if (out.includes(s)) failures.push(`${call.verb}: a Binding value is in the output`);
    let envl: { ok: boolean; data?: unknown; error?: unknown };
    try {
      envl = JSON.parse(r.stdout);
    } catch {
      failures.push(`${call.verb}: not one JSON envelope: ${r.stdout.slice(0, 300)}`);
      continue;
    }
    if (!envl.ok || r.code !== 0) failures.push(`${call.verb} (${verb}): ${JSON.stringify(envl.error).slice(0, 400)}`);
    else call.check?.(envl.data);
  }
  expect(failures).toEqual([]);
  const violations = prism
    .log()
    .split("\n")
    .filter((l) => /Violation: request|Invalid security scheme|Request did not pass the validation/.test(l));
  expect(violations).toEqual([]);
}

describe("the OAI petstore example", () => {
  let prism: Prism;
  beforeAll(async () => {
    prism = await startPrism(join(FIX, "petstore.yaml"), 60_000);
  });
  afterAll(() => prism?.stop());
  it("imports, lints clean, activates; list (query), show (path), create (JSON body) pass Prism", async () => {
    const p = await importPack(join(FIX, "petstore.yaml"), "petstore", ["createPets"]);
    await runSample(p, "petstore", prism, { HCP_PETSTORE_BASE_URL: prism.url }, [
      { verb: "listPets", kv: ["limit=5"], check: (d) => expect(Array.isArray(d)).toBe(true) },
      { verb: "showPetById", kv: ["petId=7"], check: (d) => expect(d).toHaveProperty("name") },
      { verb: "createPets", kv: ["id=8", "name=Rex", "tag=dog"] },
    ]);
  });
});

describe("a multi-file 3.1 document: every argument place, body kind and auth kind", () => {
  let prism: Prism;
  const env = {
    SHOP_TOKEN: "tok-AAAA1111zz",
    SHOP_USERNAME: "alice-user",
    SHOP_PASSWORD: "pw-BBBB2222zz",
    SHOP_SHOPKEY: "key-CCCC3333zz",
    SHOP_KEYINQUERY: "qk-DDDD4444zz",
    SHOP_SESSION: "sess-EEEE5555zz",
  };
  beforeAll(async () => {
    prism = await startPrism(join(FIX, "shop", "openapi.yaml"), 60_000);
  });
  afterAll(() => prism?.stop());
  it("path, query (array, deepObject), header, cookie, JSON / form / multipart bodies, array body, no-body write, DELETE with confirm, text and binary answers; bearer, basic, apiKey header/query/cookie, AND and OR", async () => {
    const p = await importPack(join(FIX, "shop", "openapi.yaml"), "shop", [
      "createItem",
      "updateItem",
      "deleteItem",
      "archiveItem",
      "setLabels",
      "createOrder",
      "uploadNote",
    ]);
    await runSample(p, "shop", prism, { HCP_SHOP_BASE_URL: prism.url, ...env }, [
      {
        verb: "listItems",
        kv: ["limit=5", 'tags=["a","b"]', 'filter={"color":"red","size":"m"}', "X-Request-Id=r1", "pref=dark"],
        check: (d) => expect(Array.isArray(d)).toBe(true),
      },
      { verb: "getItem", kv: ["itemId=3"] },
      { verb: "createItem", kv: ["name=lamp", "price=3.5", 'tags=["home"]', 'attrs={"origin":"se","weight":2}'] },
      { verb: "updateItem", kv: ["itemId=3", "name=desk"] },
      { verb: "setLabels", kv: ["itemId=3", 'body=["x","y"]'] },
      { verb: "archiveItem", kv: ["itemId=3"], check: (d) => expect(d).toBeNull() },
      { verb: "deleteItem", kv: ["itemId=3"], confirm: true },
      {
        verb: "createOrder",
        kv: ["item_id=3", "quantity=2", "note=hi there & more", "gift=true"],
        check: (d) => expect(d).toHaveProperty("order_id"),
      },
      { verb: "uploadNote", kv: ["title=T", "text=some text"] },
      { verb: "getReport", check: (d) => expect(d).toEqual({ text: "sales: 3" }) },
      {
        verb: "getExport",
        check: (d) => expect(d).toMatchObject({ binary: { content_type: "application/octet-stream" } }),
      },
    ]);
    // and without the Binding, Prism refuses: the credentials really were what passed
    const bare = await runHcpx(["exec", "shop", "get_item", "--json", "--", "itemId=3"], {
      cwd: p.dir,
      env: { HCP_SHOP_BASE_URL: prism.url },
    });
    expect(JSON.parse(bare.stdout).error).toMatchObject({ code: "http_error", status: 401 });
    expect(JSON.parse(bare.stdout).error.hint).toMatch(/SHOP_KEYINQUERY/);
  });
});

const haveDocs = existsSync(GITHUB_DOC) && existsSync(BLOCKFROST_DOC);
describe.skipIf(!haveDocs && !process.env.CI)("large real documents from npm", () => {
  it("the documents are installed (scripts/install-openapi-docs.sh)", () => {
    expect(haveDocs, `run scripts/install-openapi-docs.sh (looked in ${DOCS})`).toBe(true);
  });

  describe("GitHub (@octokit/openapi, 1,223 operations)", () => {
    let prism: Prism;
    beforeAll(async () => {
      if (haveDocs) prism = await startPrism(GITHUB_DOC, 240_000);
    }, 250_000);
    afterAll(() => prism?.stop());
    it("the whole document imports, lints with 0 errors, activates; a sample passes Prism", async () => {
      const p = await importPack(GITHUB_DOC, "github", [
        "gists/create",
        "issues/add-labels",
        "issues/create",
        "repos/delete",
        "activity/star-repo-for-authenticated-user",
        "markdown/render",
      ]);
      await runSample(p, "github", prism, { HCP_GITHUB_BASE_URL: prism.url }, [
        { verb: "meta/root", check: (d) => expect(d).toHaveProperty("current_user_url") },
        { verb: "issues/list-for-repo", kv: ["owner=octo", "repo=hello", "state=open", "per_page=5", "labels=bug,ui"] },
        {
          verb: "gists/create",
          kv: ['files={"a.txt":{"content":"hi"}}', "description=d", "public=true"],
          check: (d) => expect(d).toHaveProperty("files"),
        },
        // others see (and are notified of) a new issue: from-openapi drafts it external + confirm (issue 26 §5)
        {
          verb: "issues/create",
          kv: ["owner=octo", "repo=hello", "title=Bug", 'labels=["bug"]', 'assignees=["octocat"]'],
          confirm: true,
        },
        { verb: "issues/add-labels", kv: ["owner=octo", "repo=hello", "issue_number=1", 'labels=["bug"]'] },
        {
          verb: "activity/star-repo-for-authenticated-user",
          kv: ["owner=octo", "repo=hello"],
          check: (d) => expect(d).toBeNull(),
        },
        { verb: "markdown/render", kv: ["text=# hi"] },
        { verb: "repos/delete", kv: ["owner=octo", "repo=hello"], confirm: true },
      ]);
    });
  });

  describe("Blockfrost (@blockfrost/openapi, YAML, apiKey header)", () => {
    let prism: Prism;
    beforeAll(async () => {
      if (haveDocs) prism = await startPrism(BLOCKFROST_DOC, 120_000);
    }, 130_000);
    afterAll(() => prism?.stop());
    it("imports, lints clean, activates; a sample with the project_id Binding passes Prism", async () => {
      const p = await importPack(BLOCKFROST_DOC, "blockfrost", ["POST /ipfs/pin/add/{IPFS_path}"]);
      await runSample(
        p,
        "blockfrost",
        prism,
        { HCP_BLOCKFROST_BASE_URL: prism.url, BLOCKFROST_API_KEY: "mainnetSECRETprojectid0123" },
        [
          { verb: "GET /health" },
          { verb: "GET /blocks/latest" },
          { verb: "POST /ipfs/pin/add/{IPFS_path}", kv: ["IPFS_path=QmPojRfAXYAXV92Dof7gtSgaVuxEk64xx9CKvprqu9VwA8"] },
          {
            verb: "GET /accounts/{stake_address}",
            kv: ["stake_address=stake1u9ylzsgxaa6xctf4juup682ar3juj85n8tx3hthnljg47zctvm3rc"],
          },
          {
            verb: "GET /blocks/{hash_or_number}/txs",
            kv: ["hash_or_number=4873401", "count=10", "page=2", "order=desc"],
          },
          {
            verb: "GET /assets/{asset}/history",
            kv: ["asset=b0d07d45fe9514f80213f4020e5a61241458be626841cde717cb38a7nutcoin", "count=5", "order=asc"],
          },
        ],
      );
    });
  });
});
