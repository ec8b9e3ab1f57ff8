// The zod/mini schemas of the file formats, built by build(). Every object is
// strict: a key that is not declared here is an error (validate.ts), so a new
// field (an adapter kind, a per-command option) is added here, optional, and
// nowhere else is needed for packs using it to load. The unknown-key hint
// ("did you mean …") reads the known keys from these schemas.
// A module of its own so that schema.ts loads it, and zod with it, only when
// something is validated (see schema.ts).
//
// build() is a table, not steps: one declaration per file format, each
// referring to the ones above it. What only some surfaces use — the openapi and
// mcp sections, a command's inputs, prompt and http, an arg's openapi keys
// (~45% of the schemas, ~7 M instructions of exec's first call after install)
// — is declared apart (schema-kinds.ts) and built on first need: a surface
// whose keys are all the lean one's (leanFits) is validated with
// LeanSurfaceSchema, the same declarations without those optional keys, which
// parses it exactly as SurfaceSchema does. One declaration of each schema,
// shared by both. A config without confirm and mcp is validated with
// LeanConfigSchema the same way.
import * as z from "zod/mini";
import { ARG_NAME_RE, ENV_NAME_RE, PACK_ID_RE, VERB_KEY_RE } from "./names";
import { argExtras, commandExtras, confirmField, kindSections, security } from "./schema-kinds";

