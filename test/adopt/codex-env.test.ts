// adopt reads a host's settings with the environment it is given (AdoptOptions.env, as the homes it writes
// are resolved: src/host/homes.ts), not with this process's: Codex's project_doc_max_bytes in $CODEX_HOME/
// config.toml, $CODEX_HOME taken from opts.env. Before 59c745a the limit's reads took process.env, so a
// caller passing env (the library, a test) had the limit read from one $CODEX_HOME and the files from another.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planAdopt } from "../../src/host/engine";
import { buildProjection } from "../../src/projection/build";
import { loadProject } from "../../src/pack/load";
import { HcpxError } from "../../src/util/errors";
import { scratchProject } from "../support/project";

describe("adopt codex with an env of its own", () => {
  it("reads the limit from the $CODEX_HOME that env names", async () => {
    const p = scratchProject({ packs: ["ledger"], ownHome: true });
    const project = loadProject({ config: p.config, user: false });
    const codexHome = join(p.home!, "codex-moved");
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, "config.toml"), "project_doc_max_bytes = 64\n");
    let err: unknown;
    try {
      await planAdopt(project, ["codex"], (skillsPath) => buildProjection(project, [], { skillsPath }), {
        scope: "project",
        home: p.home!,
        env: { ...process.env, CODEX_HOME: codexHome },
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HcpxError);
    expect((err as HcpxError).problems[0]).toMatchObject({ code: "too_large" });
    expect((err as HcpxError).problems[0]!.message).toContain(`project_doc_max_bytes = 64 in ${codexHome}`);
  });
});
