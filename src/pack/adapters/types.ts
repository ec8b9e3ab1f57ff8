// What an entry of the adapter table (./index.ts) is: one adapter kind, what it
// can do (capabilities, read by the runtime, lint, doctor and the projections
// instead of naming kinds), and its own lint rules. The runtime's half of an
// entry (how a call runs) is src/runtime/adapters/index.ts.
import type { LintCode } from "../../util/lint-codes";
import type { Problem } from "../../util/errors";
import type * as Z from "zod/mini";
import type { CommandSpec, Schemas, SurfaceFile } from "../schema";
import type { Seg } from "../json5";

export type { Seg };

/** The keys of a surface that hold one kind's settings (Sections in ../schema-defs.ts). */
export type SectionKey = keyof Schemas["Sections"];
/** The sections that name a program to start (`<key>.bin`). */
export type BinSection = {
  [K in SectionKey]: "bin" extends keyof Z.infer<Schemas["Sections"][K]> ? K : never;
}[SectionKey];

export interface AdapterCapabilities {
  /** has commands an agent can call (sense_only only emits stimuli) */
  callable: boolean;
  /** takes `type: "json"` arguments (passed on as JSON values, not argv text) */
  jsonArgs: boolean;
  /** may declare pass_through (literal argv after an allowed subcommand) */
  passThrough: boolean;
  /** reads a program's stdout (a command may set `output`) */
  readsStdout: boolean;
  /** its commands are argv for a program (cli[] / argv_template, `hcpx pack add-verb`) */
  cliArgv: boolean;
  /** its commands name a server tool (`tool`) */
  serverTools: boolean;
  /** the surface key of the program it starts (`<key>.bin`), if it starts one */
  binIn?: BinSection;
}

/** What a kind's lint rules see: the surface, its commands, and how to make a finding (always in surface.json). */
export interface KindLintContext {
  surface: SurfaceFile;
  specs: CommandSpec[];
  passThrough: NonNullable<SurfaceFile["pass_through"]> | undefined;
  /** the JSON path of the pass_through block in use */
  ptPath: Seg[];
  /** a finding at a JSON path of surface.json (with its line and column) */
  at(segs: Seg[], code: LintCode, severity: "error" | "warning", message: string, hint?: string): Problem;
}

/**
 * One lint rule (src/pack/lint-rules.ts holds the rules every kind shares, an
 * entry's `lint` its kind's own): the codes it reports and its check, which
 * returns its findings. `T` is what the check reads (a pack, or a surface).
 */
export interface LintRule<T, C> {
  code: LintCode | readonly LintCode[];
  check(subject: T, ctx: C): Problem[];
}

/** A kind's own rule: it reads the surface as parsed (lint runs on packs the runtime refuses). */
export type KindLintRule = LintRule<SurfaceFile, KindLintContext>;

/** `no_commands`, the rule of every kind whose packs must name their commands: `what` says which pack, `hint` how. */
export function noCommandsRule(what: string, hint: string): KindLintRule {
  return {
    code: "no_commands",
    check: (s, { specs, at }) =>
      specs.length === 0
        ? [at(s.commands ? ["commands"] : ["kind"], "no_commands", "error", `${what} declares no commands`, hint)]
        : [],
  };
}

/** A file of the pack that a kind's section names (lint: inside the pack, and there). */
export interface PackFileRef {
  rel: string;
  segs: Seg[];
  /** how messages name it (`composite.module`) */
  what: string;
}

/** What a kind's own section adds to a pack's reach (src/packs/review.ts shows it before a pack is trusted). */
export interface ReachPart {
  /** programs it starts, as written (review.ts says what each resolves to) */
  bins?: { bin: string; field: string; args?: string[] }[];
  /** code loaded into the hcpx process */
  modules?: string[];
  /** where HTTP requests go */
  http?: string[];
  /** environment names read from the runtime besides binding.env */
  env?: string[];
  /** environment names it sets for its program */
  setsEnv?: string[];
}

export interface AdapterEntry<K extends string = string> {
  kind: K;
  /**
   * The surface key holding this kind's settings, required for a pack of this
   * kind and refused on a pack of another (src/pack/load.ts: kind_missing_config,
   * kind_config_mismatch). Its schema is `<key>` of SurfaceSchema in
   * ../schema-defs.ts (the one zod module, built on first use).
   */
  section?: SectionKey;
  /** what to write when the section is missing (the hint of kind_missing_config) */
  sectionHint?: string;
  capabilities: AdapterCapabilities;
  /** this kind's own lint rules, in order (the rules every kind shares: src/pack/lint-rules.ts) */
  lint: readonly KindLintRule[];
  /**
   * The pack files this kind's section names (lint checks each is inside the
   * pack and exists). Lint asks every entry, whatever the pack's kind.
   */
  packFiles?(surface: SurfaceFile): PackFileRef[];
  /**
   * What this kind's section of a surface reaches. Review asks every entry,
   * whatever the pack's kind (a section another kind set is shown, never hidden).
   */
  review?(surface: SurfaceFile): ReachPart;
}
