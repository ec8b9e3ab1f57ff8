// The `hcpx init` use case: a commented hcp.config.json5 written (checked, then
// atomically), never over an existing config without `force`, and the hosts
// this project already uses (their config files) found for `hcpx adopt
// --detected`. The answers (principal id and kind) are the caller's: the CLI
// asks them on a terminal (src/cli/commands/init.ts). Nothing here prints or asks.
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fail } from "../util/errors";
import { display, home } from "../util/paths";
import { CONFIG_NAME } from "../pack/load";
import { atomicWrite, checkConfigText, lockConfig } from "../config/file";
import { configTemplate, type InitAnswers } from "../config/template";
import type { Detected } from "../host/detect";

export type { InitAnswers } from "../config/template";

/** Where init writes, checked before anything is asked. */
export interface InitTarget {
  file: string;
  existed: boolean;
}

export interface InitReport {
  config: string;
  created: boolean;
  principal: { id: string; kind: InitAnswers["kind"] };
  detected: Detected[];
}

/** The config file init writes (`config`, else ./hcp.config.json5); one that exists is refused unless `force`. */
export function initTarget(opts: { config?: string; force?: boolean }): InitTarget {
  const file = resolve(opts.config ?? CONFIG_NAME);
  const existed = existsSync(file);
  if (existed && !opts.force) {
    fail("config_exists", `${basename(file)} already exists; left unchanged`, {
      file: display(file),
      hint: "edit it, use `hcpx activate` / `hcpx grant`, or pass --force to overwrite it",
    });
  }
  return { file, existed };
}

/** Write the config with `answers`, and find the hosts the project uses. */
export async function writeInit(target: InitTarget, answers: InitAnswers): Promise<InitReport> {
  const { file, existed } = target;
  const text = configTemplate(answers);
  checkConfigText(text, display(file));
  // the config's edit lock (src/config/file.ts), over one that exists (--force): a grant or activate running
  // now would write its edit on the config this replaces, or this over its edit (a config not there yet has
  // no editor: each edit opens an existing one)
  if (existed) lockConfig(file);
  atomicWrite(file, text);
  // the hosts this project already uses (their config files): proposed for `hcpx adopt --detected`
  const { detectHosts } = await import("../host/detect");
  const detected = detectHosts({
    scope: "project",
    root: dirname(file),
    home: home(),
    ledgerFile: join(dirname(file), ".hcp", "adopted.json"),
  });
  return { config: file, created: !existed, principal: { id: answers.principal, kind: answers.kind }, detected };
}
