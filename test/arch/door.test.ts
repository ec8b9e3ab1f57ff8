// The one write door and the one read door (issue 22 §1, §2), as properties
// of the code: no module of src/ but the doors may create, replace, rename or
// delete a file or directory (src/util/door.ts, with atomic.ts and fsio.ts
// behind it), and none but the bounded reader (src/util/readfile.ts) may open
// or read a file's bytes. A module may still ask node:fs about metadata
// (exists, stat, lstat, readlink, readdir, realpath, access, watch). Every way to reach
// node:fs is checked: named imports (static, type-only excepted), namespace
// and default imports, require(), import() and process.getBuiltinModule();
// also any `.<write>Sync(` call, and a child process started to do a write
// (rm, mv, cp, ln, mkdir, …). HCPX_ARCH_SRC=<dir> checks another tree (e.g.
// an old checkout's src/, which fails).
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "../support/hcpx";
import { tsFilesUnder as files } from "../support/tree";

const SRC = process.env.HCPX_ARCH_SRC ?? join(REPO, "src");

/** The write door: the only modules that may create, replace, rename or delete. */
const WRITE_DOORS = new Set(["util/door.ts", "util/atomic.ts", "util/fsio.ts"]);
/** The read door: the only module that may open or read a file's bytes. */
const READ_DOOR = "util/readfile.ts";

/** node:fs names that only look (metadata, listing, watching): allowed everywhere. */
const LOOK = new Set([
  "existsSync",
  "statSync",
  "lstatSync",
  "fstatSync",
  "readdirSync",
  "opendirSync", // a folder's entries, one at a time (the bounded walks: src/util/dirents.ts)
  "Dir",
  "realpathSync",
  "readlinkSync", // a link's target, what realpathSync reads too (src/runtime/sandbox/links.ts: the links on a path)
  "accessSync",
  "constants",
  "watch",
  "FSWatcher",
  "Stats",
  "Dirent",
  "BigIntStats",
  "closeSync",
  "statfsSync", // a file system's type (src/mcp/watch-plan.ts: whether its watches see every change)
]);
/** node:fs names that read a file's bytes: the read door's alone. */
const READ = new Set([
  "readFileSync",
  "readFile",
  "openSync",
  "open",
  "readSync",
  "read",
  "readvSync",
  "readv",
  "createReadStream",
  "openAsBlob",
]);

/**
 * Raw reads outside the reader, each with its reason: none of these is a file
 * a repository, a pack, a host config or a cache can hold.
 */
const READ_ALLOWED: Record<string, { names: string[]; why: string }> = {
  "runtime/wrap.ts": {
    names: ["readFileSync"],
    why: "/proc/<pid>/stat and /proc/<pid>/task/*/children of the bin's own process tree: made by the kernel, not a file anyone plants",
  },
  "runtime/spawn.ts": {
    names: ["openSync", "readSync"],
    why: "/proc/self/fdinfo/<fd> of hcpx's own fds (their close-on-exec flag, before a confined spawn) and /dev/null, opened to stand in for an inherited fd in the child: made by the kernel, not a file anyone plants",
  },
  "util/door.ts": {
    names: ["openSync"],
    why: "appendRecord opens a log O_WRONLY|O_APPEND|O_NOFOLLOW to append one record: a write, never a read",
  },
  "util/atomic.ts": {
    names: ["openSync"],
    why: "atomicWrite opens its own new temp file O_WRONLY|O_CREAT|O_EXCL to write a large text in pieces: a write, never a read",
  },
};

/**
 * Writes to a file descriptor the process was given, never a path, each with its
 * reason and the descriptor its calls must name.
 */
const FD_WRITE_ALLOWED: Record<string, { names: string[]; fd: string; why: string }> = {
  "cli/output.ts": {
    names: ["writeSync"],
    fd: "1",
    why: "writeFd: the envelope on exec's start path goes to fd 1 (this process's stdout) without building process.stdout — the CLI's one exit, not a file",
  },
};

