// Recording a bare bin's absolute path in the project's `sandbox.bins` (the
// runtime never looks a bare name up on PATH), for the commands that write a
// pack around a program (`pack new --wrap`, `pack from-mcp`).
import { resolve } from "node:path";
import type { Problem } from "../util/errors";
import { CONFIG_NAME } from "../pack/load";
import { objectSet } from "./edit";
import { openConfig, writeConfig } from "./file";
import { warning } from "./common";

export type BinRecorded = "added" | "present" | "conflict" | "no_config";

/** Add `sandbox.bins.<name>: <path>` to the project config, keeping a different existing value (with a warning). */
export function recordSandboxBin(
  opts: { config?: string; cwd?: string },
  haveConfig: boolean,
  bin: { name: string; path: string },
  warnings: Problem[],
): BinRecorded {
  if (!haveConfig) {
    warnings.push(
      warning(
        "no_config",
        `no ${CONFIG_NAME} yet, so sandbox.bins.${bin.name} was not set`,
        `run \`hcpx init\`, then add sandbox: { bins: { ${bin.name}: ${JSON.stringify(bin.path)} } }`,
      ),
    );
    return "no_config";
  }
  const cfg = openConfig(opts);
  const existing = cfg.data.sandbox?.bins?.[bin.name];
  if (existing === undefined) {
    writeConfig(cfg.file, objectSet(cfg.text, ["sandbox", "bins"], bin.name, bin.path));
    return "added";
  }
  if (resolve(cfg.dir, existing) === bin.path) return "present";
  warnings.push(
    warning(
      "bin_mismatch",
      `sandbox.bins.${bin.name} is ${existing}, not ${bin.path}; left as it is`,
      "the pack will run the configured one",
    ),
  );
  return "conflict";
}
