// format "yaml": the MCP entry in a YAML config (Goose's `extensions.hcp`, Continue's
// `mcpServers` list item named `hcp`, descriptor `named`). The text edits are
// src/host/yamledit.ts's (in the adopt/generate/doctor bundles only: never on the exec path);
// an entry already there is edited in place (src/host/yamlentry.ts: the person's comments and
// keys in it stay), or with --force written whole.
import { isDeepStrictEqual } from "node:util";
import type { Target } from "../descriptor";
import { sha256 } from "../../util/text";
import type { Document } from "yaml";
import { planKeyedEntry, removeKeyedEntry } from "./keyed";
import type { FormatHandler, KeyedFormat } from "./types";

type YamlEdit = typeof import("../yamledit");
let yamledit: YamlEdit | undefined;
/**
 * The YAML editor and the `yaml` package under it (~160 KB of the adopt, doctor and generate bundles),
 * loaded when a plan has a YAML file: a require() that esbuild bundles as a lazily run module (under
 * vitest, test/support/lazy-require.ts makes it an import), so every other adopt skips the package's
 * start (cpu profile, adopt claude --write: ~0.4 ms).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily run bundled module (see above)
const y = (): YamlEdit => (yamledit ??= require("../yamledit") as YamlEdit);

/** the parsed document and its text (yamledit locates entries by the text's offsets) */
interface Doc {
  doc: Document.Parsed;
  text: string;
  file: string;
}
const keyOf = (key: string[], t?: Target) => ({ path: key, named: t?.named });

export const yamlDoc: KeyedFormat<Doc> = {
  kind: "yaml",
  showKey: (key) => key.join("."),
  initialText: (t) => y().initialYaml(t.initial),
  read: (text, file) => ({ doc: y().parseYamlFor(text, file), text, file }),
  get: (d, key, t) => y().yamlValueAt(d.doc, keyOf(key, t), d.text, d.file),
  where: () => ({}),
  set(text, d, key, value, f, t, _host, opts) {
    // the document read from this text is not parsed again
    const r = y().setYaml(text, keyOf(key, t), value, f.show, opts?.whole, d.text === text ? d.doc : undefined);
    return {
      text: r.text,
      undo: { ...(r.prefix ? { prefix: r.prefix } : {}), ...(r.insertedAt ? { insertedAt: r.insertedAt } : {}) },
    };
  },
  carry: (prev) =>
    prev
      ? {
          created: prev.created,
          ...(prev.prefix ? { prefix: prev.prefix } : {}),
          ...(prev.insertedAt ? { insertedAt: prev.insertedAt } : {}),
        }
      : {},
  readBack: (text, file) => ({ doc: y().parseYamlFor(text, file), text, file }),
  remove(text, _d, e, f, ctx, t) {
    const next = y().removeYaml(text, keyOf(e.key!, t), f.show, { insertedAt: e.insertedAt, prefix: e.prefix });
    // a file hcpx created goes when nothing but the host's skeleton (descriptor `initial`) is left
    const initial = ctx.initialOf(e.path);
    const left =
      next.trim() === "" ||
      (initial !== undefined &&
        isDeepStrictEqual(
          JSON.parse(JSON.stringify(y().yamlDocValue(next, f.show) ?? null)),
          JSON.parse(JSON.stringify(initial)),
        ));
    return e.created && left ? null : next;
  },
  hash: (v) => sha256(JSON.stringify(v)),
};

export const yamlFormat: FormatHandler = {
  doc: yamlDoc,
  kinds: ["yaml"],
  fits: (e, t, paths) => e.kind === "yaml" && paths.includes(e.path) && isDeepStrictEqual(e.key, t.key),
  async plan(t, abs, ctx) {
    return [planKeyedEntry(yamlDoc, t, abs, ctx)];
  },
  remove: (e, f, text, ctx) => removeKeyedEntry(yamlDoc, e, f, text, ctx),
};
