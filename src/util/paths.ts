import { isAbsolute, join, relative, sep } from "node:path";

/** A path as shown to a user: relative to the cwd when below it, else absolute. */
export function display(abs: string, cwd = process.cwd()): string {
  const rel = relative(cwd, abs);
  if (!rel) return ".";
  return rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

/** True when `p` is `dir` or below it (both absolute, already resolved). */
export function isInside(p: string, dir: string): boolean {
  const rel = relative(dir, p);
  return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
}

export function toPosix(p: string): string {
  return p.split(sep).join("/");
}

/** $HOME, else the OS's answer (node:os is loaded only then: it is ~4 M instructions on exec's start path). */
export function home(): string {
  return process.env.HOME || process.getBuiltinModule("node:os").homedir();
}

/** `$XDG_CONFIG_HOME/hcp` or `~/.config/hcp`. */
export function userConfigDir(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? join(xdg, "hcp") : join(home(), ".config", "hcp");
}
