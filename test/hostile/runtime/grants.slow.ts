// Issue 6, item 5 (grants), the long CLI run (`npm run test:hostile:slow`,
// called by .ci/run): 24 generated configs through the real CLI (generate,
// exec) and two real MCP servers. What it checks: grants-suite.ts.
import { grantSuites } from "./grants-suite";

grantSuites({ inProcessRuns: 0, cliRuns: 24 });
