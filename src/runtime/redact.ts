// The redaction lives in src/util/redact.ts (every layer, the CLI's exit and
// the library included, uses the one module); this name stays for imports of it.
export * from "../util/redact";
