// Whether bubblewrap started the program, as bubblewrap itself reports it (--json-status-fd, read on a
// pipe of hcpx's: SpawnLine.report): the one ground truth for "bubblewrap could not set the sandbox up,
// nothing ran" (sandbox_unavailable, audit `refused`). Never the call's stderr: that is the program's
// too, and a program can print "bwrap: …" and exit 1 as bubblewrap does.
//
// bubblewrap (0.3.2 on; hcpx needs 0.5 for --perms) writes `{ "child-pid": N, … }` right after its
// clone(), before it sets the sandbox up (a mount it cannot make, a --chdir, the execvp come after), and
// `{ "exit-code": N }` once the program has exited, only when the execvp happened (bubblewrap.c
// report_child_exit_status: its setup_finished pipe). So a child-pid says nothing; an exit-code says the
// program ran. The fd is closed in the sandbox's first process, before any of the program runs: the
// program cannot write a status of its own (test/runtime/sandbox-status.test.ts).

export interface BwrapStatus {
  /** what bubblewrap wrote, once its end of the pipe is closed (spawn.ts reads it) */
  take: (text: string) => void;
  /** true: it started the program (an exit-code); false: it stopped before; undefined: no report read */
  programStarted: () => boolean | undefined;
  /**
   * Whether bubblewrap refused: it exited with `exitCode` 1 (its own failure's) and its report says it never
   * started the program. The one check: a call's answer (index.ts explainDenial) and an MCP server's start,
   * not tried again in the older protocol mode (mcp-client.ts connect), both ask it.
   */
  refused: (exitCode: number | undefined) => boolean;
}

/** A status for one spawn: the spawn hands what it read to `take`; explainDenial and connect() ask `refused`. */
export function bwrapStatus(): BwrapStatus {
  let text: string | undefined;
  const programStarted = () => (text === undefined ? undefined : /"exit-code"\s*:\s*-?\d/.test(text));
  return {
    take: (t) => {
      text = t;
    },
    programStarted,
    refused: (exitCode) => exitCode === 1 && programStarted() === false,
  };
}

/** bubblewrap's own reason, from stderr, once its report says the program never started (so only it wrote there). */
export function bwrapSaid(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const own = lines.filter((l) => l.startsWith("bwrap: ")).at(-1);
  return own ? own.slice("bwrap: ".length) : (lines.at(-1) ?? "it exited with code 1 before it started the program");
}