export function build() {
  // One instance of each schema used in many places (a schema is immutable: .check() and z.optional()
  // make new ones around it): building them was ~22 M instructions of exec's first call after install.
  const STR = z.string();
  const NON_EMPTY = z.string().check(z.minLength(1));
  const OPT_STR = z.optional(STR);
  const OPT_NON_EMPTY = z.optional(NON_EMPTY);
  const OPT_BOOL = z.optional(z.boolean());

  /** An arg's keys of every kind (argExtras adds openapi's after them). */
  const argKeys = {
    /** array / object: openapi only; json (any JSON value): openapi and mcp packs; `schema` is their JSON Schema. */
    type: z.enum(["string", "integer", "number", "boolean", "enum", "array", "object", "json"]),
    required: OPT_BOOL,
    description: OPT_STR,
    flag: z.optional(z.string().check(z.regex(/^-{1,2}[A-Za-z0-9][A-Za-z0-9_-]*$/, "a flag looks like --name or -n"))),
    values: z.optional(z.array(z.union([z.string(), z.number()])).check(z.minLength(1))),
    allow_dash: OPT_BOOL,
    default: z.optional(z.union([z.string(), z.number(), z.boolean()])),
  };
  const ARG_NAME = z.string().check(z.regex(ARG_NAME_RE, "an arg name is letters, digits, _ or -"));
  const argsOf = <A extends z.core.$ZodType>(arg: A) => z.optional(z.record(ARG_NAME, arg));

  /** A command's keys of every kind (commandExtras adds the others after them). */
  const commandKeys = {
    verb_key: z
      .string()
      .check(z.regex(VERB_KEY_RE, "a verb_key is lower-case words joined by dots, like `plan` or `entry.add`")),
    summary: NON_EMPTY,
    description: OPT_STR,
    cli: z.optional(z.array(STR).check(z.minLength(1))),
    /** wrap: how this command's stdout is read, when it differs from wrap.output. */
    output: z.optional(z.enum(["json", "text", "jsonl"])),
    args: argsOf(z.strictObject(argKeys)),
    /** mcp: the name of the server's tool this command calls (verb_key is the hcpx name). */
    tool: OPT_NON_EMPTY,
  };

  const PassThroughSchema = z.strictObject({
    allowedSubcommands: z
      .array(z.string().check(z.regex(/^[a-z][a-z0-9_-]*$/, "a subcommand is one lower-case word")))
      .check(z.minLength(1)),
    maxArgv: z.int().check(z.gte(0), z.lte(256)),
  });

  const WrapSchema = z.strictObject({
    bin: NON_EMPTY,
    argv_template: z.optional(z.array(STR)),
    agent_env: z.optional(z.record(z.string().check(z.regex(ENV_NAME_RE)), z.string())),
    json_flag: z.optional(z.nullable(STR)),
    output: z.optional(z.enum(["json", "text", "jsonl"])),
    timeout_ms: z.optional(z.int().check(z.gt(0), z.lte(3_600_000))),
    pass_through: z.optional(PassThroughSchema),
  });

  const CompositeSchema = z.strictObject({ module: NON_EMPTY });
  /**
   * A surface's keys before and after the openapi and mcp sections (kindSections),
   * which full() puts between them. Each adapter kind's own section (the
   * `section` of its entry in the adapter table, ./adapters) is optional in the
   * file, required for a pack of that kind and refused on a pack of another
   * when it loads.
   */
  const surfaceHead = {
    $schema: OPT_STR,
    hcp: z.string().check(z.regex(/^1(\.\d+)?$/, 'hcp is the protocol version, like "1.1"')),
    id: z.string().check(z.regex(PACK_ID_RE, "a pack id matches ^[a-z][a-z0-9-]{0,31}$ (no '..', '/', '__')")),
    version: NON_EMPTY,
    description: NON_EMPTY,
    /** the adapter kinds (the table in ./adapters; a type check there keeps the two the same) */
    kind: z.enum(["wrap", "composite", "openapi", "sense_only", "mcp"]),
    wrap: z.optional(WrapSchema),
    composite: z.optional(CompositeSchema),
  };
  const surfaceTail = {
    pass_through: z.optional(PassThroughSchema),
    /**
     * What the program needs beyond its Policy when hcpx confines it
     * (sandbox.enforce "os", docs/sandbox.md): the network endpoints it talks
     * to and which calls get the network, and the paths hcpx hides (HOME's
     * secrets) that it must read. Reviewed like any other reach.
     */
    reach: z.optional(
      z.strictObject({
        network: z.optional(
          z.array(
            z
              .string()
              .check(
                z.regex(
                  /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.*-]+):(\d{1,5}|\*)$/,
                  'a network endpoint is host:port, like "api.example.com:443" or "127.0.0.1:8080"',
                ),
              ),
          ),
        ),
        network_for: z.optional(z.array(z.enum(["read", "local", "remote", "external"]))),
        /** the program connects to unix sockets (a database's, an agent's): under "os" it may make them (else EACCES) */
        unix_sockets: z.optional(z.boolean()),
        // no `.` or `..` segment: the path lint and the review show is the path the sandbox opens
        paths: z.optional(
          z.array(
            z
              .string()
              .check(z.regex(/^(~\/|\/)[^\0]*$/, "a path starts with ~/ or /"))
              .check(z.regex(/^(?!.*(^|\/)\.\.?(\/|$))/, "a path has no . or .. segment (write it as it resolves)")),
          ),
        ),
      }),
    ),
    binding: z.optional(
      z.strictObject({
        env: z.optional(z.array(z.string().check(z.regex(ENV_NAME_RE, "an env name is letters, digits and _")))),
      }),
    ),
  };
  const stimuli = z.optional(
    z.array(
      z.looseObject({
        id: NON_EMPTY,
        trigger: OPT_STR,
        summary: OPT_STR,
      }),
    ),
  );
  /** SurfaceSchema without openapi, mcp and a command's inputs, prompt and http (see leanFits) */
  const LeanSurfaceSchema = z.strictObject({
    ...surfaceHead,
    ...surfaceTail,
    commands: z.optional(z.array(z.strictObject(commandKeys))),
    stimuli,
  });

  const PolicyRowSchema = z.strictObject({
    operation: z.enum(["read", "write"]),
    land: z.optional(z.enum(["local", "remote", "external"])),
    confirm: OPT_BOOL,
    inferred: OPT_BOOL,
    note: OPT_STR,
  });

  const PolicySchema = z.strictObject({
    $schema: OPT_STR,
    inferred: OPT_BOOL,
    rows: z.record(z.string(), PolicyRowSchema),
  });

  // built on first read: `hcpx exec` reads no SKILL.md
  const skillFrontmatter = () =>
    z.looseObject({
      name: z
        .string()
        .check(
          z.regex(
            /^[a-z0-9]+(-[a-z0-9]+)*$/,
            "a Skill name is 1-64 of [a-z0-9-], no leading, trailing or double hyphen",
          ),
          z.maxLength(64),
        ),
      description: z.string().check(z.minLength(1), z.maxLength(1024)),
      leads: z.optional(z.union([z.string(), z.array(z.string()).check(z.minLength(1), z.maxLength(3))])),
    });

  const GrantPattern = z.string().check(z.minLength(1));
  /** A config's keys (fullConfig adds confirm and mcp after them). */
  const configKeys = {
    $schema: OPT_STR,
    packs: z.optional(z.array(NON_EMPTY)),
    principal: z.optional(z.strictObject({ id: NON_EMPTY, kind: z.optional(z.enum(["person", "agent"])) })),
    grants: z.optional(
      z.strictObject({ allow: z.optional(z.array(GrantPattern)), deny: z.optional(z.array(GrantPattern)) }),
    ),
    sandbox: z.optional(
      z.strictObject({
        bins: z.optional(z.record(z.string(), NON_EMPTY)),
        roots: z.optional(z.array(NON_EMPTY)),
        cwd: OPT_NON_EMPTY,
        /**
         * "os": every wrap bin and mcp server runs confined by the operating
         * system per its Policy row (docs/sandbox.md); "off" (default): not.
         * Of the user and project configs the stricter wins; any other value
         * fails the config (never read as "off").
         */
        enforce: z.optional(z.enum(["os", "off"])),
        /** composite packs allowed to run in hcpx's own process under enforce "os" (every layer that asks "os" must list it) */
        trusted_composites: z.optional(z.array(NON_EMPTY)),
        /**
         * packs whose writes may change .git/config in a writable root under enforce "os" (git push -u,
         * git remote add); every layer that asks "os" must list it. For any other call .git/config is
         * read-only: a core.fsmonitor or core.hooksPath set there runs unconfined at the person's next git command
         */
        git_config_writers: z.optional(z.array(NON_EMPTY)),
        /**
         * folders (relative to this config's) inside a writable root that hold project configs of their own,
         * used when hcpx runs there while the sandbox is on (src/pack/nested.ts) and kept read-only to
         * every confined call of this project; any other such config is refused (nested_config)
         */
        nested_projects: z.optional(z.array(NON_EMPTY)),
      }),
    ),
  };
  /** ConfigSchema without confirm and mcp (see leanFits) */
  const LeanConfigSchema = z.strictObject(configKeys);
  // built on first read: a config with neither confirm nor mcp takes LeanConfigSchema
  const fullConfig = () =>
    z.strictObject({
      ...configKeys,
      /** who says yes to a `confirm: true` write (schema-kinds.ts) */
      confirm: confirmField(),
      /** `hcpx mcp`: how a pack's tools are named — "pack__verb" (default) or "verb" (the verb alone; docs/inputs.md) */
      mcp: z.optional(
        z.strictObject({
          tool_names: z.optional(
            z.record(
              z.string().check(z.regex(PACK_ID_RE, "a pack id matches ^[a-z][a-z0-9-]{0,31}$")),
              z.enum(["verb", "pack__verb"]),
            ),
          ),
        }),
      ),
    });
  // SurfaceSchema: the lean keys with the others in their places (the order of the keys is the
  // order of a parsed value's keys and of the issues).
  const full = () => {
    const lean = { STR, NON_EMPTY, OPT_STR, OPT_NON_EMPTY, OPT_BOOL };
    const { SecurityReq, SchemeSchema } = security(lean);
    const ArgSchema = z.strictObject({ ...argKeys, ...argExtras(lean) });
    // args in its place among commandKeys, with the full ArgSchema
    const CommandSchema = z.strictObject({
      ...commandKeys,
      args: argsOf(ArgSchema),
      ...commandExtras(lean, SecurityReq),
    });
    const { OpenapiSchema, McpSchema } = kindSections(lean, SecurityReq, SchemeSchema);
    const Sections = { wrap: WrapSchema, composite: CompositeSchema, openapi: OpenapiSchema, mcp: McpSchema };
    const SurfaceSchema = z.strictObject({
      ...surfaceHead,
      openapi: z.optional(OpenapiSchema),
      mcp: z.optional(McpSchema),
      ...surfaceTail,
      commands: z.optional(z.array(CommandSchema)),
      stimuli,
    });
    return { ArgSchema, SchemeSchema, CommandSchema, McpSchema, Sections, SurfaceSchema };
  };
  let whole: ReturnType<typeof full> | undefined;
  const heavy = () => (whole ??= full());
  let config: ReturnType<typeof fullConfig> | undefined;
  let skill: ReturnType<typeof skillFrontmatter> | undefined;
  // The getters build on first read: ArgSchema to SurfaceSchema all together (full), the others each alone.
  return {
    get ArgSchema() {
      return heavy().ArgSchema;
    },
    get SchemeSchema() {
      return heavy().SchemeSchema;
    },
    get CommandSchema() {
      return heavy().CommandSchema;
    },
    PassThroughSchema,
    WrapSchema,
    get McpSchema() {
      return heavy().McpSchema;
    },
    get Sections() {
      return heavy().Sections;
    },
    get SurfaceSchema() {
      return heavy().SurfaceSchema;
    },
    LeanSurfaceSchema,
    PolicyRowSchema,
    PolicySchema,
    get SkillFrontmatterSchema() {
      return (skill ??= skillFrontmatter());
    },
    get ConfigSchema() {
      return (config ??= fullConfig());
    },
    LeanConfigSchema,
  };
}

