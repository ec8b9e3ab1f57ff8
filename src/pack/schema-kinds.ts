// The schemas of surface.json that only some packs use: the openapi and mcp
// sections, a command's inputs, prompt and http, and an arg's openapi keys.
// build() (schema-defs.ts) builds them on the first read of SurfaceSchema,
// which a surface without any of these keys never needs (leanFits). Declared
// here once; nowhere else. Also the confirm field of a config, built only for
// a config that has one, and shared with the team server's principals
// (src/mcp/team-config.ts).
import * as z from "zod/mini";
import { ARG_NAME_RE, ENV_NAME_RE } from "./names";

/** The schemas of build() these use */
export type Lean = {
  STR: z.ZodMiniString;
  NON_EMPTY: z.ZodMiniString;
  OPT_STR: z.ZodMiniOptional<z.ZodMiniString>;
  OPT_NON_EMPTY: z.ZodMiniOptional<z.ZodMiniString>;
  OPT_BOOL: z.ZodMiniOptional<z.ZodMiniBoolean>;
};

/** An arg's keys that openapi packs use (and `schema`, mcp packs too). */
export function argExtras({ OPT_NON_EMPTY, OPT_BOOL }: Lean) {
  return {
    /** openapi: where the value goes in the HTTP request. */
    in: z.optional(z.enum(["path", "query", "body", "header", "cookie"])),
    /** openapi: the parameter's or body property's name in the request, when it is not the arg name. */
    name: OPT_NON_EMPTY,
    /** openapi: how the value is serialized (OpenAPI 3 parameter styles). */
    style: z.optional(z.enum(["simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "deepObject"])),
    explode: OPT_BOOL,
    /** openapi: the JSON Schema of an array / object / json arg, passed to the tool's input schema. */
    schema: z.optional(z.record(z.string(), z.unknown())),
  };
}

/** openapi's security schemes and requirements (kind openapi, and a command's http) */
export function security({ NON_EMPTY }: Lean) {
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
  return { SecurityReq, SchemeSchema };
}

/** A command's keys that only some packs use: inputs and prompt (`hcpx mcp`), http (openapi). */
export function commandExtras(
  { OPT_NON_EMPTY, OPT_BOOL }: Lean,
  SecurityReq: ReturnType<typeof security>["SecurityReq"],
) {
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

  return {
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
  };
}

/** The sections of kinds openapi and mcp. */
export function kindSections(
  { STR, NON_EMPTY, OPT_STR, OPT_NON_EMPTY }: Lean,
  SecurityReq: ReturnType<typeof security>["SecurityReq"],
  SchemeSchema: ReturnType<typeof security>["SchemeSchema"],
) {
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
  return { OpenapiSchema, McpSchema };
}

/**
 * Who says yes to a `confirm: true` write (README "Who confirms a write"):
 * "person" | "host" (default) | "agent", or { by, timeout_ms } (how long
 * an MCP elicitation waits for the person, 1 s to 10 min, default 120 s).
 * A config's `confirm`, and a team server principal's.
 */
export function confirmField() {
  const by = z.enum(["person", "host", "agent"]);
  return z.optional(
    z.union([
      by,
      z.strictObject({ by, timeout_ms: z.optional(z.number().check(z.int(), z.gte(1000), z.lte(600_000))) }),
    ]),
  );
}
