// The schema of a descriptor's `gate.unread` (docs/host-descriptors.md, src/host/unread.ts), loaded
// with the rest of the descriptor's zod schemas (./descriptor-zod.ts).
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
