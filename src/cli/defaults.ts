// `hcpx mcp`'s option defaults, from one place: the options schema (spec.ts)
// declares them to commander, and the plain form main.ts reads without
// commander (fast-exec.ts) starts from them. Its own module so that the start
// path loads these few bytes and not the schema.
export const MCP_DEFAULTS = { shape: "single", watch: true, auth: true } as const;
