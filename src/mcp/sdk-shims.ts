// What the MCP SDK (v2) server imports from its platform shims (`@modelcontextprotocol/server/_shims`), in
// `hcpx mcp`'s bundle only (scripts/build.mjs, sdkShims): Node's process, and the SDK's own JSON Schema
// validator, AjvJsonSchemaValidator (./sdk-ajv.ts), loaded when the server first validates a schema (a
// legacy client's answer to a form question). The SDK's Node shim imports it, and ajv with its ~40
// modules and ajv-formats, at the SDK's load: every start ran them (~15 M instructions, callgrind, a start
// to the first tools/list) to construct a validator whose engines are made at its first getValidator
// anyway. The SDK's code is not changed: the same class does the validation. Vitest runs the SDK as it is.
import process from "node:process";
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/server";

export { process };

/** The SDK's validator, made at the first schema to validate. */
export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  private inner?: jsonSchemaValidator;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazily run bundled module (above)
    this.inner ??= new (require("./sdk-ajv") as typeof import("./sdk-ajv")).DefaultJsonSchemaValidator();
    return this.inner.getValidator<T>(schema);
  }
}
