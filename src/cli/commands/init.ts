// hcpx init: write a commented hcp.config.json5 in the current directory.
// Never prompts without a TTY or with --yes/--json (§12.1.6); refuses to
// overwrite an existing config without --force. The use case is
// src/app/init.ts; this asks the questions and renders its report.
import { resolve } from "node:path";
import { display } from "../../util/paths";
import { userConfigFile } from "../../host/userscope";
import { initTarget, writeInit, type InitAnswers } from "../../app/init";
import { interactive } from "../../config/common";
import { c, done, makeOut, sayRaw } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx init`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type InitOpts = OptionsOf<"init"> & GlobalOpts;

export async function run(opts: InitOpts): Promise<number> {
  const out = makeOut(opts);
  const target = initTarget(opts);
  const answers: InitAnswers = { principal: opts.principal ?? "dev", kind: "agent" };
  if (!opts.principal && interactive(opts)) Object.assign(answers, await ask(answers));
  const r = await writeInit(target, answers);
  const { detected } = r;
  const file = r.config;
  const existed = !r.created;
  const { describeDetected } = await import("../../host/detect");
  // a config named with --config is named again in each next step; the user config is adopted at user scope
  const cfg = opts.config !== undefined ? ` --config ${display(file)}` : "";
  const userConfig = opts.config !== undefined && resolve(file) === userConfigFile();
  const step = (cmd: string, what: string) => `  ${`${cmd}  `.padEnd(34)}${what}`;
  done(out, { config: file, created: r.created, principal: r.principal, detected }, (col) =>
    [
      `${c.green(col, "✓")} ${existed ? "overwrote" : "wrote"} ${display(file)} (principal ${answers.principal}, ${answers.kind})`,
      "next:",
      step("hcpx pack new <id> --wrap <bin>", "scaffold a pack around a CLI you have"),
      step(`hcpx activate <pack-dir>${cfg}`, "activate it and grant its read commands"),
      step(`hcpx status${cfg}`, "what is active and granted"),
      ...(userConfig
        ? [
            step(
              "hcpx adopt <host> --scope user --write",
              "show your packs to your agent in every project (claude, codex, …)",
            ),
          ]
        : detected.length
          ? [
              "",
              `hosts this project uses (${detected.map((d) => d.host).join(", ")}):`,
              ...describeDetected(detected).map((l) => `  ${l}`),
              step(
                `hcpx adopt --detected --write${cfg}`,
                "show them the packs (review first: without --write it prints the diff)",
              ),
            ]
          : [step(`hcpx adopt <host> --write${cfg}`, "show the packs to your agent (claude, codex, gemini, …)")]),
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
