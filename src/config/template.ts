// The commented hcp.config.json5 that `hcpx init` writes.
import { renderString } from "./edit";

export interface InitAnswers {
  principal: string;
  kind: "person" | "agent";
}

export function configTemplate(a: InitAnswers): string {
  const q = (s: string) => renderString(s, { quote: '"' });
  return `// hcp.config.json5 — which packs this project uses and what may run.
// JSON5: comments, trailing commas and unquoted keys are fine.
// Edit by hand, or with: hcpx activate <pack-dir> · hcpx grant <pattern> · hcpx revoke <pattern>
{
  // Activated packs: directories holding surface.json, policy.json and SKILL.md,
  // relative to this file. \`hcpx activate ./packs/<id>\` adds one.
  packs: [],

  // Who acts through hcpx here: a person or an agent.
  principal: { id: ${q(a.principal)}, kind: ${q(a.kind)} },

  // What the principal may execute. Deny by default: a command runs only when an
  // \`allow\` pattern matches it and no \`deny\` pattern does.
  // Patterns: <pack>.<verb> (git.status), <pack>.<prefix>.* (ledger.entry.*), <pack>.*, *
  grants: {
    allow: [],
    deny: [],
  },

  // Where wrapped programs may come from and where they run.
  sandbox: {
    // Bare bin names a wrap pack may use (name -> absolute path). A bare name is
    // never looked up on PATH: \`hcpx pack new <id> --wrap <bin>\` adds it here.
    bins: {},
    // A relative wrap.bin must resolve (after symlinks) inside one of these roots.
    roots: ["."],
    // Working directory of wrapped bins.
    cwd: ".",
  },
}
`;
}
