// The Binding names a pack's surface reads: the environment variables whose
// values are secrets at every exit (src/util/redact.ts holdSecretNames). One
// list for the pack loaded (load.ts loadPackChecked) and for the other packs
// `hcpx exec` only looks at (findPack, src/pack/undeclared.ts): every active
// pack's Binding values are hidden, not only the called one's. On exec's path:
// JSON5 + node builtins only.
import { parseJson5 } from "./json5";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string[] => (typeof v === "string" && v !== "" ? [v] : []);

/**
 * binding.env, openapi.auth.env, openapi.schemes' env names (username_env, password_env for Basic) and
 * mcp.headers' env: of a validated surface, or of one only parsed (what is not a string is passed over).
 */
export function bindingNamesOf(surface: unknown): string[] {
  const s = obj(surface);
  if (!s) return [];
  const out: string[] = [];
  const binding = obj(s.binding)?.env;
  if (Array.isArray(binding)) for (const n of binding) out.push(...str(n));
  const openapi = obj(s.openapi);
  out.push(...str(obj(openapi?.auth)?.env));
  for (const x of Object.values(obj(openapi?.schemes) ?? {})) {
    const sc = obj(x);
    out.push(...str(sc?.env), ...str(sc?.username_env), ...str(sc?.password_env));
  }
  for (const h of Object.values(obj(obj(s.mcp)?.headers) ?? {})) out.push(...str(obj(h)?.env));
  return [...new Set(out)];
}

/**
 * The Binding names of a surface.json's bytes, parsed, not validated: none when it does not parse (a pack
 * that does not load runs nothing, and is not held anywhere else either). A text without `env` and without
 * an escape that could spell one of its letters (spellingEscape) names none: no parse.
 */
export function bindingNamesIn(bytes: Buffer, file: string): string[] {
  if (bytes.indexOf("env", 0, "latin1") === -1 && !spellingEscape(bytes)) return [];
  try {
    return bindingNamesOf(parseJson5(bytes.toString("utf8"), file).value);
  } catch {
    return [];
  }
}

/**
 * Whether a JSON5 text's bytes hold a backslash escape that may spell a character (\u, \x, an identity
 * escape like \g, a line continuation), not only the plain ones that cannot (\n, \", \\ …): the only way a
 * key or a string spells a letter other than as itself (each backslash is looked at, an escaped one too:
 * at worst a parse more). The bytes undecoded: UTF-8 never puts an ASCII byte inside another character.
 */
export function spellingEscape(bytes: Buffer): boolean {
  for (let i = bytes.indexOf(BACKSLASH); i !== -1 && i + 1 < bytes.length; i = bytes.indexOf(BACKSLASH, i + 1))
    if (!PLAIN_ESCAPE.has(bytes[i + 1]!)) return true;
  return false;
}
const BACKSLASH = 0x5c;
/** the bytes after a backslash that cannot spell a character */
const PLAIN_ESCAPE = new Set([..."bfnrtv'\"\\"].map((c) => c.charCodeAt(0)));
