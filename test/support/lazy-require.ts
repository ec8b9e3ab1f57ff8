// Vitest runs the TypeScript sources, where Node's require() cannot load a .ts
// module. src/pack/schema.ts loads schema-defs with a require() that esbuild
// bundles as a lazily run module (hcpx exec then skips building the schemas);
// under vitest this plugin turns that require into a static import instead.
import type { Plugin } from "vite";

export function lazyRequireAsImport(): Plugin {
  return {
    name: "hcpx-lazy-require-as-import",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]src[\\/]pack[\\/]schema\.ts$/.test(id)) return undefined;
      const call = 'require("./schema-defs")';
      if (!code.includes(call)) throw new Error(`${id}: expected ${call}`);
      return { code: `import * as __schemaDefs from "./schema-defs";\n${code.replace(call, "__schemaDefs")}`, map: null };
    },
  };
}
