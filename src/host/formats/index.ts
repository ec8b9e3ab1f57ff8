// The one table of format handlers: a target's `format` names its handler, a ledger
// entry's `kind` the handler that takes it out again. A new format (YAML) is one
// more module and one more line here (and its capabilities in descriptor.ts FORMAT_CAPS).
import type { Format } from "../descriptor";
import { dirOfSkillsFormat } from "./dir-of-skills";
import { fileFormat } from "./file";
import { jsonFormat } from "./json";
import { markdownBlockFormat } from "./markdown-block";
import { tomlFormat } from "./toml";
import { yamlFormat } from "./yaml";
import type { FormatHandler, LedgerKind } from "./types";

export const HANDLERS: Record<Format, FormatHandler> = {
  json: jsonFormat,
  jsonc: jsonFormat,
  toml: tomlFormat,
  yaml: yamlFormat,
  "markdown-block": markdownBlockFormat,
  file: fileFormat,
  "dir-of-skills": dirOfSkillsFormat,
};

const byKind = new Map<LedgerKind, FormatHandler>(
  Object.values(HANDLERS).flatMap((h) => h.kinds.map((k) => [k, h] as const)),
);

/** The handler that removes a ledger entry of this kind. */
export function handlerForKind(kind: LedgerKind): FormatHandler {
  return byKind.get(kind)!;
}

export type { FormatHandler, KeyedFormat, TargetContext, RemoveContext, VFile, CommandClass } from "./types";
