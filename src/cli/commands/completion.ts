// hcpx completion bash|zsh|fish: a shell completion script generated from the
// command tree (commands, subcommands, options), the host ids (adopt, import),
// directories where a pack dir or a path is taken (activate, lint, --config,
// --out…). Pack ids and `pack.verb` names come at completion time from
// `hcpx completion names` (active packs).
import { loadProject } from "../../pack/load";
import { loadActive } from "../../config/active";
import type { CommonOpts } from "../../config/common";
import { fail } from "../../util/errors";
import { listHosts } from "../../host/descriptor";
import { done, makeOut } from "../output";
import { COMMANDS, GLOBAL_OPTIONS, type ArgCompletion, type CommandSpec, type OptionSpec } from "../spec";

interface Node {
  path: string;
  subcommands: string[];
  options: string[];
}

/** The command tree from the options schema: each path's subcommands and flags (the program's own with the root). */
function walk(): Node[] {
  const entries = Object.entries(COMMANDS) as [string, CommandSpec][];
  const flagsOf = (options: Readonly<Record<string, OptionSpec>> | undefined) =>
    Object.values(options ?? {}).flatMap((o) => {
      const f = o.flags.split(/[ ,]+/).filter((x) => x.startsWith("-"));
      return [...f.filter((x) => x.startsWith("--")), ...f.filter((x) => !x.startsWith("--"))];
    });
  const children = (path: string) =>
    entries
      .filter(([p]) => (path ? p.startsWith(`${path} `) && p.lastIndexOf(" ") === path.length : !p.includes(" ")))
      .map(([p]) => p.slice(p.lastIndexOf(" ") + 1));
  return [
    { path: "", subcommands: children(""), options: ["--version", "-V", ...flagsOf(GLOBAL_OPTIONS), "--help"] },
    ...entries.map(([path, s]) => ({
      path,
      subcommands: s.group ? children(path) : [],
      options: [...flagsOf(s.options), "--help"],
    })),
  ];
}

/** The commands whose positional arguments complete as `kind` (the schema's `complete` on their first argument). */
const argsOf = (kind: ArgCompletion): string[] =>
  (Object.entries(COMMANDS) as [string, CommandSpec][])
    .filter(([, s]) => s.args?.[0]?.complete === kind)
    .map(([p]) => p);
/** Commands whose positional arguments are pack ids or grant names. */
const PACK_ARG = argsOf("pack");
const NAME_ARG = argsOf("name");
/** Commands whose positional arguments are host ids. */
const HOST_ARG = argsOf("host");
/** Commands whose positional arguments are directories (a pack dir, a project). */
const DIR_ARG = argsOf("dir");
/** Options whose value is a path. */
const PATH_OPTS = [
  ...new Set(
    [GLOBAL_OPTIONS, ...Object.values(COMMANDS as Record<string, CommandSpec>).map((s) => s.options ?? {})].flatMap(
      (o) =>
        Object.values(o as Readonly<Record<string, OptionSpec>>)
          .filter((x) => x.complete === "path")
          .map((x) => x.flags.split(" ")[0]!),
    ),
  ),
];

export async function run(shell: string, opts: CommonOpts): Promise<number> {
  const out = makeOut(opts);
  if (shell === "names") {
    let names: string[] = [];
    try {
      const { packs } = loadActive(loadProject({ config: opts.config }));
      names = packs.flatMap((p) => [p.id, ...p.commands.map((c) => `${p.id}.${c.verb_key}`), `${p.id}.*`]);
    } catch {
      names = [];
    }
    done(out, names, names.join("\n"));
    return 0;
  }
  if (shell !== "bash" && shell !== "zsh" && shell !== "fish")
    fail("bad_shell", `unknown shell '${shell}'`, {
      hint: "hcpx completion bash  (or zsh, fish); e.g. `hcpx completion bash > ~/.local/share/bash-completion/completions/hcpx`",
    });
  const nodes = walk();
  const hosts = listHosts();
  const script = shell === "fish" ? fishScript(nodes, hosts) : bashScript(nodes, hosts);
  const text = shell === "zsh" ? `#compdef hcpx\nautoload -U +X bashcompinit && bashcompinit\n${script}` : script;
  done(out, { shell, script: text }, text);
  return 0;
}

