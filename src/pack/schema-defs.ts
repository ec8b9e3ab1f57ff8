// The zod/mini schemas of the file formats, built by build(). Every object is
// strict: a key that is not declared here is an error (validate.ts), so a new
// field (an adapter kind, a per-command option) is added here, optional, and
// nowhere else is needed for packs using it to load. The unknown-key hint
// ("did you mean …") reads the known keys from these schemas.
// A module of its own so that schema.ts loads it, and zod with it, only when
// something is validated (see schema.ts).
import * as z from "zod/mini";
import { ARG_NAME_RE, ENV_NAME_RE, PACK_ID_RE, VERB_KEY_RE } from "./names";

// build() is a table, not steps: one declaration per file format, each
// referring to the ones above it; split into functions it would only pass the
// same schemas around. It stays one piece (test/arch/size.test.ts says why).
export function build() {
  // One instance of each schema used in many places (a schema is immutable: .check() and z.optional()
  // make new ones around it): building them was ~22 M instructions of exec's first call after install.
  const STR = z.string();
  const NON_EMPTY = z.string().check(z.minLength(1));
  const OPT_STR = z.optional(STR);
  const OPT_NON_EMPTY = z.optional(NON_EMPTY);
  const OPT_BOOL = z.optional(z.boolean());

  const ArgSchema = z.strictObject({
    /** array / object: openapi only; json (any JSON value): openapi and mcp packs; `schema` is their JSON Schema. */
    type: z.enum(["string", "integer", "number", "boolean", "enum", "array", "object", "json"]),
    required: OPT_BOOL,
    description: OPT_STR,
    flag: z.optional(z.string().check(z.regex(/^-{1,2}[A-Za-z0-9][A-Za-z0-9_-]*$/, "a flag looks like --name or -n"))),
    values: z.optional(z.array(z.union([z.string(), z.number()])).check(z.minLength(1))),
    allow_dash: OPT_BOOL,
    default: z.optional(z.union([z.string(), z.number(), z.boolean()])),
    /** openapi: where the value goes in the HTTP request. */
    in: z.optional(z.enum(["path", "query", "body", "header", "cookie"])),
    /** openapi: the parameter's or body property's name in the request, when it is not the arg name. */
    name: OPT_NON_EMPTY,
    /** openapi: how the value is serialized (OpenAPI 3 parameter styles). */
    style: z.optional(z.enum(["simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "deepObject"])),
    explode: OPT_BOOL,
    /** openapi: the JSON Schema of an array / object / json arg, passed to the tool's input schema. */
    schema: z.optional(z.record(z.string(), z.unknown())),
  });

  /** openapi security: OR of alternatives, each an AND of scheme names ([] = no credentials needed). */
  const SecurityReq = z.array(
    z.array(z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, "a scheme name is letters, digits, _ . -"))),
  );
  const ENV_NAME = z.string().check(z.regex(ENV_NAME_RE, "an env name is letters, digits and _"));
  const SchemeSchema = z.discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("apiKey"),
      in: z.enum(["header", "query", "cookie"]),
      name: NON_EMPTY,
      env: ENV_NAME,
    }),
    z.strictObject({ type: z.literal("bearer"), env: ENV_NAME }),
    z.strictObject({ type: z.literal("basic"), username_env: ENV_NAME, password_env: ENV_NAME }),
  ]);

  /** A command's inputs (docs/inputs.md), and a prompt's (docs/prompts.md): key → what hcpx asks the MCP client for. */
  const InputsSchema = z.record(
    z
      .string()
      .check(z.regex(/^[a-z][a-z0-9_]{0,31}$/, "an input key is lower-case letters, digits and _ (at most 32)")),
    z.strictObject({
      ask: z.enum(["form", "sampling", "roots"]),
      arg: z.string().check(z.regex(ARG_NAME_RE, "an arg name is letters, digits, _ or -")),
      message: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
      field: z.optional(z.string().check(z.regex(ARG_NAME_RE, "a field name is letters, digits, _ or -"))),
      prompt: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
      max_tokens: z.optional(z.number().check(z.int(), z.gte(1), z.lte(100_000))),
      round: z.optional(z.number().check(z.int(), z.gte(1), z.lte(8))),
      optional: OPT_BOOL,
    }),
  );

  const CommandSchema = z.strictObject({
    verb_key: z
      .string()
      .check(z.regex(VERB_KEY_RE, "a verb_key is lower-case words joined by dots, like `plan` or `entry.add`")),
    summary: NON_EMPTY,
    description: OPT_STR,
    cli: z.optional(z.array(STR).check(z.minLength(1))),
    /** wrap: how this command's stdout is read, when it differs from wrap.output. */
    output: z.optional(z.enum(["json", "text", "jsonl"])),
    args: z.optional(
      z.record(z.string().check(z.regex(ARG_NAME_RE, "an arg name is letters, digits, _ or -")), ArgSchema),
    ),
    /** mcp: the name of the server's tool this command calls (verb_key is the hcpx name). */
    tool: OPT_NON_EMPTY,
    /**
     * What hcpx asks the MCP client for before the command runs (docs/inputs.md):
     * key → a form question to the person, a sampling prompt or the client's
     * roots; the answer fills the named arg. Never a gate: confirm is.
     */
    inputs: z.optional(InputsSchema),
    /**
     * `hcpx mcp`: this command is also an MCP prompt (docs/prompts.md): the
     * person picks it in the host; hcpx asks the prompt's own inputs and answers
     * with a message telling the model which tool to call. Never runs it.
     */
    prompt: z.optional(
      z.strictObject({
        description: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
        inputs: z.optional(InputsSchema),
      }),
    ),
    http: z.optional(
      z.strictObject({
        method: z.enum([
          "GET",
          "POST",
          "PUT",
          "PATCH",
          "DELETE",
          "HEAD",
          "get",
          "post",
          "put",
          "patch",
          "delete",
          "head",
        ]),
        path: z.string().check(z.regex(/^\//, "an HTTP path starts with /")),
        /** the operation's own server (absolute, or relative to openapi.base_url) */
        base_url: OPT_NON_EMPTY,
        /** the request body: its media type; `whole` names the one arg that is the entire body */
        body: z.optional(
          z.strictObject({
            media: z.enum(["application/json", "application/x-www-form-urlencoded", "multipart/form-data"]),
            required: OPT_BOOL,
            whole: z.optional(z.string().check(z.regex(ARG_NAME_RE))),
          }),
        ),
        /** the Accept header (from the operation's response media types) */
        accept: OPT_NON_EMPTY,
        /** the operation's own security requirements (overrides openapi.security) */
        security: z.optional(SecurityReq),
      }),
    ),
  });

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

  const PIN_HASH = z
    .string()
    .check(z.regex(/^sha256:[0-9a-f]{64}$/, "a pin is sha256: and 64 hex digits, written by `hcpx pack from-mcp`"));
  const pinHash = () => PIN_HASH;
  /** a header of a remote server: a literal (never a credential: load refuses one, header_literal_secret) or a Binding env name, with an optional scheme ("Bearer") */
  const McpHeader = z.union([
    STR,
    z.strictObject({
      env: z.string().check(z.regex(ENV_NAME_RE, "an env name is letters, digits and _")),
      scheme: z.optional(
        z.string().check(z.regex(/^[A-Za-z][A-Za-z0-9._-]{0,31}$/, "a scheme is one word, like Bearer")),
      ),
    }),
  ]);
  /** kind mcp: an MCP server called through the SDK client: a stdio one started per call (`bin`), or a remote one over Streamable HTTP (`url`). */
  const McpSchema = z.strictObject({
    /** what is started: a bare name (through sandbox.bins, never PATH) or a path (inside sandbox.roots), as wrap.bin */
    bin: OPT_NON_EMPTY,
    /** a remote server's Streamable HTTP endpoint (http or https; no user:password, no credential in the query) */
    url: OPT_NON_EMPTY,
    /** url only: headers sent with every request; a credential comes from the Binding ({ env, scheme }) */
    headers: z.optional(
      z.record(
        z.string().check(z.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, "a header name is a token, like Authorization")),
        McpHeader,
      ),
    ),
    /** the server's argv after the bin, literal (no placeholders) */
    args: z.optional(z.array(STR)),
    /** literal environment values for the server (Binding names come from binding.env) */
    agent_env: z.optional(z.record(z.string().check(z.regex(ENV_NAME_RE)), z.string())),
    /** per call: start, initialize and tools/call (default 30000) */
    timeout_ms: z.optional(z.int().check(z.gt(0), z.lte(3_600_000))),
    /** what `hcpx pack from-mcp` saw, for `hcpx pack update`-style review; informative */
    server: z.optional(z.strictObject({ name: OPT_STR, version: OPT_STR })),
    /** per tool name: hashes of what the person reviewed (src/runtime/mcp-pins.ts); a tool that no longer matches is refused */
    pins: z.optional(
      z.record(
        z.string(),
        z.strictObject({ title: pinHash(), description: pinHash(), input_schema: pinHash(), annotations: pinHash() }),
      ),
    ),
  });

  /** kind openapi: the runtime sends each command as an HTTP request itself. */
  const OpenapiSchema = z.strictObject({
    document: OPT_NON_EMPTY,
    url: OPT_NON_EMPTY,
    base_url: OPT_NON_EMPTY,
    timeout_ms: z.optional(z.int().check(z.gt(0))),
    auth: z.optional(
      z.strictObject({
        header: NON_EMPTY,
        env: z.string().check(z.regex(ENV_NAME_RE)),
        scheme: OPT_STR,
      }),
    ),
    /** security schemes by name, each value from a Binding env name */
    schemes: z.optional(z.record(z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/)), SchemeSchema)),
    /** the document's default security requirements */
    security: z.optional(SecurityReq),
  });

  /**
   * Each adapter kind's own section of a surface, by its key (the `section` of
   * its entry in the adapter table, ./adapters): optional in the file, required
   * for a pack of that kind and refused on a pack of another when it loads.
   */
  const Sections = {
    wrap: WrapSchema,
    composite: z.strictObject({ module: NON_EMPTY }),
    openapi: OpenapiSchema,
    mcp: McpSchema,
  };
  const optional = <T extends Record<string, z.core.$ZodType>>(o: T) =>
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, z.optional(v)])) as {
      [K in keyof T]: z.ZodMiniOptional<T[K]>;
    };

  const SurfaceSchema = z.strictObject({
    $schema: OPT_STR,
    hcp: z.string().check(z.regex(/^1(\.\d+)?$/, 'hcp is the protocol version, like "1.1"')),
    id: z.string().check(z.regex(PACK_ID_RE, "a pack id matches ^[a-z][a-z0-9-]{0,31}$ (no '..', '/', '__')")),
    version: NON_EMPTY,
    description: NON_EMPTY,
    /** the adapter kinds (the table in ./adapters; a type check there keeps the two the same) */
    kind: z.enum(["wrap", "composite", "openapi", "sense_only", "mcp"]),
    ...optional(Sections),
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
        paths: z.optional(z.array(z.string().check(z.regex(/^(~\/|\/)[^\0]*$/, "a path starts with ~/ or /")))),
      }),
    ),
    binding: z.optional(
      z.strictObject({
        env: z.optional(z.array(z.string().check(z.regex(ENV_NAME_RE, "an env name is letters, digits and _")))),
      }),
    ),
    commands: z.optional(z.array(CommandSchema)),
    stimuli: z.optional(
      z.array(
        z.looseObject({
          id: NON_EMPTY,
          trigger: OPT_STR,
          summary: OPT_STR,
        }),
      ),
    ),
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

  const SkillFrontmatterSchema = z.looseObject({
    name: z
      .string()
      .check(
        z.regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "a Skill name is 1-64 of [a-z0-9-], no leading, trailing or double hyphen"),
        z.maxLength(64),
      ),
    description: z.string().check(z.minLength(1), z.maxLength(1024)),
    leads: z.optional(z.union([z.string(), z.array(z.string()).check(z.minLength(1), z.maxLength(3))])),
  });

  const CONFIRM_MODES = ["person", "host", "agent"] as const;
  const GrantPattern = z.string().check(z.minLength(1));
  const ConfigSchema = z.strictObject({
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
      }),
    ),
    /**
     * Who says yes to a `confirm: true` write (README "Who confirms a write"):
     * "person" | "host" (default) | "agent", or { by, timeout_ms } (how long
     * an MCP elicitation waits for the person, 1 s to 10 min, default 120 s).
     */
    confirm: z.optional(
      z.union([
        z.enum(CONFIRM_MODES),
        z.strictObject({
          by: z.enum(CONFIRM_MODES),
          timeout_ms: z.optional(z.number().check(z.int(), z.gte(1000), z.lte(600_000))),
        }),
      ]),
    ),
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
  return {
    ArgSchema,
    SchemeSchema,
    CommandSchema,
    PassThroughSchema,
    WrapSchema,
    McpSchema,
    Sections,
    SurfaceSchema,
    PolicyRowSchema,
    PolicySchema,
    SkillFrontmatterSchema,
    ConfigSchema,
  };
}
