// Which of HOME's secrets a confined call hides (src/runtime/sandbox/secrets.ts): the folders they lie
// in are listed once and only a listed name is asked by stat(). A listing may only save a stat: on any
// home, the masks are those of a stat of every secret path; a folder that cannot be listed, is too large,
// lists too many names or a name outside ASCII is asked path by path.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LIST_BYTES, LIST_NAMES, listNames, mayExist, secretMasks } from "../../src/runtime/sandbox/secrets";
import { SECRET_DIRS, SECRET_FILES } from "../../src/pack/secret-paths";

const SECRETS = [...SECRET_DIRS.map((d) => [d, true] as const), ...SECRET_FILES.map((f) => [f, false] as const)];

/** The masks as a stat of every secret path gives them (the code before the listing). */
function everyStat(home: string): { path: string; dir: boolean }[] {
  const out: { path: string; dir: boolean }[] = [];
  for (const [rel, dir] of SECRETS) {
    const st = statSync(join(home, rel), { throwIfNoEntry: false });
    if (st) out.push({ path: join(home, rel), dir: st.isDirectory() && dir });
  }
  return out;
}

/** A listing of made-up folders (one not in `tree` cannot be listed), recording what it was asked. */
function fakeList(tree: Record<string, string[]>, asked: string[]) {
  return (dir: string): readonly string[] | undefined => {
    asked.push(dir);
    return tree[dir];
  };
}

describe("mayExist", () => {
  it("a name its folder does not list is absent; a folder its parent does not list is never opened", () => {
    const asked: string[] = [];
    const may = mayExist("/h", fakeList({ "/h": [".ssh", ".config"], "/h/.config": ["gh"] }, asked));
    expect(may(".ssh")).toBe(true);
    expect(may(".aws")).toBe(false);
    expect(may(".config/gh")).toBe(true);
    expect(may(".config/gcloud")).toBe(false);
    expect(may(".local/share/keyrings")).toBe(false);
    expect(may(".local/share/containers")).toBe(false);
    expect(may("Library/Application Support/Claude")).toBe(false);
    // each folder listed once; .local and Library, absent from the home, not at all
    expect(asked).toEqual(["/h", "/h/.config"]);
  });

  it("names are compared in ASCII lower case (a case-folding file system's .SSH is asked)", () => {
    const may = mayExist("/h", fakeList({ "/h": [".SSH", ".Config"], "/h/.config": ["GH"] }, []));
    expect(may(".ssh")).toBe(true);
    expect(may(".config/gh")).toBe(true);
    expect(may(".kube")).toBe(false);
  });

  it("a folder with a name outside ASCII is asked path by path (ſ and the Kelvin sign fold to s and k)", () => {
    for (const odd of [".\u017Fsh", ".\u212Aube", "caf\u00e9"]) {
      const may = mayExist("/h", fakeList({ "/h": ["a", odd] }, []));
      expect(may(".ssh"), odd).toBe(true);
      expect(may(".kube"), odd).toBe(true);
    }
  });

  it(`a listing of more than ${LIST_NAMES} names, or a folder that cannot be listed, is asked path by path`, () => {
    const many = Array.from({ length: LIST_NAMES + 1 }, (_, i) => `f${i}`);
    expect(mayExist("/h", fakeList({ "/h": many }, []))(".ssh")).toBe(true);
    expect(mayExist("/h", fakeList({ "/h": many.slice(1) }, []))(".ssh")).toBe(false);
    const asked: string[] = [];
    const may = mayExist("/h", fakeList({ "/h": [".config"] }, asked)); // .config listed, but cannot be opened
    expect(may(".config/gh")).toBe(true);
    expect(may(".config/zed")).toBe(true);
    expect(asked).toEqual(["/h", "/h/.config"]);
  });
});

describe("listNames", () => {
  it(`a folder's names; [] when it does not exist; undefined when it is a file or larger than ${LIST_BYTES} bytes`, () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-secrets-")));
    try {
      writeFileSync(join(dir, ".npmrc"), "x");
      mkdirSync(join(dir, ".ssh"));
      expect([...listNames(dir)!].sort()).toEqual([".npmrc", ".ssh"]);
      expect(listNames(join(dir, "absent"))).toEqual([]);
      expect(listNames(join(dir, ".npmrc"))).toBeUndefined();
      const big = join(dir, "big");
      mkdirSync(big);
      for (let i = 0; statSync(big).size <= LIST_BYTES; i++)
        writeFileSync(join(big, `entry-with-a-long-name-${i}`), "");
      expect(listNames(big)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("secretMasks", () => {
  const made = (entries: readonly string[], extra: readonly string[]) => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-secrets-")));
    for (const e of [...entries, ...extra]) {
      const p = join(home, e.replace(/\/$/, ""));
      mkdirSync(dirname(p), { recursive: true });
      if (e.endsWith("/")) mkdirSync(p, { recursive: true });
      else writeFileSync(p, "x");
    }
    return home;
  };

  it("on any home, the masks of a stat of every secret path", () => {
    const secret = fc.constantFrom(
      ...SECRET_DIRS.map((d) => `${d}/`),
      ...SECRET_FILES,
      ...SECRET_DIRS.slice(0, 5), // a file where a folder is expected
      ...SECRET_FILES.slice(0, 3).map((f) => `${f}/`), // a folder where a file is expected
    );
    const decoy = fc.constantFrom(
      ".SSH/",
      ".Config/",
      ".config/other",
      ".local/",
      "Library/",
      "notes.txt",
      "é/",
      ".ſsh/",
    );
    fc.assert(
      fc.property(fc.uniqueArray(secret, { maxLength: 8 }), fc.uniqueArray(decoy, { maxLength: 3 }), (s, d) => {
        // a secret inside a path made a file is not made (both cannot exist)
        const key = (e: string) => e.replace(/\/$/, "");
        const once = s.filter((e, i) => s.findIndex((o) => key(o) === key(e)) === i); // a path made once: a file or a folder
        const entries = once.filter((e) => !once.some((o) => o !== e && !o.endsWith("/") && e.startsWith(`${o}/`)));
        const home = made(entries, d);
        try {
          expect(secretMasks([home], []).masks).toEqual(everyStat(home));
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  });

  it("lists each folder the secrets lie in once, and opens none its home does not hold", () => {
    const home = made([".ssh/", ".npmrc", ".config/gh/"], []);
    try {
      const asked: string[] = [];
      const list = (dir: string) => (asked.push(dir), listNames(dir));
      const { masks } = secretMasks([home], [], list);
      expect(masks).toEqual([
        { path: join(home, ".ssh"), dir: true },
        { path: join(home, ".config/gh"), dir: true },
        { path: join(home, ".npmrc"), dir: false },
      ]);
      expect(asked).toEqual([home, join(home, ".config")]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("a declared path inside a hidden folder is bound back; one around a secret shows it whole", () => {
    const home = made([".ssh/known_hosts", ".aws/credentials"], []);
    try {
      const { masks, unmask } = secretMasks([home], [join(home, ".ssh", "known_hosts"), join(home, ".aws")]);
      expect(masks).toEqual([{ path: join(home, ".ssh"), dir: true, traverse: true }]);
      expect(unmask).toEqual([join(home, ".ssh", "known_hosts")]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
