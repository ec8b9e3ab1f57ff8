// The one list of environment variables a pack may not set for its bin
// (`wrap.agent_env`) or pass to it (`binding.env`): those that make a program
// load other code, or find other programs, than the ones it was given.
// `hcpx lint` reports them (error `env_forbidden`), and the runtime refuses
// such a pack (`bad_pack`) when it loads it and again before a spawn. Matched
// case-insensitively (Windows names are; a lower-case `ld_preload` is no
// reason to allow it). The README's "Security model" prints this list; a test
// checks that it matches.
//
// On the exec path: no imports, one regular expression per name.

/** Exact names (upper case). */
export const FORBIDDEN_ENV_NAMES: readonly string[] = [
  // where programs and their config are found
  "PATH",
  "HOME",
  "USERPROFILE",
  "HOMEDRIVE",
  "HOMEPATH",
  "APPDATA",
  "LOCALAPPDATA",
  "PATHEXT",
  "COMSPEC",
  "SHELL",
  "XDG_CONFIG_HOME",
  "XDG_CONFIG_DIRS",
  "XDG_DATA_HOME",
  "XDG_DATA_DIRS",
  "IFS",
  "CDPATH",
  // Node and the JavaScript runtimes
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_REPL_EXTERNAL_MODULE",
  "NODE_PRESERVE_SYMLINKS",
  "ELECTRON_RUN_AS_NODE",
  "DENO_DIR",
  "BUN_INSTALL",
  // shells: start-up files and traced prompts that run code
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  "ZDOTDIR",
  "GLOBIGNORE",
  // Ruby, Java, .NET, Lua, PHP, R, Tcl, Go, Rust
  "RUBYOPT",
  "RUBYLIB",
  "GEM_HOME",
  "GEM_PATH",
  "BUNDLE_GEMFILE",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "JAVA_OPTS",
  "CLASSPATH",
  "JAVA_HOME",
  "DOTNET_STARTUP_HOOKS",
  "DOTNET_ADDITIONAL_DEPS",
  "COR_ENABLE_PROFILING",
  "COR_PROFILER",
  "COR_PROFILER_PATH",
  "CORECLR_ENABLE_PROFILING",
  "CORECLR_PROFILER",
  "CORECLR_PROFILER_PATH",
  "LUA_INIT",
  "LUA_PATH",
  "LUA_CPATH",
  "PHPRC",
  "PHP_INI_SCAN_DIR",
  "R_PROFILE",
  "R_PROFILE_USER",
  "R_ENVIRON",
  "R_ENVIRON_USER",
  "R_LIBS",
  "R_LIBS_USER",
  "TCLLIBPATH",
  "GOFLAGS",
  "GOROOT",
  "GOPATH",
  "GOTOOLCHAIN",
  "RUSTC_WRAPPER",
  "RUSTC",
  "CARGO_HOME",
  // the C library and OpenSSL load modules named here
  "GCONV_PATH",
  "LOCPATH",
  "OPENSSL_CONF",
  "OPENSSL_ENGINES",
  "OPENSSL_MODULES",
  // programs other programs start
  "EDITOR",
  "VISUAL",
  "PAGER",
  "MANPAGER",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
];

/** Prefixes (upper case): every name that starts with one, except FORBIDDEN_ENV_EXCEPTIONS. */
export const FORBIDDEN_ENV_PREFIXES: readonly string[] = [
  "LD_", // LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, …
  "DYLD_", // macOS: DYLD_INSERT_LIBRARIES, DYLD_LIBRARY_PATH, …
  "PYTHON", // PYTHONSTARTUP, PYTHONPATH, PYTHONHOME, PYTHONWARNINGS (imports a category's module), …
  "PERL", // PERL5OPT, PERL5LIB, PERLLIB, PERL5DB, …
  "GIT_", // GIT_CONFIG_*, GIT_EXEC_PATH, GIT_SSH, GIT_SSH_COMMAND, GIT_ASKPASS, GIT_DIR, GIT_PAGER, GIT_EXTERNAL_DIFF, …
  "NPM_CONFIG_", // npm_config_node_options, npm_config_script_shell, …
  "BASH_FUNC_", // exported shell functions
];

/** Names under a forbidden prefix that only tune output or behaviour and load nothing. */
export const FORBIDDEN_ENV_EXCEPTIONS: readonly string[] = [
  "PYTHONUNBUFFERED",
  "PYTHONIOENCODING",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONUTF8",
  "PYTHONHASHSEED",
  "PYTHONNOUSERSITE",
  "PYTHONSAFEPATH",
  "GIT_TERMINAL_PROMPT",
  "GIT_OPTIONAL_LOCKS",
  "GIT_LITERAL_PATHSPECS",
  "GIT_FLUSH",
  "GIT_ADVICE",
];

const NAMES = new Set(FORBIDDEN_ENV_NAMES);
const EXCEPT = new Set(FORBIDDEN_ENV_EXCEPTIONS);

/** True when a pack may not set or pass this variable (case-insensitive). */
export function isForbiddenEnv(name: string): boolean {
  const up = name.toUpperCase();
  if (NAMES.has(up)) return true;
  if (EXCEPT.has(up)) return false;
  for (const p of FORBIDDEN_ENV_PREFIXES) if (up.startsWith(p)) return true;
  return false;
}

export interface ForbiddenEnv {
  /** JSON path segments in surface.json */
  path: (string | number)[];
  name: string;
}

/** Every forbidden name in a surface's `wrap.agent_env` and `binding.env`. */
export function forbiddenEnvOf(surface: {
  wrap?: { agent_env?: Record<string, string> };
  binding?: { env?: string[] };
}): ForbiddenEnv[] {
  const out: ForbiddenEnv[] = [];
  for (const name of Object.keys(surface.wrap?.agent_env ?? {}))
    if (isForbiddenEnv(name)) out.push({ path: ["wrap", "agent_env", name], name });
  (surface.binding?.env ?? []).forEach((name, i) => {
    if (isForbiddenEnv(name)) out.push({ path: ["binding", "env", i], name });
  });
  return out;
}
