// The schema of a descriptor's `gate.unread`, and of a gate check's files that may be read above the
// project (docs/host-descriptors.md, src/host/unread.ts), loaded with the rest of the descriptor's zod
// schemas (./descriptor-zod.ts).
import * as z from "zod/mini";

/**
 * One thing the host merges into its rules that hcpx does not read: an environment variable (`env`:
 * opencode's OPENCODE_CONFIG, OPENCODE_CONFIG_CONTENT, OPENCODE_PERMISSION) or a file (`path`: relative
 * to the project, `~/…`, or absolute — a managed config in /etc). While one is there (a variable set
 * and not empty; a file no target of the served scope was read from), the host's approval is not in
 * force, and adopt --check and doctor say so (`policy_widened`). `scope`: only for that scope's
 * server. `hidden`: the host does not pass the variable to its servers (Kilo deletes KILO_CONFIG):
 * the server cannot tell, so the approval is never in force there. `what`: what the host reads
 * there, said to the person. `above`: the host also reads the project's `path` in each folder above
 * the one it runs in, up to the root of its git worktree (or of the file system outside one): opencode's
 * opencode.json and .opencode/ in a monorepo's parent folders. One of `env` and `path`
 * (src/host/descriptor-check.ts checkUnread).
 */
export const UnreadSchema = z.strictObject({
  env: z.optional(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/))),
  path: z.optional(z.string().check(z.minLength(1))),
  scope: z.optional(z.enum(["project", "user"])),
  hidden: z.optional(z.literal(true)),
  above: z.optional(z.literal(true)),
  what: z.string().check(z.minLength(1)),
});

/**
 * One file of a gate check (`gate.inForce[].path`, a scope's `health[].path`): a path, or a project's path
 * the host also reads in the folders above the project (`above`: true, each folder up to the root of the git
 * worktree, or of the file system outside one, as `gate.unread`'s; "root": every folder up to the file
 * system's root, a repository or not: opencode's and Kilo's TUI read tui.json so). Read after the project's,
 * nearest folder first (src/host/unread.ts checkFiles; a relative path only: descriptor-check.ts).
 */
export const CheckPathSchema = z.union([
  z.string().check(z.minLength(1)),
  z.strictObject({
    path: z.string().check(z.minLength(1)),
    above: z.union([z.literal(true), z.literal("root")]),
  }),
]);
export type CheckPath = z.infer<typeof CheckPathSchema>;

/** A gate check's paths as written (`path`, or `{ path, above }`): each file name, and whether it is read above. */
export function checkPaths(h: { path: CheckPath | CheckPath[] }): { path: string; above?: true | "root" }[] {
  return (Array.isArray(h.path) ? h.path : [h.path]).map((p) => (typeof p === "string" ? { path: p } : p));
}
