// hcpx completion bash|zsh: a shell completion script generated from the
// command tree (commands, subcommands, options). Pack ids and `pack.verb`
// names come at completion time from `hcpx completion names` (active packs).
import type { Command } from "commander";
import { loadProject } from "../../pack/load";
import { loadActive } from "../../config/active";
import type { CommonOpts } from "../../config/common";
import { fail } from "../../util/errors";
import { done, makeOut } from "../output";

interface Node {
  path: string;
  subcommands: string[];
  options: string[];
}

function walk(cmd: Command, prefix: string, out: Node[]): void {
  const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  out.push({
    path: prefix,
    subcommands: subs.map((c) => c.name()),
    options: [...cmd.options.flatMap((o) => [o.long, o.short].filter((x): x is string => !!x)), "--help"],
  });
  for (const s of subs) walk(s, prefix ? `${prefix} ${s.name()}` : s.name(), out);
}

/** Commands whose positional arguments are pack ids or grant names. */
const PACK_ARG = ["exec", "deactivate"];
const NAME_ARG = ["grant", "revoke"];

export async function run(shell: string, opts: CommonOpts, program: Command): Promise<number> {
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
  if (shell !== "bash" && shell !== "zsh") fail("bad_shell", `unknown shell '${shell}'`, { hint: "hcpx completion bash  (or zsh); e.g. `hcpx completion bash > ~/.local/share/bash-completion/completions/hcpx`" });
  const nodes: Node[] = [];
  walk(program, "", nodes);
  const script = bashScript(nodes);
  const text = shell === "bash" ? script : `#compdef hcpx\nautoload -U +X bashcompinit && bashcompinit\n${script}`;
  done(out, { shell, script: text }, text);
  return 0;
}

function bashScript(nodes: Node[]): string {
  const cases = nodes
    .map((n) => `    ${JSON.stringify(n.path)}) words_=${JSON.stringify([...n.subcommands, ...n.options].join(" "))} ;;`)
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
${nodes.filter((n) => n.path).map((n) => `      ${JSON.stringify(n.path)}) known=1 ;;`).join("\n")}
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
    ${PACK_ARG.filter((p) => p !== "exec").map((p) => JSON.stringify(p)).join("|")}) [[ "$cur" != -* && \${#pos_[@]} -eq 0 ]] && words_="$words_ $(hcpx completion names 2>/dev/null | grep -v '\\.')" ;;
    ${NAME_ARG.map((p) => JSON.stringify(p)).join("|")}) [[ "$cur" != -* ]] && words_="$words_ $(hcpx completion names 2>/dev/null | grep '\\.')" ;;
  esac
  COMPREPLY=($(compgen -W "$words_" -- "$cur"))
}
complete -F _hcpx hcpx
`;
}
