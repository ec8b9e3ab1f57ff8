// The one place an adapter starts a child process (the wrap adapter's bin, the
// mcp adapter's server): no shell, the exact env given, its own process group
// (so a cancel or a timeout can stop the group and every descendant, wrap.ts
// terminateTree). A sandbox around the child hooks here, once, for every kind.
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";

export interface ChildSpec {
  command: string;
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
}

/** Start `command argv…` (may throw synchronously, like spawn(); an async failure is the child's "error" event). */
export function spawnChild(spec: ChildSpec): ChildProcess {
  return spawn(spec.command, spec.argv, {
    cwd: spec.cwd,
    env: spec.env,
    shell: false,
    detached: process.platform !== "win32",
    stdio: spec.stdio,
    windowsHide: true,
  });
}
