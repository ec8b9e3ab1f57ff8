// The user's own config, `$HOME/.config/hcp/config.json5` (or under an XDG dir): what
// `adopt --scope user` serves (README "User scope"). Tests that adopt at user scope
// write one; by default a copy of a project's config with its paths made absolute.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

export function writeUserConfig(home: string, config: Record<string, unknown>, xdg = join(home, ".config")): string {
  const file = join(xdg, "hcp", "config.json5");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(config, null, 2) + "\n");
  return file;
}

/** The project's `hcp.config.json5` (JSON) as the user's config: the same packs and grants, absolute paths. */
export function userConfigOf(projectDir: string, home: string, xdg?: string): string {
  const c = JSON.parse(readFileSync(join(projectDir, "hcp.config.json5"), "utf8")) as {
    packs?: string[];
    sandbox?: { roots?: string[]; cwd?: string; bins?: Record<string, string> };
  };
  const abs = (p: string) => (isAbsolute(p) || p.startsWith("~/") ? p : join(projectDir, p));
  const sandbox = { ...c.sandbox, roots: (c.sandbox?.roots ?? ["."]).map(abs), cwd: abs(c.sandbox?.cwd ?? ".") };
  return writeUserConfig(home, { ...c, packs: (c.packs ?? []).map(abs), sandbox }, xdg);
}
