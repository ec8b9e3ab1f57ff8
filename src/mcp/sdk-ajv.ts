// The SDK's own JSON Schema validator (ajv), which ./sdk-shims.ts require()s at its first use: esbuild bundles
// this module, and ajv with it, as one run only then.
export { DefaultJsonSchemaValidator } from "@modelcontextprotocol/server/_shims";
