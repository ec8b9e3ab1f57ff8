// What a confined write may make that a mount cannot keep from being made: a `commondir` in a git dir that
// has none (the repository's own .git, a submodule's). git takes it as where to read that repository's
// config and hooks, so one pointing at a git dir of the write's own would have its core.fsmonitor run at
// the person's next git command (a shell prompt's `git status` included). planFor lists the ones absent
// before the call (gitdirs.ts gitProtected's `absent`); after it, one that is there was made by the call: it is
// removed through the door, and the call's answer is sandbox_denied, saying so. The call has ended by then
// (bubblewrap's pid namespace: nothing it started runs on), so nothing makes it again.
import { lstatSync } from "node:fs";
import { display } from "../../util/paths";
import { failure, type Envelope } from "../envelope";

/**
 * `e`, or sandbox_denied when the call made one of `absent`: each such file removed through `remove` (the
 * caller's door, ConfineContext.remove), or, without one, named to be removed before git runs there.
 */
export function sweepPlanted(
  e: Envelope,
  absent: readonly string[] | undefined,
  label: string,
  remove?: (file: string) => void,
): Envelope {
  const made = (absent ?? []).filter((f) => lstatSync(f, { throwIfNoEntry: false }) !== undefined);
  if (!made.length) return e;
  for (const f of made) remove?.(f);
  const files = made.map((f) => display(f)).join(", ");
  const done = remove ? "it was removed" : "remove it before git runs there";
  return failure(
    "sandbox_denied",
    `${label}: the program made ${files}, which would have git read another git dir's config and hooks (its core.fsmonitor would run at the next git command); ${done}, and what else the call did stands`,
    {
      ...(e.ok ? {} : { exit_code: e.error.exit_code, stderr_tail: e.error.stderr_tail }),
      hint: "a write must not redirect a repository's git dir (docs/sandbox.md); look at what else the call changed before you trust it",
    },
  );
}
