// hcpx init: write a commented hcp.config.json5 in the current directory.
// Never prompts without a TTY or with --yes/--json (§12.1.6); refuses to
// overwrite an existing config without --force.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fail } from "../../util/errors";
import { display, home } from "../../util/paths";
import { CONFIG_NAME } from "../../pack/load";
import { atomicWrite, checkConfigText } from "../../config/file";
import { configTemplate, type InitAnswers } from "../../config/template";
import { interactive } from "../../config/common";
import { c, done, makeOut, sayRaw } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx init`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type InitOpts = OptionsOf<"init"> & GlobalOpts;

export async function run(opts: InitOpts): Promise<number> {
  const out = makeOut(opts);
  const file = resolve(opts.config ?? CONFIG_NAME);
  const existed = existsSync(file);
  if (existed && !opts.force) {
    fail("config_exists", `${CONFIG_NAME} already exists; left unchanged`, {
      file: display(file),
      hint: "edit it, use `hcpx activate` / `hcpx grant`, or pass --force to overwrite it",
    });
  }
  const answers: InitAnswers = { principal: opts.principal ?? "dev", kind: "agent" };
  if (!opts.principal && interactive(opts)) Object.assign(answers, await ask(answers));
  const text = configTemplate(answers);
  checkConfigText(text, display(file));
  atomicWrite(file, text);
  // the hosts this project already uses (their config files): proposed for `hcpx adopt --detected`
  const { detectHosts, describeDetected } = await import("../../host/detect");
  const detected = detectHosts({
    scope: "project",
    root: dirname(file),
    home: home(),
    ledgerFile: join(dirname(file), ".hcp", "adopted.json"),
  });
  done(
    out,
    { config: file, created: !existed, principal: { id: answers.principal, kind: answers.kind }, detected },
    (col) =>
      [
        `${c.green(col, "✓")} ${existed ? "overwrote" : "wrote"} ${display(file)} (principal ${answers.principal}, ${answers.kind})`,
        "next:",
        "  hcpx pack new <id> --wrap <bin>   scaffold a pack around a CLI you have",
        "  hcpx activate <pack-dir>          activate it and grant its read commands",
        "  hcpx status                       what is active and granted",
        ...(detected.length
          ? [
              "",
              `hosts this project uses (${detected.map((d) => d.host).join(", ")}):`,
              ...describeDetected(detected).map((l) => `  ${l}`),
              "  hcpx adopt --detected --write     show them the packs (review first: without --write it prints the diff)",
            ]
          : ["  hcpx adopt <host> --write         show the packs to your agent (claude, codex, gemini, …)"]),
      ].join("\n"),
  );
  return 0;
}

async function ask(def: InitAnswers): Promise<Partial<InitAnswers>> {
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // an async iterator buffers lines typed ahead; end of input means "use the defaults"
  const lines = rl[Symbol.asyncIterator]();
  const question = async (q: string): Promise<string> => {
    sayRaw(q);
    const r = await lines.next();
    return r.done ? "" : String(r.value).trim();
  };
  try {
    const id = await question(`Principal id (who acts here) [${def.principal}]: `);
    const kind = (await question(`Is ${id || def.principal} a person or an agent? [${def.kind}]: `)).toLowerCase();
    return {
      principal: id && /^\S+$/.test(id) ? id : def.principal,
      kind: kind.startsWith("p") ? "person" : "agent",
    };
  } finally {
    rl.close();
  }
}
