// The files in a home directory that hold secrets: hidden from every confined
// call (sandbox.enforce "os") unless its pack declares the path in
// reach.paths. Credentials of tools and clouds, and the hosts' own config
// files, which hold the env (API keys) of every other MCP server the user set
// up: another Binding's values. A list, not a whole-home hide: a bin may read
// the rest of HOME (~/.gitconfig, caches), it may write none of it unless
// HOME is inside sandbox.roots.

/** Directories under HOME, hidden as an empty directory nobody may open. */
export const SECRET_DIRS = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".kube",
  ".docker",
  ".config/gh",
  ".config/hub",
  ".password-store",
  ".local/share/keyrings",
  ".terraform.d",
  ".oci",
  ".config/doctl",
  ".config/op",
  ".vault-token.d",
  // container engines kept in HOME: their sockets (whoever connects runs a container as the engine's
  // user, the host's / mountable: docker's own is under .docker) and registry logins
  ".colima",
  ".config/colima",
  ".lima",
  ".rd",
  ".local/share/containers",
  ".config/containers",
  // hosts (every user-scope path of hosts/*.json5: test/runtime/sandbox-bwrap.test.ts):
  // their configs carry other MCP servers' env values and their own tokens
  ".claude",
  ".cline",
  ".config/amp",
  ".config/devin",
  ".config/goose",
  ".config/kilo",
  ".config/zed",
  ".factory",
  ".junie",
  ".kiro",
  ".qoder",
  ".codex",
  ".gemini",
  ".qwen",
  ".cursor",
  ".copilot",
  ".config/github-copilot",
  ".config/opencode",
  ".local/share/opencode",
  ".opencode",
  ".kilocode",
  ".kilo",
  ".augment",
  ".continue",
  ".codeium",
  ".config/Claude",
  "Library/Application Support/Claude",
  ".aws-sso",
  // hosts of December 2026 (issue 27): Crush, Kimi Code, Warp
  ".config/crush",
  ".kimi-code",
  ".kimi",
  ".warp",
] as const;

/** Single files under HOME, hidden behind an empty file. */
export const SECRET_FILES = [
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".pgpass",
  ".my.cnf",
  ".boto",
  ".s3cfg",
  ".vault-token",
  ".claude.json",
  ".env",
  ".config/Code/User/mcp.json",
] as const;