/**
 * Whether a lean schema (LeanSurfaceSchema, LeanConfigSchema) parses `value`
 * exactly as the full one (SurfaceSchema, ConfigSchema) does: when every key of
 * the value, and of each of a surface's commands and their args, is one of the
 * lean schema's.
 * The two differ only in optional keys, which zod passes over when they are
 * absent (no key in the result, no issue), and share every schema under them:
 * the same result, the same issues in the same order (the lean keys are in the
 * full schema's order), and no unknown key at these levels, the only places
 * where validate.ts would read different known keys for a hint. Anything else
 * (a key only the full schema has, a typo, commands that are not an array of
 * objects) takes the full schema.
 */
export function leanFits(
  lean: ReturnType<typeof build>["LeanSurfaceSchema"] | ReturnType<typeof build>["LeanConfigSchema"],
  value: unknown,
): boolean {
  // zod's own tests: an object is not null and not an array; its keys are what for...in yields
  const isObject = (v: unknown): v is object => typeof v === "object" && v !== null && !Array.isArray(v);
  const within = (v: unknown, shape: object): boolean => {
    if (!isObject(v)) return false;
    for (const k in v) if (!Object.hasOwn(shape, k)) return false;
    return true;
  };
  const shape = lean.shape;
  if (!within(value, shape)) return false;
  const commands = (value as { commands?: unknown }).commands;
  if (commands === undefined) return true;
  // a config has no commands: a value with them failed above
  if (!("commands" in shape)) return false;
  const command = shape.commands._zod.def.innerType._zod.def.element.shape;
  const arg = command.args._zod.def.innerType._zod.def.valueType.shape;
  // and each command's args: an object whose every value is an arg with the lean keys only
  const argsWithin = (args: unknown) =>
    args === undefined || (isObject(args) && Object.values(args).every((a) => within(a, arg)));
  return (
    Array.isArray(commands) && commands.every((c) => within(c, command) && argsWithin((c as { args?: unknown }).args))
  );
}
