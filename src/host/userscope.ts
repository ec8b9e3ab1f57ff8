// User scope, honestly: a user-scope MCP entry is started by the host from any
// directory (Codex: from its own home, ~/.codex, with a short environment), so it
// serves the user's own config, `~/.config/hcp/config.json5` (`$XDG_CONFIG_HOME/hcp`),
// named in its command (`--config <file>`), and the instructions it comes with name
// exactly those packs. One project's packs are never adopted at user scope: they are
// what `--scope project` is for, and this says so.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { HcpxError } from "../util/errors";
import { display, home, tildePath, userConfigDir } from "../util/paths";
import { findProjectConfig, loadProject } from "../pack/load";
import type { Project } from "../pack/model";

export function userConfigFile(): string {
  return join(userConfigDir(), "config.json5");
}

/** `~/…` when below $HOME, else absolute. */
export function showHome(abs: string): string {
  return tildePath(abs, home());
}

export interface UserScope {
  project: Project;
  /** the user config the entry serves */
  configFile: string;
  /** what the person should know: which packs are served, which of this project's are not */
  notes: string[];
}

export function loadUserScope(o: { config?: string; remove: boolean; cwd?: string }): UserScope {
  const file = userConfigFile();
  const shown = showHome(file);
  if (o.config !== undefined && resolve(o.config) !== file) {
    throw new HcpxError(
      {
        code: "bad_args",
        message: `--scope user serves your user config (${shown}), not ${display(resolve(o.config))}`,
        hint: "leave out --config at user scope; to adopt a project's packs for its hosts, use --scope project in that project",
      },
      64,
    );
  }
  if (o.remove)
    return {
      project: loadProject({ config: existsSync(file) ? file : undefined, optional: true, user: false, cwd: home() }),
      configFile: file,
      notes: [],
    };
  if (!existsSync(file)) {
    const here = findProjectConfig(o.cwd ?? process.cwd());
    throw new HcpxError({
      code: "no_user_config",
      message: `user scope serves your own config, ${shown}, from any directory; there is none`,
      hint: `${here ? `this project's packs (${display(here)}) are adopted with --scope project (the default). ` : ""}For packs of your own everywhere: \`hcpx init --config ${shown}\`, then \`hcpx activate <pack-dir> --config ${shown}\` (see the README, "User scope")`,
    });
  }
  const project = loadProject({ config: file, user: false });
  const notes: string[] = [];
  const served = project.packDirs.map((d) => showHome(d));
  notes.push(
    `user scope serves the packs of ${shown} (${served.length ? served.join(", ") : "none"}) from any directory: its MCP entry runs with \`--config ${shown}\``,
  );
  // run inside a project: say that its packs are not part of it
  const here = findProjectConfig(o.cwd ?? process.cwd());
  if (here && here !== file) {
    try {
      const p = loadProject({ config: here, user: false });
      const left = p.packDirs.filter((d) => !project.packDirs.includes(d));
      if (left.length)
        notes.push(
          `this project's packs (${left.map((d) => display(d)).join(", ")}) are not adopted at user scope: run \`hcpx adopt <host> --write\` here (project scope) for them`,
        );
    } catch {
      /* the project config does not load: nothing to compare */
    }
  }
  return { project, configFile: file, notes };
}