/** fish: one `complete` line per subcommand and option, host ids, directories and the active packs' names. */
function fishScript(nodes: Node[], hosts: string[]): string {
  const q = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const L = [
    "# hcpx completion (fish). Install: hcpx completion fish > ~/.config/fish/completions/hcpx.fish",
    "complete -c hcpx -f",
  ];
  // `__hcpx_path`: the subcommand words typed so far (options and their values left out)
  L.push(
    "function __hcpx_path",
    "  set -l words (commandline -opc)",
    "  set -e words[1]",
    "  set -l out",
    `  set -l known ${nodes
      .filter((n) => n.path)
      .map((n) => q(n.path))
      .join(" ")}`,
    "  for w in $words",
    "    string match -q -- '-*' $w; and continue",
    "    set -l next (string join ' ' $out $w)",
    "    contains -- $next $known; and set out $out $w; or break",
    "  end",
    "  string join ' ' $out",
    "end",
  );
  for (const n of nodes) {
    const cond = `-n ${q(`test (__hcpx_path) = ${JSON.stringify(n.path)}`)}`;
    if (n.subcommands.length) L.push(`complete -c hcpx ${cond} -a ${q(n.subcommands.join(" "))}`);
    // the program's own options (--config) go with every subcommand
    for (const o of n.options.filter((x) => x.startsWith("--")))
      L.push(`complete -c hcpx ${n.path ? `${cond} ` : ""}-l ${o.slice(2)}${PATH_OPTS.includes(o) ? " -r -F" : ""}`);
  }
  const at = (p: string) => `-n ${q(`test (__hcpx_path) = ${JSON.stringify(p)}`)}`;
  for (const p of HOST_ARG)
    L.push(`complete -c hcpx ${at(p)} -a ${q([...hosts, ...(p === "adopt" ? ["all"] : [])].join(" "))}`);
  for (const p of DIR_ARG) L.push(`complete -c hcpx ${at(p)} -a '(__fish_complete_directories)'`);
  for (const p of PACK_ARG)
    L.push(`complete -c hcpx ${at(p)} -a '(hcpx completion names 2>/dev/null | string match -v "*.*")'`);
  for (const p of NAME_ARG)
    L.push(`complete -c hcpx ${at(p)} -a '(hcpx completion names 2>/dev/null | string match "*.*")'`);
  return L.join("\n") + "\n";
}

function bashScript(nodes: Node[], hosts: string[]): string {
  const cases = nodes
    .map(
      (n) => `    ${JSON.stringify(n.path)}) words_=${JSON.stringify([...n.subcommands, ...n.options].join(" "))} ;;`,
    )
    .join("\n");
  return `# hcpx completion (bash). Install: hcpx completion bash > ~/.local/share/bash-completion/completions/hcpx
_hcpx() {
  local cur path_ i w words_ known pos_=()
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path_=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    known=0
    [[ \${#pos_[@]} -gt 0 ]] && { pos_+=("$w"); continue; }
    case "\${path_:+$path_ }$w" in
${nodes
  .filter((n) => n.path)
  .map((n) => `      ${JSON.stringify(n.path)}) known=1 ;;`)
  .join("\n")}
    esac
    if [[ $known == 1 ]]; then path_="\${path_:+$path_ }$w"; else pos_+=("$w"); fi
  done
  case "$path_" in
${cases}
    *) words_="" ;;
  esac
  case "$path_" in
    "exec") if [[ "$cur" != -* && \${#pos_[@]} -eq 1 ]]; then words_="$words_ $(hcpx completion names 2>/dev/null | grep "^\${pos_[0]}\\.[a-z]" | sed "s/^\${pos_[0]}\\.//")";
            elif [[ "$cur" != -* && \${#pos_[@]} -eq 0 ]]; then words_="$words_ $(hcpx completion names 2>/dev/null | grep -v '\\.')"; fi ;;
    ${PACK_ARG.filter((p) => p !== "exec")
      .map((p) => JSON.stringify(p))
      .join(
        "|",
      )}) [[ "$cur" != -* && \${#pos_[@]} -eq 0 ]] && words_="$words_ $(hcpx completion names 2>/dev/null | grep -v '\\.')" ;;
    ${NAME_ARG.map((p) => JSON.stringify(p)).join("|")}) [[ "$cur" != -* ]] && words_="$words_ $(hcpx completion names 2>/dev/null | grep '\\.')" ;;
    ${HOST_ARG.map((p) => JSON.stringify(p)).join("|")}) [[ "$cur" != -* ]] && words_="$words_ ${hosts.join(" ")}" ;;
  esac
  [[ "$path_" == "adopt" && "$cur" != -* ]] && words_="$words_ all"
  COMPREPLY=($(compgen -W "$words_" -- "$cur"))
  # a path: the value of ${PATH_OPTS.join(", ")}, or a directory where a pack dir is taken
  local prev_="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev_" in
    ${PATH_OPTS.map((o) => JSON.stringify(o)).join("|")}) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
  case "$path_" in
    ${DIR_ARG.map((p) => JSON.stringify(p)).join("|")}) [[ "$cur" != -* ]] && COMPREPLY+=($(compgen -d -- "$cur")) ;;
  esac
}
complete -F _hcpx hcpx
`;
}
