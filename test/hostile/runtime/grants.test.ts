// Issue 6, item 5 (grants), the part in `npm test`: 300 generated configs
// in-process, 6 through the CLI and two real MCP servers (the first config's
// generate and each config's first exec a process, the other runs in-process).
// The suites and what they check: grants-suite.ts; 24 configs through the
// real CLI: grants.slow.ts.
import { grantSuites } from "./grants-suite";

grantSuites({ inProcessRuns: 300, cliRuns: 6, fewProcesses: true });
