// What scripts/build.mjs fixes at build time (esbuild `define`), read in this
// one module: the package version, the hash of the pack schemas (the
// validation cache's key), the command bundles' hashes (the code cache's key,
// defined in the entry's bundle only), where the lazily loaded mcp adapter
// lies (defined in the command bundles only) and the host descriptors the
// build loaded (adopt's bundle only). Run from source (tests that import
// src/), none is defined and each has its fallback.
declare const HCPX_VERSION: string | undefined;
declare const HCPX_SCHEMA_HASH: string | undefined;
declare const HCPX_BUNDLE_HASHES: Record<string, string> | undefined;
declare const HCPX_MCP_ADAPTER: string | undefined;
declare const HCPX_HOSTS_INDEX: Record<string, { sha256: string; value: string }> | undefined;

/** package.json's version; "0.0.0-dev" from source */
export const VERSION: string = typeof HCPX_VERSION === "string" ? HCPX_VERSION : "0.0.0-dev";
/** a hash of the pack schemas: a validation cache entry of another build is never read (pack/validcache.ts) */
export const SCHEMA_HASH: string | undefined = typeof HCPX_SCHEMA_HASH === "string" ? HCPX_SCHEMA_HASH : undefined;
/** command → hash of its bundle: the code cache's key (cli/load-command.ts) */
export const BUNDLE_HASHES: Record<string, string> | undefined =
  typeof HCPX_BUNDLE_HASHES === "object" ? HCPX_BUNDLE_HASHES : undefined;
/** the mcp adapter's bundle, relative to a command bundle (runtime/adapters/index.ts) */
export const MCP_ADAPTER: string | undefined = typeof HCPX_MCP_ADAPTER === "string" ? HCPX_MCP_ADAPTER : undefined;
/**
 * `hosts/<file>` → the SHA-256 of its text when the build loaded it and the descriptor that load
 * returned, as JSON (host/descriptor.ts takes it for a file whose text has the same hash)
 */
export const HOSTS_INDEX: Readonly<Record<string, { sha256: string; value: string }>> | undefined =
  typeof HCPX_HOSTS_INDEX === "object" ? HCPX_HOSTS_INDEX : undefined;
