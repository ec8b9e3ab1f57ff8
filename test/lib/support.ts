// Library tests: a scratch project with the `probe` pack, a wrap over a Node
// bin that logs every run (the side effect a test counts) and puts its
// Binding value (PROBE_TOKEN) into its output, so redaction is on the line.
//   probe.status  read                 → {"status":"fine","token":<PROBE_TOKEN>}
//   probe.wipe    read, never granted  → would log "wipe"
//   probe.save    write, local, confirm required; arg note → logs "save <note>"
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { project as runtimeProject, writePack } from "../runtime/support";

export const SECRET = "sekrit-7f3a9c-binding-value";
/** The environment a probe call runs in: this worker's (its scratch HOME of this file, test/support/env.ts) and the Binding value. */
export const probeEnv = (): NodeJS.ProcessEnv => ({ ...process.env, PROBE_TOKEN: SECRET });

const BIN = `#!/usr/bin/env node
import { appendFileSync } from "node:fs";
const [verb, ...rest] = process.argv.slice(2);
appendFileSync("calls.log", [verb, ...rest].join(" ") + "\\n");
if (verb === "status") process.stdout.write(JSON.stringify({ status: "fine", token: process.env.PROBE_TOKEN ?? "" }) + "\\n");
else process.stdout.write(JSON.stringify({ done: verb, args: rest }) + "\\n");
`;

export interface ProbeProject {
  dir: string;
  config: string;
  /** the bin's runs so far, one line each ("status", "save hello") */
  calls(): string[];
  /** rewrite the grants in hcp.config.json5 */
  setAllow(allow: string[]): void;
}

export function probeProject(opts: { examples?: string[]; allow?: string[] } = {}): ProbeProject {
  const examples = opts.examples ?? [];
  const sp = runtimeProject({
    examples,
    allow: opts.allow ?? [...examples.map((e) => `${e}.*`), "probe.status", "probe.save"],
  });
  writeFileSync(join(sp.dir, "fx", "probe.mjs"), BIN);
  writePack(sp.dir, {
    id: "probe",
    surface: {
      kind: "wrap",
      wrap: { bin: "../../fx/probe.mjs", json_flag: null, output: "json" },
      binding: { env: ["PROBE_TOKEN"] },
      commands: [
        { verb_key: "status", summary: "Status of the probe", cli: ["probe", "status"], args: {} },
        { verb_key: "wipe", summary: "Wipe everything", cli: ["probe", "wipe"], args: {} },
        {
          verb_key: "save",
          summary: "Save a note",
          cli: ["probe", "save", "{{note}}"],
          args: { note: { type: "string", required: true, description: "The note" } },
        },
      ],
    },
    rows: {
      status: { operation: "read" },
      wipe: { operation: "read" },
      save: { operation: "write", land: "local", confirm: true },
    },
  });
  const cfg = JSON.parse(readFileSync(sp.config, "utf8")) as { packs: string[]; grants: { allow: string[] } };
  cfg.packs.push("./packs/probe");
  writeFileSync(sp.config, JSON.stringify(cfg, null, 2) + "\n");
  return {
    dir: sp.dir,
    config: sp.config,
    calls: () => {
      try {
        return readFileSync(join(sp.dir, "calls.log"), "utf8").split("\n").filter(Boolean);
      } catch {
        return [];
      }
    },
    setAllow: (allow) => {
      const c = JSON.parse(readFileSync(sp.config, "utf8")) as { grants: { allow: string[] } };
      c.grants.allow = allow;
      writeFileSync(sp.config, JSON.stringify(c, null, 2) + "\n");
    },
  };
}

/** A confirm callback that answers from a list and records what it was asked. */
export function person(answers: boolean[]): {
  asked: { pack: string; verb: string; args: unknown; land?: string; message: string }[];
  confirm: (r: { pack: string; verb: string; args: unknown; land?: string; message: string }) => Promise<boolean>;
} {
  const asked: { pack: string; verb: string; args: unknown; land?: string; message: string }[] = [];
  return {
    asked,
    confirm: async (r) => {
      asked.push({ pack: r.pack, verb: r.verb, args: r.args, land: r.land, message: r.message });
      return answers.shift() ?? false;
    },
  };
}
