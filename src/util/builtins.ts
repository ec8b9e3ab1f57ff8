// Node builtins loaded when first used, not when the module that uses them is first run. An
// `import … from "node:crypto"` at a module's top is a require() run with the module (esbuild's
// bundles): `hcpx mcp` paid for node:crypto (~25 M instructions) and node:child_process (~12 M, with
// dgram and net's socket list) at every start, before it had anything to hash, sign or spawn
// (callgrind, `node -e` beside a piped stdin); a start serving a host until its first tools/list uses
// neither. process.getBuiltinModule returns the module Node already holds once it is loaded.

/** node:crypto: hashes, the requestState's HMAC and its random key (src/mcp/confirm-state.ts). */
export const nodeCrypto = (): typeof import("node:crypto") => process.getBuiltinModule("node:crypto");

/** node:child_process: an adapter's child (src/runtime/spawn.ts), `ps` for a call's process tree (wrap.ts). */
export const childProcess = (): typeof import("node:child_process") => process.getBuiltinModule("node:child_process");
