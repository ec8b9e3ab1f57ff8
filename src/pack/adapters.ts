// TEMP (reproduction): the adapter kinds
export const ADAPTERS = [
  { kind: "wrap", capabilities: { callable: true } },
  { kind: "composite", capabilities: { callable: true } },
  { kind: "openapi", capabilities: { callable: true } },
  { kind: "mcp", capabilities: { callable: true } },
  { kind: "sense_only", capabilities: { callable: false } },
] as const;
