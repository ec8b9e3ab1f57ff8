// The one list of error codes (src/util/errors.ts says what it is for). A
// module of its own, loaded by errors.ts only when an error is made or shown:
// `hcpx exec`'s successful path never evaluates it.
export interface CodeInfo {
  /** what to do, when the failing place says nothing more precise */
  readonly hint: string;
  /** the command line itself is wrong: exit 64 */
  readonly usage?: true;
}

const FIX_FILE = "fix the file at the place named, then run the command again";
const SEE_ADOPT =
  "review with `hcpx adopt <host>` (the diff), then `--write`; `--force` replaces what was changed by hand";

export const ERRORS = {
  // ---- the command line (exit 64) ----
  usage: { hint: "see `hcpx <command> --help`", usage: true },
  unknown_host: { hint: "the README's Hosts table lists the hosts (an unknown one's error names them)" },
  bad_shell: { hint: "hcpx completion bash (or zsh, fish)", usage: true },
  bad_pattern: { hint: "a grant pattern is <pack>.<verb>, <pack>.<prefix>.*, <pack>.* or *" },
  bad_id: { hint: "a pack id matches ^[a-z][a-z0-9-]{0,31}$, e.g. todo or my-api" },
  matches_nothing: { hint: "`hcpx status` lists the active packs and their commands" },
  // ---- the runtime (exec, mcp, the library): one envelope each ----
  unknown_pack: { hint: "`hcpx status` lists the active packs; `hcpx activate <pack-dir>` adds one" },
  unknown_verb: { hint: "the pack's SKILL.md (or `hcpx status`) lists its commands" },
  not_granted: { hint: "`hcpx grant <pack>.<verb>` allows it (a write is never granted by activate)" },
  confirm_required: { hint: "run it again with --confirm (`confirm: true` in the tool call) once the user agreed" },
  confirm_declined: { hint: "nothing was run; ask the user again if they want it" },
  bad_args: { hint: "the command's args are in its pack's SKILL.md and surface.json" },
  bin_denied: { hint: "the program must be the one sandbox.bins names, inside the pack or on PATH as the pack says" },
  bin_not_found: { hint: "install the program, or set sandbox.bins.<name> in hcp.config.json5 to its path" },
  bin_mismatch: { hint: "sandbox.bins.<name> and the pack must name the same program" },
  timeout: {
    hint: "the call did not finish in time; a pack that is slow by nature sets its own limit in surface.json (wrap.timeout_ms, mcp.timeout_ms, openapi.timeout_ms; a composite has 30 s)",
  },
  exit_nonzero: { hint: "the program failed: its stderr (stderr_tail) says why" },
  bad_output: { hint: "the command's output is not what surface.json declares (output: json needs one JSON value)" },
  output_too_large: { hint: "ask for less (a filter, a limit), or make the program print less" },
  http_error: { hint: "the service refused or could not be reached: status and body say why" },
  composite_error: { hint: "the pack's index.mjs threw: its message says why" },
  spawn_failed: { hint: "the program could not be started: check that it exists and is executable" },
  mcp_error: { hint: "the MCP server failed the call: its stderr (stderr_tail) says why" },
  tool_error: { hint: "the MCP tool answered with an error: its message says why" },
  cancelled: {
    hint: "the caller stopped the call: its message says what became of it (a process tree is stopped; a request or a remote server may already have acted; a composite's code may still run)",
  },
  too_many_calls: {
    hint: "the principal has as many tool calls running as the team server allows it (limits.max_calls_per_principal): wait for one to finish, then call again",
  },
  bad_pack: { hint: "`hcpx lint <pack-dir>` names what is wrong, with file and line" },
  duplicate_pack: {
    hint: "two activated packs declare one id: rename one, or remove one of the two from `packs` in the config (`hcpx deactivate <id>` would remove both)",
  },
  sandbox_denied: {
    hint: 'the OS sandbox (sandbox.enforce "os") stopped what the call\'s Policy row does not allow (denied says what); if the program needs it, its pack must declare it (reach in surface.json, docs/sandbox.md)',
  },
  sandbox_unavailable: {
    hint: 'sandbox.enforce is "os" but this machine cannot confine the call, so nothing ran: `hcpx doctor` says what to install (docs/sandbox.md)',
  },
  input_declined: {
    hint: "the person (or the client) did not give the input the command asks for, so nothing ran; call the tool again to be asked anew",
  },
  input_unavailable: {
    hint: "the command asks the MCP client for an input (a form, sampling or roots) this client did not declare it can give: use a client that can, or run it with `hcpx exec` and pass the arg (docs/inputs.md)",
  },
  // ---- files hcpx reads ----
  no_config: { hint: "`hcpx init` writes one; or pass --config <file> (or set $HCP_CONFIG)" },
  config_exists: { hint: "--force overwrites it" },
  not_a_pack: { hint: "a pack directory holds surface.json, policy.json and SKILL.md (docs/pack-format.md)" },
  missing_file: { hint: "check the path" },
  not_a_file: { hint: "give the path of a regular file" },
  not_utf8: { hint: "hcpx edits UTF-8 text only: convert the file to UTF-8, or move it away" },
  not_a_directory: { hint: "give the path of a directory" },
  unreadable_file: { hint: "check the file's permissions" },
  file_too_large: { hint: "hcpx reads files of a bounded size; check that this is the file you meant" },
  io_error: {
    hint: "the machine refused the read or write (permission, read-only or full disk): fix that and run again",
  },
  read_only: { hint: "the file system is read-only: run where hcpx may write" },
  write_failed: { hint: "check the directory's permissions and free space" },
  bad_json: { hint: FIX_FILE },
  bad_json5: { hint: FIX_FILE },
  bad_json_shape: { hint: FIX_FILE },
  bad_toml: { hint: FIX_FILE },
  bad_toml_value: { hint: "the value cannot be written as TOML here; edit the file by hand" },
  bad_yaml: { hint: FIX_FILE },
  yaml_unsupported: {
    hint: "hcpx edits block-style YAML maps and lists; write the entry's parent in block style (not `[…]`/`{…}`), without anchors or aliases",
  },
  yaml_ambiguous: { hint: "two entries have hcpx's name: remove one by hand, then run adopt again" },
  toml_unsupported: { hint: "hcpx edits plain TOML tables; move the entry into a [table] of its own" },
  not_an_object: { hint: FIX_FILE },
  not_a_list: { hint: FIX_FILE },
  duplicate_key: {
    hint: "a key written twice: the host (or hcpx) reads the last copy; keep the one you mean, delete the other",
  },
  too_deep: { hint: "nest less deeply" },
  bidi_control: {
    hint: "remove the bidi control from the file (or write it as an escape where a string needs it): what decides what may run must read as it parses",
  },
  too_large: { hint: "make it smaller" },
  schema: { hint: "docs/pack-format.md says what each key takes" },
  unknown_key: { hint: "remove the key or fix its name (docs/pack-format.md lists the keys)" },
  reserved_key: { hint: "rename it: __proto__, constructor and prototype are never names here" },
  skill_frontmatter: { hint: "SKILL.md starts with `---`, `name:` and `description:` lines, then `---`" },
  skill_name: { hint: "the Skill's name is the pack id" },
  tool_name: { hint: "shorten the verb_key (or the pack id) so that the tool name fits in 64 characters" },
  tool_name_collision: { hint: "rename one of the two commands" },
  input_decl: { hint: "a command's inputs each fill one declared arg (docs/inputs.md)" },
  reserved_arg: { hint: "rename the arg: that name is the tool call's own" },
  host_text_unsafe: {
    hint: "remove the markers, the control and invisible characters, the line breaks in a lead and the @path import directives from the pack's text",
  },
  // ---- adopt, generate and what they read back ----
  drift: { hint: "run `hcpx adopt <host> --write`" },
  out_of_date: { hint: "run `hcpx generate` and commit the result" },
  bad_ledger: {
    hint: "the adopt ledger (.hcp/adopted.json) is damaged: restore it from version control, or delete it and adopt again with --force",
  },
  ledger_entry_ignored: { hint: "the ledger names something hcpx would not have written; it is left alone" },
  journal_entry_ignored: { hint: "the journal names something hcpx would not have written; it is left alone" },
  manifest_entry_ignored: { hint: "the manifest names something generate would not have written; it is left alone" },
  nested_config: {
    hint: "name its folder in the enclosing project's sandbox.nested_projects if it is yours, else delete it (docs/sandbox.md)",
  },
  sandbox_setting_ignored: {
    hint: "the sandbox's own program is named in your user config (~/.config/hcp/config.json5) only: move it there, or delete it",
  },
  bad_manifest: { hint: "generate's manifest is damaged: delete the out dir and generate again" },
  bad_markers: { hint: "the `hcp` markers in the file are broken: fix or remove them by hand, then adopt again" },
  bad_plan_path: { hint: "a planned path leaves the project or names a special file: check the host's file paths" },
  bad_descriptor: { hint: "hosts/<host>.json5 is wrong: docs/host-descriptors.md says what a descriptor holds" },
  bad_template: { hint: "a template under templates/ is wrong: fix it" },
  no_host_engine: { hint: "use a host hcpx knows (the README's Hosts table)" },
  no_scope: { hint: "this host has no files in that scope: try the other --scope" },
  no_servers_target: { hint: "this host takes no MCP entry; adopt another host" },
  host_conflict: { hint: SEE_ADOPT },
  host_variable: { hint: "the host expands ${…} in its command line: leave such text out of --command" },
  changed_by_user: { hint: SEE_ADOPT },
  changed_since_adopt: { hint: SEE_ADOPT },
  bad_gitignore_block: {
    hint: "fix the `# hcp:begin` / `# hcp:end` markers in .gitignore by hand (one of each, begin first), or delete the block",
  },
  no_hosts_detected: {
    hint: 'name the hosts (`hcpx adopt claude --write`), or see the README, "Adopting for a team", for what --detected looks for',
  },
  no_user_config: {
    hint: 'create your user config (`hcpx init --config ~/.config/hcp/config.json5`) with the packs a user-scope entry serves: README, "User scope"',
  },
  host_will_not_use: {
    hint: "see the message: the host keeps a list or trust setting that stops it from using the hcp server",
  },
  block_not_read: {
    hint: "see the message: the host reads another file instead of the one holding the hcp block (an empty AGENTS.override.md)",
  },
  bad_host_setting: {
    hint: "a setting in the host's own config has a value the host refuses: fix it at the place named",
  },
  host_home: {
    hint: "the host's files are moved by an environment variable hcpx cannot use as it is: the message names it and what to set",
  },
  mcp_command_missing: { hint: "install hcpx where the host finds it, or pass --command with the full command line" },
  mcp_command_not_on_path: {
    hint: "put hcpx on the PATH the host starts servers with, or pass --command with an absolute path",
  },
  mcp_config_not_found: {
    hint: "the server would serve no packs where the host starts it; pass --config, or adopt at the scope whose config the host sees",
  },
  changed_during_plan: {
    hint: "a file changed while hcpx was planning (another program or a concurrent run wrote it); run the command again",
  },
  not_ours: { hint: "hcpx did not write it: move it away, or --force replaces it" },
  recorded_command: { hint: "--use-recorded-command keeps the ledger's MCP command, --command gives a new one" },
  symlink_refused: { hint: "hcpx does not write through a symbolic link: replace the link with a directory or file" },
  outside_base: { hint: "a path must stay inside the project (or $HOME for --scope user)" },
  unsafe_file: { hint: "hcpx writes only regular files it may own: move that file away" },
  hard_linked: {
    hint: "replacing the file would leave its other names with the old bytes: make it one file (cp it to a new name, mv that over it) or a symlink to the one you keep, then run again",
  },
  locked: { hint: "another `hcpx adopt --write` runs: wait for it, or remove a stale lock it names" },
  policy_widened: {
    hint: "a rule you wrote in the host's settings lets a confirm-gated write run without asking: narrow or remove it",
  },
  end_of_life: {
    hint: "the vendor no longer maintains this host: its adopt keeps working; plan a move to another host",
  },
  foreign_file: {
    hint: "a cache file hcpx did not write (another owner, or writable by others): it is ignored; delete it",
  },
  bad_lock_file: {
    hint: "a lock file hcpx did not write is in the way (a link, a pipe, a device): delete it and run again",
  },
  all_adds_hosts: {
    hint: "name the hosts to adopt (`hcpx adopt claude codex --write`), or `--detected --write` for the hosts in use",
    usage: true,
  },
  remote_unsupported: {
    hint: "adopt that host without --url (its local command); docs/remote-hosts.md says which hosts take --url",
  },
  remote_unreachable: {
    hint: "start the server (`hcpx mcp --http <port> --server-config <file>`, docs/http.md), or check the URL and the proxy in front of it",
  },
  remote_unauthorized: {
    hint: "set the token's variable (--token-env NAME) where the host runs, and check that the server knows the token",
  },
  // ---- packs from elsewhere (pack add/install/update, import, from-mcp, from-openapi) ----
  bad_source: {
    hint: "a source is @scope/name@range, ./pack.tgz, git+https://host/repo.git#ref, ./repo#ref or ./path",
  },
  ambiguous_source: { hint: "write ./name for a path, or name@range for npm" },
  fetch_failed: { hint: "check the source and the network (npm registry, git server)" },
  integrity_mismatch: { hint: "the archive is not what its registry says: do not use it" },
  hash_mismatch: { hint: "a vendored file differs from hcp.lock: `hcpx pack install` restores it" },
  unsafe_archive: { hint: "the archive holds links, odd paths or too much: hcpx does not unpack it" },
  bad_lock: { hint: "hcp.lock is damaged: restore it from version control, or `hcpx pack add` the packs again" },
  pack_differs: { hint: "`hcpx pack install` restores the locked version" },
  pack_edited: {
    hint: "copy what you want to keep out of the pack's folder, then `hcpx pack install --force` restores the locked version (`hcpx pack remove <id> --force` deletes it)",
  },
  install_broken: { hint: "`hcpx pack install` restores the packs hcp.lock records" },
  exists: { hint: "--force replaces it" },
  dir_exists: { hint: "--force writes into it, or choose another --out" },
  id_changed: { hint: "a pack's id is its name in hcp.config.json5 and hcp.lock: add it as a new pack instead" },
  review_required: { hint: "review what it runs, then run again with --yes" },
  lint_failed: { hint: "`hcpx lint <pack-dir>` lists the errors with file and line" },
  verb_exists: { hint: "choose another verb_key, or edit the command in surface.json" },
  bad_document: { hint: "give an OpenAPI 3.0 or 3.1 document in JSON or YAML" },
  openapi_import: { hint: "review the operation in the document: the note says what the pack does with it" },
  unknown_server: { hint: "`hcpx import <host>` lists the servers of that host" },
  not_importable: {
    hint: "the message says why; a remote server needs a fixed Streamable HTTP URL and its credentials as env references (hcpx pack from-mcp --url)",
  },
  mcp_connect_failed: { hint: "check the server's command line: run it by hand and see that it speaks MCP on stdio" },
  mcp_list_failed: { hint: "the server started but did not list its tools: check its stderr" },
  mcp_import: { hint: "review the tool in the server: the note says what the pack does with it" },
  no_tools: { hint: "the server lists no tools: there is nothing to wrap" },
  exit: { hint: "the server ended: its stderr says why" },
  tool_changed: {
    hint: "the server's tool is not the one reviewed: review the change with `hcpx pack from-mcp --update PACK_DIR`",
  },
  too_many_tools: { hint: "the server lists more tools than hcpx reads: wrap a server with fewer tools" },
  skill_out_of_date: { hint: "`hcpx pack sync <pack-dir>` carries policy.json into SKILL.md" },
  binding_too_short: {
    hint: "a Binding value under 4 characters cannot be hidden from output: set the variable to the real credential",
  },
  binding_missing: {
    hint: "set the Binding's variable in the environment hcpx runs in; a remote server's headers come from it",
  },
  // ---- config edits ----
  still_granted: {
    hint: "a wider pattern would still grant it (nothing was changed): revoke them together, or --deny this one",
  },
  still_denied: { hint: "grants.deny names it: remove it there" },
  granted_by_wildcard: { hint: "revoke the wildcard, or --deny the one command" },
  not_found: { hint: "check the name" },
  // ---- checks that found something (doctor, status, lint, import, generate) ----
  unhealthy: { hint: "the failing checks above say what to fix" },
  warnings: { hint: "the warnings above say what to look at" },
  lint_errors: { hint: "fix the errors at the files and lines named" },
  lint_warnings: { hint: "fix the warnings, or run without --strict" },
  broken_packs: { hint: "`hcpx lint` names what is wrong in each" },
  review: { hint: "read what changed before you use it" },
  failed: { hint: "the messages above say what went wrong" },
  // ---- the team server (hcpx mcp --http, hcpx token: docs/http.md) ----
  server_config_required: {
    hint: "`hcpx mcp --http PORT --server-config FILE` names the principals (docs/http.md); `--no-auth` serves without authentication on loopback only",
    usage: true,
  },
  not_loopback: {
    hint: "binding another address than loopback needs --bind-public (put a TLS reverse proxy in front, docs/http.md); --no-auth is loopback only",
    usage: true,
  },
  address_in_use: {
    hint: "another process listens on that port: pick another port (`--http PORT`), or stop that process (`ss -ltnp` names it)",
  },
  address_unavailable: {
    hint: "the address is not one of this machine's: listen on one it has (`ip addr` lists them), 127.0.0.1 by default",
  },
  principal_overlap: { hint: "a token or a JWT subject is one principal: remove it from the others" },
  unknown_principal: { hint: "add the principal to the server config's principals, or `hcpx token remove` its token" },
  bad_state_key: {
    hint: "the requestState key is at least 32 characters (`openssl rand -hex 32`), in an owner-only file or an environment variable named by the server config (docs/http.md)",
  },
  // ---- hcpx itself ----
  internal: { hint: "this is a bug in hcpx; rerun with HCPX_DEBUG=1 for details and report it" },
} as const satisfies Record<string, CodeInfo>;
