// Types of ./mcp-lines.mjs (plain JavaScript, run by the benches as it is).
export type McpEra = "legacy" | "modern";
export declare const mcpLine: (o: Record<string, unknown>) => string;
export declare const MCP_OPENING: Record<McpEra, string>;
export declare const mcpRequest: (era: McpEra, id: number, method: string, params?: Record<string, unknown>) => string;
export declare const mcpStart: (era: McpEra) => string;
