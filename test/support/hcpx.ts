// Shared test support, the old import path: the CLI runner (./cli.ts) and the
// project builder (./project.ts). New tests may import either directly.
export {
  baseEnv,
  cleanPath,
  envelope,
  HCPX,
  noStack,
  REPO,
  run,
  runHcpx,
  runHcpxChecked,
  spawnHcpx,
  type Env,
  type RunOptions,
  type RunResult,
} from "./cli";
export { projectConfig, scratchProject, tmp, type ProjectOptions, type ScratchProject } from "./project";
