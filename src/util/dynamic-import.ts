// import() for lazily loaded modules (a composite's module, …).
// Command bundles run from a script compiled with V8's code cache
// (src/cli/load-command.ts), where an import() inside the script has no loader
// in Node 20; the ESM entry puts its own import() here first, under a
// registered symbol, and code that imports lazily goes through this.
const KEY = Symbol.for("hcpx.import");

type Importer = (url: string) => Promise<unknown>;

/** Called by the ESM entry before it runs a cached command bundle. */
export function provideImporter(fn: Importer): void {
  (globalThis as Record<symbol, unknown>)[KEY] = fn;
}

export function dynamicImport(url: string): Promise<unknown> {
  const fn = (globalThis as Record<symbol, unknown>)[KEY] as Importer | undefined;
  return fn ? fn(url) : import(url);
}
