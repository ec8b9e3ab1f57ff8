// The environment of the git (and npm, which runs git for a git spec) that fetches a pack. hcpx may run
// inside a git hook or a `git -c … exec` wrapper, where git has set GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
// GIT_OBJECT_DIRECTORY, GIT_CONFIG_PARAMETERS… for the person's repository: passed on, the fetch's clone
// would init, fetch into and read the person's repository, not its scratch folder, and take settings
// (core.fsmonitor, a hook path, url rewrites) the person never gave it. So every GIT_* variable is dropped
// (fail closed: one git adds later is dropped too) except these, which only say how to reach the remote:
//   GIT_SSH, GIT_SSH_COMMAND, GIT_SSH_VARIANT  the ssh program for ssh:// and git@host: URLs
//   GIT_ASKPASS                                 the program that supplies a credential (no terminal prompt)
//   GIT_PROXY_COMMAND                           the proxy for git:// URLs
//   GIT_SSL_CAINFO, GIT_SSL_CAPATH              the certificate authorities an https remote is checked against
// (GIT_SSL_NO_VERIFY is dropped: it weakens the check.) Then the fetch's own settings are set: no terminal
// prompt, the protocols a pack may come by, no system config. Variables outside GIT_* (HOME, PATH, SSH_AUTH_SOCK,
// https_proxy) pass as they are.
const KEPT = new Set([
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_SSH_VARIANT",
  "GIT_ASKPASS",
  "GIT_PROXY_COMMAND",
  "GIT_SSL_CAINFO",
  "GIT_SSL_CAPATH",
]);

/** `env` without the GIT_* variables that locate a repository or inject config (see the header). */
export function fetchEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!/^GIT_/i.test(k) || KEPT.has(k)) out[k] = v;
  return out;
}

/** The environment of the fetch's git: fetchEnv() and the fetch's own settings. */
export function gitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...fetchEnv(env),
    GIT_TERMINAL_PROMPT: "0",
    GIT_ALLOW_PROTOCOL: "file:git:http:https:ssh",
    GIT_CONFIG_NOSYSTEM: "1",
  };
}