/** Write calls on any object (fs.x, a renamed import, an injected fs): the write door's alone. */
const WRITE_CALL =
  /\.\s*(writeFileSync|renameSync|rmSync|unlinkSync|mkdirSync|mkdtempSync|copyFileSync|cpSync|symlinkSync|linkSync|appendFileSync|rmdirSync|truncateSync|ftruncateSync|chmodSync|chownSync|lchownSync|utimesSync|lutimesSync|writeSync|writevSync|createWriteStream)\s*\(/g;
/** A child process started to write files for hcpx. */
const WRITE_PROCESS =
  /\b(?:spawn|spawnSync|execFile|execFileSync|exec|execSync|fork)\(\s*["'`](?:rm|mv|cp|ln|mkdir|rmdir|install|dd|tee|touch|truncate|chmod|unlink|rsync|tar)["'`]/g;

const FS_MODULE = `["'](?:node:)?fs(?:/promises)?["']`;
const NAMED = new RegExp(`\\bimport\\s+(type\\s+)?\\{([^}]*)\\}\\s*from\\s*${FS_MODULE}`, "g");
const WHOLE = [
  new RegExp(`\\bimport\\s+\\*\\s+as\\s+\\w+\\s+from\\s*${FS_MODULE}`, "g"),
  new RegExp(`\\bimport\\s+\\w+\\s*(?:,\\s*\\{[^}]*\\})?\\s*from\\s*${FS_MODULE}`, "g"),
  new RegExp(`\\bexport\\s+[^;]*from\\s*${FS_MODULE}`, "g"),
  new RegExp(`\\brequire\\(\\s*${FS_MODULE}\\s*\\)`, "g"),
  new RegExp(`\\bimport\\(\\s*${FS_MODULE}\\s*\\)`, "g"),
  new RegExp(`getBuiltinModule\\(\\s*${FS_MODULE}\\s*\\)`, "g"),
];

/** Comments out (line and block), so a comment naming a call is not a call. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

export interface Offence {
  file: string;
  door: "write" | "read";
  what: string;
}

/** Every way a module (path relative to src/ → its text) reaches past the doors. */
export function offences(modules: Record<string, string>): Offence[] {
  const out: Offence[] = [];
  for (const [file, raw] of Object.entries(modules)) {
    const text = code(raw);
    const writeDoor = WRITE_DOORS.has(file);
    const readDoor = file === READ_DOOR;
    for (const m of text.matchAll(NAMED)) {
      if (m[1]) continue; // import type { … }: no code
      for (const spec of m[2]!.split(",")) {
        const name = spec
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0]!
          .trim();
        if (!name || spec.trim().startsWith("type ") || LOOK.has(name)) continue;
        if (READ.has(name)) {
          if (readDoor || READ_ALLOWED[file]?.names.includes(name)) continue;
          out.push({ file, door: "read", what: `imports ${name} from node:fs` });
        } else if (!writeDoor && !FD_WRITE_ALLOWED[file]?.names.includes(name))
          out.push({ file, door: "write", what: `imports ${name} from node:fs` });
      }
    }
    if (!writeDoor) {
      for (const re of WHOLE)
        for (const m of text.matchAll(re))
          out.push({
            file,
            door: "write",
            what: `reaches node:fs as a whole (${m[0].trim()}): name what it uses, or go through src/util/door.ts`,
          });
      for (const m of text.matchAll(WRITE_CALL)) out.push({ file, door: "write", what: `calls ${m[1]}()` });
      // an allowed descriptor write names its descriptor, as a literal, in every call
      const fdw = FD_WRITE_ALLOWED[file];
      for (const name of fdw?.names ?? [])
        for (const m of text.matchAll(new RegExp(`\\b${name}\\(\\s*([^,)]*)`, "g")))
          if (m[1]!.trim() !== fdw!.fd)
            out.push({ file, door: "write", what: `calls ${name}(${m[1]}…): only fd ${fdw!.fd} is allowed here` });
      for (const m of text.matchAll(WRITE_PROCESS))
        out.push({ file, door: "write", what: `starts a process to write (${m[0]})` });
    }
  }
  return out;
}

function tree(src: string): Record<string, string> {
  return Object.fromEntries(files(src).map((f) => [relative(src, f), readFileSync(f, "utf8")]));
}

const show = (o: Offence[]) => o.map((x) => `src/${x.file}: ${x.what}`).join("\n");

describe("one write door (issue 22 §1)", () => {
  it("no module of src/ creates, replaces, renames or deletes a file except through src/util/door.ts", () => {
    const bad = offences(tree(SRC)).filter((o) => o.door === "write");
    expect(
      show(bad),
      "write through src/util/door.ts (writeFile, writeFiles, mkdirs, removeFile, removeTree, stagingDir, swapDir)",
    ).toBe("");
  });

  it("the check can fail: each kind of raw write in a module is found", () => {
    const cases = [
      `import { writeFileSync } from "node:fs";\nwriteFileSync("x", "y");`,
      `import { rmSync as gone } from "fs";\ngone("x");`,
      `import { mkdirSync, existsSync } from "node:fs";`,
      `import { rename } from "node:fs/promises";`,
      `import * as fs from "node:fs";\nfs.unlinkSync("x");`,
      `import fs from "node:fs";`,
      `const fs = require("node:fs");`,
      `const fs = await import("fs");`,
      `const fs = process.getBuiltinModule("node:fs");`,
      `something.renameSync(a, b);`,
      `spawnSync("rm", ["-rf", dir]);`,
      `export { copyFileSync } from "node:fs";`,
    ];
    for (const c of cases)
      expect(
        offences({ "cli/commands/evil.ts": c }).filter((o) => o.door === "write"),
        c,
      ).not.toEqual([]);
    // a descriptor write allowed for fd 1 is an offence on any other fd, or in another module
    expect(
      offences({ "cli/output.ts": `import { writeSync } from "node:fs";\nwriteSync(fd, b);` }).map((o) => o.what),
    ).toEqual(["calls writeSync(fd…): only fd 1 is allowed here"]);
    expect(offences({ "cli/output.ts": `import { writeSync } from "node:fs";\nwriteSync(1, b, 0);` })).toEqual([]);
    expect(offences({ "cli/other.ts": `import { writeSync } from "node:fs";\nwriteSync(1, b, 0);` })).not.toEqual([]);
    // … and the door itself, metadata calls and comments are not offences
    expect(offences({ "util/door.ts": `import { writeFileSync, renameSync } from "node:fs";` })).toEqual([]);
    expect(
      offences({
        "cli/x.ts": `import { existsSync, statSync, type Stats } from "node:fs";\n// writeFileSync("x") in a comment\n/* fs.rmSync(x) */`,
      }),
    ).toEqual([]);
  });
});

describe("one read door for plantable files (issue 22 §2)", () => {
  it("no module of src/ opens or reads a file's bytes except through src/util/readfile.ts (allow-list with reasons)", () => {
    const bad = offences(tree(SRC)).filter((o) => o.door === "read");
    expect(
      show(bad),
      "read through src/util/readfile.ts (readTextFile, readBytes: regular file only, O_NONBLOCK, size cap, base policy)",
    ).toBe("");
  });

  it("every allow-listed raw read still exists and says why", () => {
    const t = tree(SRC);
    for (const [file, a] of Object.entries(READ_ALLOWED)) {
      expect(t[file], `src/${file} is allow-listed but gone: drop it from READ_ALLOWED`).toBeDefined();
      expect(a.why.length).toBeGreaterThan(20);
      for (const n of a.names)
        expect(code(t[file]!), `src/${file} no longer uses ${n}: drop it from READ_ALLOWED`).toMatch(
          new RegExp(`\\b${n}\\(`),
        );
    }
  });

  it("the check can fail: a raw read in any module but the reader is found", () => {
    for (const c of [
      `import { readFileSync } from "node:fs";`,
      `import { openSync, readSync } from "fs";`,
      `import { readFile } from "node:fs/promises";`,
      `import { createReadStream } from "node:fs";`,
    ]) {
      expect(
        offences({ "host/evil.ts": c }).filter((o) => o.door === "read"),
        c,
      ).not.toEqual([]);
      expect(
        offences({ "util/fsio.ts": c }).filter((o) => o.door === "read"),
        `the write door may not read raw either: ${c}`,
      ).not.toEqual([]);
    }
    // the allow-list is per file and per name
    expect(
      offences({ "runtime/wrap.ts": `import { readFileSync, openSync } from "node:fs";` }).map((o) => o.what),
    ).toEqual(["imports openSync from node:fs"]);
    expect(offences({ "util/readfile.ts": `import { openSync, readSync, closeSync } from "node:fs";` })).toEqual([]);
  });
});
