// The project's hcp.config.json5 as a file to edit: find it, parse it (a syntax
// error is reported with line and column, and the file is never rewritten),
// apply text edits from ./edit, check the result still parses and validates,
// and write it atomically (temp file + rename).
import { writeFile, type Base } from "../util/door";
import { CAPS, isThere, readTextToEdit } from "../util/readfile";
import { dirname, resolve, basename, join } from "node:path";
import { HcpxError, fail } from "../util/errors";
import { display, home, isInside, userConfigDir } from "../util/paths";
import { parseJson5 } from "../pack/json5";
import { schemas, type ConfigFile } from "../pack/schema";
import { validate } from "../pack/validate";
import { CONFIG_NAME, findProjectConfig } from "../pack/load";
import { acquireLock, removeFile, staleTemps } from "../util/fsio";
import { hold, isHeld } from "../util/held";

export interface ConfigDoc {
  /** absolute path */
  file: string;
  dir: string;
  text: string;
  data: ConfigFile;
}

/** The project config path: --config, else $HCP_CONFIG, else found upward from cwd. */
export function configPath(opts: { config?: string; cwd?: string } = {}): string | undefined {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const explicit = opts.config ?? process.env.HCP_CONFIG;
  if (explicit) return resolve(cwd, explicit);
  return findProjectConfig(cwd);
}

export function openConfig(opts: { config?: string; cwd?: string } = {}): ConfigDoc {
  const file = lockedConfigFile(opts);
  const text = readTextToEdit(file, display(file), CAPS.config);
  return { file, dir: dirname(file), text, data: checkConfigText(text, display(file)) };
}

/** The project config's path, its edit lock taken (lockConfig): openConfig without the read (`no_config` as it). */
export function lockedConfigFile(opts: { config?: string; cwd?: string } = {}): string {
  const file = configPath(opts);
  if (!file || !isThere(file)) {
    throw new HcpxError({
      code: "no_config",
      message: file
        ? "config file not found"
        : `no ${CONFIG_NAME} in ${display(resolve(opts.cwd ?? process.cwd()))} or any parent directory`,
      ...(file ? { file: display(file) } : {}),
      hint: "run `hcpx init` to create one (or pass --config <file>)",
    });
  }
  lockConfig(file);
  return file;
}

/**
 * Every command that opens the config opens it to edit it (activate, grant,
 * revoke, deactivate, pack new; init, which writes it whole): the read-modify-write is serialised by a lock
 * file next to the config (`.<name>.lock`), held until the command is done
 * (src/util/held.ts: released when it returns, at the latest when the process
 * exits), so two edits racing never lose one. A lock of a killed process (dead
 * pid) is taken over; a live one is waited for, then refused with a clear message.
 */
export function lockConfig(file: string): void {
  const key = `config-lock:${file}`;
  if (isHeld(key)) return;
  const lock = join(dirname(file), `.${basename(file)}.lock`);
  hold(key, acquireLock(lock, display(lock), "hcpx command editing this config"));
  // temp files of an edit that was killed (its writer is dead)
  for (const t of staleTemps(dirname(file))) if (basename(t).startsWith(`.${basename(file)}.hcpx-`)) removeFile(t);
}

/** Parse + validate config text; throws HcpxError (with line/column) when it is not a valid config. */
export function checkConfigText(text: string, shown: string): ConfigFile {
  const doc = parseJson5(text, shown);
  return validate(schemas().ConfigSchema, doc.value, shown, doc.text).data;
}

/** Write new config text after checking it; atomic. */
export function writeConfig(file: string, text: string): ConfigFile {
  const data = checkConfigText(text, display(file));
  atomicWrite(file, text);
  return data;
}

/**
 * The base a config edit may write in (src/util/door.ts): the user's config
 * lives in $HOME (a dotfiles link inside $HOME is followed), a project's in its
 * own directory — a committed hcp.config.json5 that is a link leading out of
 * the project is refused, never written through.
 */
export function configBase(file: string): Base {
  return isInside(file, userConfigDir())
    ? { dir: home(), label: "$HOME" }
    : { dir: dirname(file), label: "the project" };
}

/** Write the config atomically through the one write door; a failure is a user-facing error. */
export function atomicWrite(file: string, text: string): void {
  try {
    writeFile(configBase(file), file, text, { show: display(file) });
  } catch (e) {
    if (e instanceof HcpxError) throw e;
    fail("write_failed", `cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      file: display(file),
      hint: "check the directory's permissions",
    });
  }
}
