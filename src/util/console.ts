// What in-process pack code prints, kept off a stdout that carries answers.

/** The console methods a composite module may print with. */
const METHODS = ["log", "info", "debug", "dir", "table", "warn", "error"] as const;

/**
 * In a process whose stdout carries answers (hcpx exec's envelope, hcpx mcp's stdio stream), what a
 * composite module prints with the console goes through `write`, the command's own stderr exit (which
 * redacts and neutralises): a module's debug line on stdout broke the one envelope (`exec --json`) and
 * would break the MCP stream, and on stderr it could show a Binding's value. Called by those commands only:
 * a library user's own console is theirs. (A module that writes to process.stdout itself still reaches it.)
 */
export function consoleTo(write: (text: string) => void): void {
  const c = console as unknown as Record<string, (...a: unknown[]) => void>;
  const format = (a: unknown[]) =>
    (process.getBuiltinModule("node:util") as typeof import("node:util")).format(...a) + "\n";
  for (const m of METHODS) c[m] = (...a: unknown[]) => write(format(a));
}
