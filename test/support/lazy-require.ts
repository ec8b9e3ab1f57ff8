// Vitest runs the TypeScript sources, where Node's require() cannot load a .ts
// module. src/pack/schema.ts loads schema-defs, and src/util/errors.ts the
// code table, with a require() that esbuild bundles as a lazily run module
// (hcpx exec then skips building the schemas, or the table when nothing
// fails); under vitest this plugin turns that require into a static import.
import type { Plugin } from "vite";

const LAZY = [
  { file: /[\\/]src[\\/]pack[\\/]schema\.ts$/, module: "./schema-defs", name: "__schemaDefs" },
  { file: /[\\/]src[\\/]util[\\/]errors\.ts$/, module: "./codes", name: "__codes" },
  { file: /[\\/]src[\\/]pack[\\/]load\.ts$/, module: "./input-rules", name: "__inputRules" },
  { file: /[\\/]src[\\/]runtime[\\/]sandbox[\\/]gate\.ts$/, module: "./index", name: "__sandbox" },
  { file: /[\\/]src[\\/]cli[\\/]load-command\.ts$/, module: "./cache-save", name: "__cacheSave" },
  { file: /[\\/]src[\\/]host[\\/]descriptor\.ts$/, module: "./descriptor-zod", name: "__descriptorZod" },
  { file: /[\\/]src[\\/]host[\\/]formats[\\/]yaml\.ts$/, module: "../yamledit", name: "__yamlEdit" },
];

export function lazyRequireAsImport(): Plugin {
  return {
    name: "hcpx-lazy-require-as-import",
    enforce: "pre",
    transform(code, id) {
      const hit = LAZY.find((l) => l.file.test(id));
      if (!hit) return undefined;
      const call = `require("${hit.module}")`;
      if (!code.includes(call)) throw new Error(`${id}: expected ${call}`);
      return { code: `import * as ${hit.name} from "${hit.module}";\n${code.replace(call, hit.name)}`, map: null };
    },
  };
}
