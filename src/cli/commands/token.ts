// `hcpx token add|list|remove <principal>`: the static bearer tokens of the
// team server (`hcpx mcp --http`, docs/http.md). A new token is printed once;
// only its sha256 is kept, in the tokens file (the user's state directory,
// owner-only, or the server config's tokens_file).
import { fail } from "../../util/errors";
import { display } from "../../util/paths";
import {
  addToken,
  defaultTokensFile,
  loadServerConfig,
  PRINCIPAL_RE,
  readTokens,
  removeToken,
} from "../../mcp/team-config";
import { c, done, makeOut } from "../output";
import type { GlobalOptions as GlobalOpts, OptionsOf } from "../spec";

/** `hcpx token add`'s options, as the options schema (../spec.ts) types them, with the global ones. */
export type TokenOpts = OptionsOf<"token add"> & GlobalOpts;

function where(opts: TokenOpts): { file: string; principals?: Set<string> } {
  if (opts.serverConfig === undefined) return { file: defaultTokensFile() };
  const cfg = loadServerConfig(opts.serverConfig, display(opts.serverConfig));
  return { file: cfg.tokensFile, principals: new Set(cfg.principals.keys()) };
}

function checkId(principal: string): void {
  if (!PRINCIPAL_RE.test(principal))
    fail("usage", `'${principal}' is not a principal id`, {
      hint: "1-64 of letters, digits and . _ @ -, starting with a letter or digit",
      exit: 64,
    });
}

export async function runAdd(principal: string, opts: TokenOpts): Promise<number> {
  checkId(principal);
  // a token is for a principal of a server config: one no config names is refused here, not at the server's start
  if (opts.serverConfig === undefined)
    fail("usage", `token add needs --server-config FILE: the server config that names '${principal}'`, {
      hint: `hcpx token add ${principal} --server-config <file> (its principals name '${principal}', with its grants: docs/http.md)`,
      exit: 64,
    });
  const out = makeOut(opts);
  const w = where(opts);
  if (w.principals && !w.principals.has(principal))
    fail("unknown_principal", `principal '${principal}' is not in the server config`, {
      hint: "add it to principals (with its grants) first",
      exit: 1,
    });
  const token = addToken(w.file, principal, opts.force === true);
  done(out, { principal, token, file: w.file }, (col) =>
    [
      `${c.green(col, "✓")} token for ${principal} (shown once; only its hash is kept in ${display(w.file)}):`,
      token,
      `  the client sends it as: Authorization: Bearer <token>`,
    ].join("\n"),
  );
  return 0;
}

export async function runList(opts: TokenOpts): Promise<number> {
  const out = makeOut(opts);
  const w = where(opts);
  const tokens = readTokens(w.file).map((t) => ({
    principal: t.principal,
    created: t.created ?? null,
    ...(w.principals ? { known: w.principals.has(t.principal) } : {}),
  }));
  done(out, { file: w.file, tokens }, () =>
    tokens.length
      ? tokens
          .map((t) => `${t.principal}\t${t.created ?? ""}${t.known === false ? "\t(not in the server config)" : ""}`)
          .join("\n")
      : `no tokens (${display(w.file)})`,
  );
  return 0;
}

export async function runRemove(principal: string, opts: TokenOpts): Promise<number> {
  checkId(principal);
  const out = makeOut(opts);
  const w = where(opts);
  if (!removeToken(w.file, principal))
    fail("not_found", `no token for '${principal}' in ${display(w.file)}`, {
      hint: `\`hcpx token list${opts.serverConfig === undefined ? "" : ` --server-config ${opts.serverConfig}`}\` lists them`,
      exit: 1,
    });
  done(
    out,
    { principal, removed: true, file: w.file },
    (col) => `${c.green(col, "✓")} removed ${principal}'s token: it no longer authenticates`,
  );
  return 0;
}
