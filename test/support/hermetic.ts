// What test/support/env.ts takes out of every test worker's environment (and so out of
// the children's, which baseEnv() builds from it), kept apart from that setup file so
// that a test can read the lists without running it again.

/** The environment variables of hcpx's own that src/ reads (its switches), none of which a test inherits. */
export const HCPX_SWITCHES = [
  "HCPX_AUDIT_KEEP",
  "HCPX_AUDIT_LOG",
  "HCPX_AUDIT_MAX_BYTES",
  "HCPX_BUILD_CACHE",
  "HCPX_DEBUG",
  "HCPX_LOCK_WAIT_MS",
  "HCPX_NO_CACHE",
  "HCPX_NO_SHIPPED_CACHE",
  "HCPX_TEST_KILL_AFTER_WRITES",
];

/**
 * Where hcpx looks for the user's files, besides HOME, and what colours its output; and the variables that
 * move a host's files (every descriptor's `homes`: test/support/hermetic.test.ts), which adopt follows.
 */
export const USER_PLACES = [
  "HCP_CONFIG",
  "XDG_CONFIG_HOME",
  "XDG_STATE_HOME",
  "XDG_CACHE_HOME",
  "FORCE_COLOR",
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "GEMINI_CLI_HOME",
  "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
];
