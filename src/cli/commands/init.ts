// hcpx init: write a commented hcp.config.json5 in the current directory.
// Never prompts without a TTY or with --yes/--json (§12.1.6); refuses to
// overwrite an existing config without --force. The use case is
// src/app/init.ts; this asks the questions and renders its report.
import { display } from "../../util/paths";
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
  done(out, { config: file, created: r.created, principal: r.principal, detected }, (col) =>
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
