// Issue 6, item 5 (grants), the part in `npm test`: 300 generated configs
// in-process, 6 through the real CLI and two real MCP servers. The suites and
// what they check: grants-suite.ts; 24 configs through the CLI: grants.slow.ts.
import { grantSuites } from "./grants-suite";

grantSuites({ inProcessRuns: 300, cliRuns: 6 });
