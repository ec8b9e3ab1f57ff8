// What a spawn site hands the sandbox and gets back (src/runtime/sandbox/gate.ts,
// index.ts): a module of its own, so the gate names them without loading the sandbox.
import type { Envelope } from "../envelope";
import type { CommandPolicy, Pack, Project } from "../../pack/model";
import type { BwrapPlan } from "./bwrap";

/** What a call may do, from its Policy row: a read, or a write by where it lands. */
export type CallClass = "read" | "local" | "remote" | "external";

export function classOf(policy: Pick<CommandPolicy, "operation" | "land">): CallClass {
  if (policy.operation === "read") return "read";
  return policy.land ?? "local";
}

export interface SpawnLine {
  command: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** what the program reads on fds 3, 4 … (the sandbox's seccomp filter, seccomp.ts): the spawn feeds each and closes it */
  fds?: Uint8Array[];
  /** set when confined: the fds hcpx inherited reach the program as /dev/null (spawn.ts inheritedFds) */
  shutInherited?: boolean;
  /**
   * set when confined: the fd after `fds` is a pipe the program writes (bubblewrap's --json-status-fd), read
   * by the spawn to its end and handed here (status.ts)
   */
  report?: (text: string) => void;
  /** set when confined: whether the backend refused to set the sandbox up, nothing run (status.ts `refused`) */
  refused?: (exitCode: number | undefined) => boolean;
}

export interface Confined extends SpawnLine {
  /** the envelope of the run, told as a sandbox denial where the backend can tell one */
  explain(e: Envelope): Envelope;
  /** set when confined: how */
  plan?: BwrapPlan & { cls: CallClass; backend: "bwrap"; bwrap: string };
}

export interface ConfineContext {
  pack: Pack;
  project: Project;
  /** the class of the call (classOf(cmd.policy), or widestGranted for an mcp server) */
  cls: CallClass;
  /** the resolved program (its directory stays readable) */
  binPath: string;
  /**
   * the programs of the project's active packs (wrap.bin, mcp.bin, resolved), asked for only when the call is
   * confined: bound read-only where they lie in a writable root, so that a write cannot change what another
   * pack's next call runs under that call's Policy (its network, say)
   */
  packBins?: () => string[];
  label: string;
  /**
   * removes a file a confined write made that it must not have (planted.ts): the caller's door (the sandbox's
   * own bundle keeps no state of the door's); without it such a file is reported, not removed
   */
  remove?: (file: string) => void;
}
