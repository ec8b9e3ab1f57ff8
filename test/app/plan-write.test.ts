// The from-openapi and scaffold use cases (src/app/) plan without writing and
// then write what the CLI writes, byte for byte: `hcpx pack from-openapi` and
// `hcpx pack new` are thin callers of the same functions.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyFromOpenapi, planFromOpenapi } from "../../src/app/from-openapi";
import { applyScaffold, planScaffold } from "../../src/app/scaffold";
import { fromMcp } from "../../src/app/from-mcp";
import { HcpxError } from "../../src/util/errors";
import { envelope, REPO, runHcpx, tmp } from "../support/hcpx";

const SHOP = join(REPO, "test", "fixtures", "openapi", "shop", "openapi.yaml");

describe("use cases plan, then write what the CLI writes", () => {
  it("from-openapi: the plan writes nothing; applied, it is the CLI's pack", async () => {
    const dir = join(tmp("hcpx-app-"), "shop");
    const plan = await planFromOpenapi(SHOP, { id: "shop", out: dir });
    expect(plan.files.map(([n]) => n)).toEqual(["openapi.json", "surface.json", "policy.json", "SKILL.md"]);
    expect(existsSync(dir)).toBe(false);
    const report = applyFromOpenapi(plan);
    expect(report.pack.commands.length).toBe(plan.result.commands.length);
    const cliDir = join(tmp("hcpx-app-cli-"), "shop");
    const cli = envelope<{ files: string[] }>(
      await runHcpx(["pack", "from-openapi", SHOP, "--id", "shop", "--out", cliDir, "--json"]),
    );
    expect(cli.ok).toBe(true);
    for (const [name] of plan.files)
      expect(readFileSync(join(dir, name), "utf8"), name).toBe(readFileSync(join(cliDir, name), "utf8"));
  });

  it("scaffold: the plan writes nothing; applied, it is the CLI's pack", async () => {
    const root = tmp("hcpx-app-");
    const dir = join(root, "demo");
    const plan = planScaffold({ id: "demo", kind: "composite", dir, config: join(root, "none.json5") });
    expect(existsSync(dir)).toBe(false);
    const report = applyScaffold(plan);
    expect(report.binRecorded).toBeUndefined();
    const cliDir = join(tmp("hcpx-app-cli-"), "demo");
    const cli = envelope<{ files: string[] }>(
      await runHcpx(["pack", "new", "demo", "--composite", "--dir", cliDir, "--json"]),
    );
    expect(cli.ok).toBe(true);
    expect(Object.keys(plan.files)).toEqual(cli.ok ? cli.data.files : []);
    for (const name of Object.keys(plan.files))
      expect(readFileSync(join(dir, name), "utf8"), name).toBe(readFileSync(join(cliDir, name), "utf8"));
  });

  it("a wrong request is an HcpxError with the CLI's code, and nothing is written", async () => {
    const dir = join(tmp("hcpx-app-"), "x");
    await expect(planFromOpenapi(SHOP, { id: "Bad", out: dir })).rejects.toMatchObject({
      exitCode: 64,
      problems: [{ code: "bad_id" }],
    });
    expect(() => planScaffold({ id: "Bad", kind: "composite", dir })).toThrow(HcpxError);
    await expect(fromMcp(["node", "x.mjs"], { url: "https://example.com/mcp" })).rejects.toMatchObject({
      problems: [{ code: "usage" }],
    });
    expect(existsSync(dir)).toBe(false);
  });
});
