// The one test for "a plain JSON object" (not null, not an array), for values
// read from outside: parsed files, tool inputs, a server's answers.

/** `v` is an object and neither null nor an array. */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
