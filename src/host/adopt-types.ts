// The adopt planner's types (src/host/engine.ts planAdopt): what it is asked,
// the plan it returns, and the run's state as the planner's modules see it
// (RunView: src/host/adopt-run.ts builds it; adopt-remote.ts, block-route.ts,
// target-context.ts and finish-plan.ts read it). Types only.
import type { Project } from "../pack/model";
import type { BlockOptions, Projection } from "../projection/types";
import type { Problem } from "../util/errors";
import type { TemplateContext } from "./templates";
import type { McpCommand } from "./command";
import type { RemoteOptions, RemoteProbe } from "./remote";
import type { FileChange, FilePlan, LedgerRecord } from "../plan/types";
import type { ReadFs } from "../plan/fs";
import type { CommandClass, VFile } from "./formats";
import type { Descriptor, Target } from "./descriptor";
import type { Ledger, LedgerEntry, LedgerHost } from "./ledger";

export type Scope = "project" | "user";

export interface AdoptOptions {
  scope: Scope;
  /** `--command "<cmd> <args…>"` */
  command?: string;
  /** `--use-recorded-command`: write the MCP command the ledger records for a host (an earlier --command) */
  useRecordedCommand?: boolean;
  /** plan the removal of what hcpx wrote for these hosts */
  remove?: boolean;
  /** delete/replace files and entries changed since hcpx wrote them */
  force?: boolean;
  /** `--approve`: write the person's approval of the server where the descriptor has one (a target marked `approval`) */
  approve?: boolean;
  /** $HOME (default: home()) */
  home?: string;
  /** the environment the hosts' home variables are read from (descriptor `homes`; default: this process's) */
  env?: NodeJS.ProcessEnv;
  /** previews: pretend every file is absent and use the portable command */
  preview?: boolean;
  /** false: leave the Skill copies (dir-of-skills targets) out of the plan (generate's host previews) */
  skills?: boolean;
  /** `generate --as`: the bundle's identity (for its manifest template) */
  bundle?: TemplateContext["bundle"];
  /** the disk as the plan reads it (src/plan/fs.ts); default: the real one. Planning never writes. */
  fs?: ReadFs;
  /**
   * The project's .gitignore block (src/host/gitignore.ts), for adopt itself: true
   * (`--gitignore`) plans it; false keeps it up to date once it is there; absent
   * (doctor, bundles, previews) leaves .gitignore out of the plan.
   */
  gitignore?: boolean;
  /** the hcpx bin an entry without --command runs (default: this process's, process.argv[1]); the library names its package's bin */
  selfEntry?: string;
  /**
   * user scope: the user config the MCP entry serves (`--config <file>` is appended to
   * its command), so that it serves the same packs from any directory and environment
   */
  userConfig?: string;
  /** `--url` (and `--token-env`): each host's remote entry for that server instead of the local command (src/host/remote.ts) */
  remote?: RemoteOptions;
  /**
   * what a URL the person gave listed (`--url`, `doctor --url`: src/host/remote.ts probeRemote): the approval
   * rules of a remote entry that names that URL are written from its tools (remoteRules)
   */
  probe?: RemoteProbe;
}

export type { FileChange };

/** An adopt plan: the FilePlan (src/plan/types.ts) of the host files, with its ledger and journal as the record. */
export interface AdoptPlan extends FilePlan {
  scope: Scope;
  /** project root or $HOME */
  base: string;
  hosts: string[];
  remove: boolean;
  /** printed with the plan */
  notes: string[];
  /**
   * what the plan did not take from the files it read back: ledger or journal
   * entries ignored (a path outside the base, a malformed entry), a recorded
   * MCP command not used. Printed with every plan; drift for --check.
   */
  warnings: Problem[];
  record: LedgerRecord;
  /** the MCP command line each host's entry runs (as planned; absent with --remove) */
  commands: Record<string, string[]>;
  /** the hosts whose entry is a remote one (--url, or recorded by an earlier --url), and its URL and token variable */
  remotes: Record<string, RemoteOptions>;
  /** why a host will not read what the plan writes (a blank file it reads instead of the block's): health, for --check and doctor */
  unread: Problem[];
}

/** A remote entry's approval rules (AdoptRun.remoteRules): the listed tools' classes, "kept", or undefined for a local entry. */
export type RemoteRules = CommandClass[] | "kept" | undefined;

/**
 * A projection for one host: `skillsPath` is where that host's Skill copies are (for the
 * prompt block); `shell`: whether the block may advertise `hcpx exec` (hcpx on the host's PATH).
 */
export type ProjectionFor = (skillsPath: string, opts?: BlockOptions) => Projection;

/** What one ledger file says, and what an interrupted run's journal left (the ledger rebuilt from it). */
export interface LedgerState {
  ledgerFile: string;
  show: string;
  ledger: Ledger;
  ledgerOld?: string;
  ledgerBase?: string;
  journalFile: string;
  journalPending: boolean;
  temps: Set<string>;
  journalRmdirs: string[];
}

/** One adopt plan in the making (src/host/adopt-run.ts AdoptRun), as the planner's modules read and add to it. */
export interface RunView {
  readonly project: Project;
  readonly hosts: string[];
  readonly opts: AdoptOptions;
  readonly scope: Scope;
  readonly homeDir: string;
  /** where the hosts' home variables are read (AdoptOptions.env) */
  readonly env: NodeJS.ProcessEnv;
  readonly base: string;
  readonly problems: Problem[];
  readonly conflicts: Problem[];
  readonly warnings: Problem[];
  readonly unread: Problem[];
  readonly notes: string[];
  readonly vfs: Map<string, VFile>;
  readonly state: LedgerState;
  readonly ledger: Ledger;
  readonly descriptors: Descriptor[];
  readonly newHosts: Record<string, LedgerHost>;
  readonly commands: Record<string, string[]>;
  readonly remotes: Record<string, RemoteOptions>;
  readonly rmdirCandidates: Set<string>;
  readonly fs: ReadFs;
  absOf(p: string): string;
  /** a path of a descriptor (`~/…` where the host reads it: its `homes`), absolute */
  pathOf(d: Descriptor, p: string): string;
  showOf(abs: string): string;
  allLedgerEntries(): LedgerEntry[];
  file(abs: string): VFile;
  targetPath(t: Target, d: Descriptor): string;
  mcpOf(host: string): McpCommand;
}
