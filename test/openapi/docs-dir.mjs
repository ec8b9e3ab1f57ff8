// Where scripts/install-openapi-docs.sh installs the two large real OpenAPI
// documents (${HCPX_OPENAPI_DOCS_DIR:-$HOME/.cache/hcpx-openapi-docs}), named
// once for the Prism suite's config (test/support/suite-setup.ts) and the bench
// (bench/openapi.bench.mjs), which passes the real home: its HOME is a scratch one.
import { homedir } from "node:os";
import { join } from "node:path";

export const openapiDocsDir = (home = homedir()) =>
  process.env.HCPX_OPENAPI_DOCS_DIR || join(home, ".cache", "hcpx-openapi-docs");
