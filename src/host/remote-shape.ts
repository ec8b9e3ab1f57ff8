// The shape of a remote entry's options (`--url`, `--token-env`, or the same
// recorded in the adopt ledger): an http(s) URL without a credential or a
// control character in it, and a plain variable name. Kept apart from
// remote.ts so that the ledger reader checks a recorded remote without
// loading the host descriptors.
import { isObj } from "../util/is";

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** Why `url` is not a URL an entry may name, or undefined. */
export function urlProblem(url: string): string | undefined {
  if (CONTROL.test(url) || url.length > 2048) return "is not a URL (a control character, or over 2048 characters)";
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return `is a ${u.protocol} URL, not http:// or https://`;
  if (u.username || u.password) return "holds a user name or password";
  return undefined;
}

/** Why a recorded remote (`hosts.<host>.remote` of the ledger) is unusable, or undefined. Never echoes the value. */
export function remoteShape(v: unknown): string | undefined {
  if (!isObj(v)) return "is not an object";
  const extra = Object.keys(v).filter((k) => k !== "url" && k !== "tokenEnv");
  if (extra.length) return `has unknown key(s) ${extra.map((k) => JSON.stringify(k.slice(0, 40))).join(", ")}`;
  if (typeof v.url !== "string") return "has no `url`";
  const bad = urlProblem(v.url);
  if (bad) return `has a \`url\` that ${bad}`;
  if (v.tokenEnv !== undefined && !(typeof v.tokenEnv === "string" && ENV_NAME.test(v.tokenEnv)))
    return "has a `tokenEnv` that is not a variable name";
  return undefined;
}
