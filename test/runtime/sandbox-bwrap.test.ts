// The pieces of the OS sandbox that need no kernel: bubblewrap's argument
// builder (order matters: a later mount covers an earlier one), reading a
// denial out of a program's own error messages, a call's class from its
// Policy row, and the mcp server's widest granted class. The kernel side runs
// in test/runtime/os-sandbox.test.ts.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { spawnSync } from "node:child_process";
import { bwrapArgs, OWN_FOLDERS, ownFolderOf, type BwrapPlan } from "../../src/runtime/sandbox/bwrap";
import { fewerMounts } from "../../src/runtime/sandbox/mounts";
import { gitProtected, innerGitDirs } from "../../src/runtime/sandbox/gitdirs";
import { parseGitConfig, repoGitPointers } from "../../src/runtime/sandbox/git-config";
import { filterKnowsThisMachine, unixSocketFilter } from "../../src/runtime/sandbox/seccomp";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classOf, denialsIn, networkFor, widestGranted } from "../../src/runtime/sandbox/index";
import type { Pack, Project } from "../../src/pack/model";

const plan = (p: Partial<BwrapPlan> = {}): BwrapPlan => ({
  rebind: [],
  writable: [],
  masks: [],
  unmask: [],
  network: false,
  cwd: "/work/p",
  ...p,
});
const at = (a: string[], ...seq: string[]) => a.findIndex((_, i) => seq.every((s, j) => a[i + j] === s));

describe("bwrapArgs", () => {
  it("a read: / read-only, fresh /dev /proc, a private /tmp, no network, no capabilities, the command after --", () => {
    const a = bwrapArgs(plan(), "/usr/bin/node", ["bin.mjs", "--json"]);
    expect(a.slice(0, 7)).toEqual(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    // the kernel's settings read-only (bwrap leaves them writable to root), then the private /tmp
    expect(a.slice(7, 19)).toEqual(
      ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"].flatMap((p) => ["--ro-bind-try", p, p]),
    );
    expect(a.slice(19, 21)).toEqual(["--tmpfs", "/tmp"]);
    expect(a).toContain("--unshare-net");
    for (const f of ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--new-session"])
      expect(a).toContain(f);
    expect(at(a, "--cap-drop", "ALL")).toBeGreaterThan(0);
    expect(at(a, "--chdir", "/work/p")).toBeGreaterThan(0);
    expect(a.slice(-4)).toEqual(["--", "/usr/bin/node", "bin.mjs", "--json"]);
    expect(a).not.toContain("--bind");
  });

  it("an argv that looks like bubblewrap's options stays the program's (after --)", () => {
    const a = bwrapArgs(plan(), "/bin/prog", ["--bind", "/", "/"]);
    expect(a.indexOf("--")).toBe(a.length - 5);
    expect(a.filter((x) => x === "--bind")).toHaveLength(1);
  });

  it("order: the private /tmp, then the read-only rebinds (parents first), then the writable roots, then the masks, then the declared paths inside them, then the masks made read-only", () => {
    const a = bwrapArgs(
      plan({
        rebind: ["/tmp/q/sub", "/tmp/p"],
        writable: ["/tmp/p/out"],
        masks: [
          { path: "/tmp/h/.ssh", dir: true },
          { path: "/tmp/h/.netrc", dir: false },
        ],
        unmask: ["/tmp/h/.ssh/known_hosts"],
        network: true,
      }),
      "/bin/prog",
      [],
    );
    const tmp = at(a, "--tmpfs", "/tmp");
    const parent = at(a, "--ro-bind", "/tmp/p", "/tmp/p");
    const child = at(a, "--ro-bind", "/tmp/q/sub", "/tmp/q/sub");
    const write = at(a, "--bind", "/tmp/p/out", "/tmp/p/out");
    const dirMask = at(a, "--perms", "0000", "--tmpfs", "/tmp/h/.ssh");
    const fileMask = at(a, "--ro-bind", "/dev/null", "/tmp/h/.netrc");
    const unmask = at(a, "--ro-bind", "/tmp/h/.ssh/known_hosts", "/tmp/h/.ssh/known_hosts");
    const ro = at(a, "--remount-ro", "/tmp/h/.ssh");
    expect([tmp, parent, child, write, dirMask, fileMask, unmask, ro].every((i) => i >= 0)).toBe(true);
    expect(
      tmp < parent &&
        parent < child &&
        child < write &&
        write < dirMask &&
        dirMask < fileMask &&
        fileMask < unmask &&
        unmask < ro,
    ).toBe(true);
    expect(a).not.toContain("--unshare-net");
  });

  it("a rebind inside another rebound path is no mount of its own (the outer bind shows it): a read's project, its bins and its pack are one bind", () => {
    const a = bwrapArgs(
      plan({
        rebind: ["/tmp/p/bins", "/tmp/h", "/tmp/p", "/tmp/p/packs/calc-wrap", "/tmp/p", "/tmp/pq", "/dev/shm/s/x"],
      }),
      "/bin/prog",
      [],
    );
    const binds = a.flatMap((x, i) => (x === "--ro-bind" && a[i + 1]!.match(/^\/(tmp|dev\/shm)\//) ? [a[i + 1]] : []));
    // "/tmp/pq" is no path inside "/tmp/p": a name's prefix is not a folder
    expect(binds).toEqual(["/tmp/h", "/tmp/p", "/tmp/pq", "/dev/shm/s/x"]);
  });

  it("a protected path's folders inside its writable root are pinned (bound onto themselves) before it is bound read-only; the root and what is outside it are not", () => {
    const a = bwrapArgs(
      plan({ writable: ["/w/p"], protect: ["/w/p/.git/hooks", "/w/p/.git/config", "/w/p/packs/lw", "/w/p/hcp.lock"] }),
      "/bin/prog",
      [],
    );
    const root = at(a, "--bind", "/w/p", "/w/p");
    const git = at(a, "--bind", "/w/p/.git", "/w/p/.git");
    const packs = at(a, "--bind", "/w/p/packs", "/w/p/packs");
    const hooks = at(a, "--ro-bind", "/w/p/.git/hooks", "/w/p/.git/hooks");
    const lw = at(a, "--ro-bind", "/w/p/packs/lw", "/w/p/packs/lw");
    expect(
      [root, git, packs, hooks, lw].every((i) => i >= 0),
      a.join(" "),
    ).toBe(true);
    expect(root < git && git < hooks && packs < lw).toBe(true);
    expect(a.filter((x) => x === "/w/p/.git").length).toBe(2); // pinned once
    expect(at(a, "--bind", "/w", "/w")).toBe(-1);
  });
});

describe("the call's own folders (OWN_FOLDERS)", () => {
  it("are /tmp and /dev/shm: what lies inside them is bound again, nothing else of /dev (no host device comes in)", () => {
    expect(OWN_FOLDERS).toEqual(["/tmp", "/dev/shm"]);
    expect(ownFolderOf("/tmp/p/sub")).toBe("/tmp");
    expect(ownFolderOf("/dev/shm/hcpx-test-1/project")).toBe("/dev/shm");
    for (const p of ["/tmp", "/dev/shm", "/dev/sda", "/dev/kvm", "/dev", "/tmpfoo/x", "/dev/shmx/y", "/home/me"])
      expect(ownFolderOf(p), p).toBeUndefined();
    // as the path resolves (a program's message may name one with ..), as hiddenTmp read /tmp before
    expect(ownFolderOf("/tmp/../home/me/x")).toBeUndefined();
    expect(ownFolderOf("/dev/shm/../sda")).toBeUndefined();
    const p = { masks: [], network: false, rebind: [], writable: [] };
    expect(denialsIn("Error: ENOENT: no such file or directory, open '/tmp/../home/x'", p)).toEqual([]);
  });
});

describe("denialsIn", () => {
  const p = { masks: [{ path: "/h/.ssh", dir: true }], network: false, rebind: [], writable: [] };
  it("a write to a read-only file system, with the path the message names; a stack trace's repeats once", () => {
    const text = "Error: EROFS: read-only file system, open '/p/out.txt'\n    at x\n  code: 'EROFS',\n";
    expect(denialsIn(text, p)).toEqual([
      { what: "write", path: "/p/out.txt", line: "Error: EROFS: read-only file system, open '/p/out.txt'" },
    ]);
    expect(denialsIn("/bin/sh: 1: cannot create f: Read-only file system", p)).toEqual([
      { what: "write", line: "/bin/sh: 1: cannot create f: Read-only file system" },
    ]);
  });
  it("a read: only EACCES on a hidden path (EACCES elsewhere is the program's own business)", () => {
    expect(denialsIn("Error: EACCES: permission denied, open '/h/.ssh/id_rsa'", p)).toMatchObject([
      { what: "read", path: "/h/.ssh/id_rsa" },
    ]);
    expect(denialsIn("Error: EACCES: permission denied, open '/etc/shadow'", p)).toEqual([]);
  });
  it("the network: only when the call has none", () => {
    expect(denialsIn("Error: connect ECONNREFUSED 127.0.0.1:80", p)).toMatchObject([{ what: "network" }]);
    expect(denialsIn("curl: (6) Could not resolve host: example.com", p)).toMatchObject([{ what: "network" }]);
    expect(denialsIn("Error: connect ECONNREFUSED 127.0.0.1:80", { ...p, network: true })).toEqual([]);
  });
  it("nothing from an ordinary failure", () => {
    expect(denialsIn("error: bad argument\n", p)).toEqual([]);
  });
});

describe("a call's class", () => {
  it("from the Policy row: read, else the write's land (local when none)", () => {
    expect(classOf({ operation: "read" })).toBe("read");
    expect(classOf({ operation: "read", land: "external" })).toBe("read");
    expect(classOf({ operation: "write" })).toBe("local");
    expect(classOf({ operation: "write", land: "remote" })).toBe("remote");
  });

  const cmd = (verb_key: string, operation: "read" | "write", land?: "local" | "remote" | "external") => ({
    verb_key,
    summary: verb_key,
    args: {},
    policy: { operation, land, confirm: false, inferred: false },
  });
  const pack = {
    id: "srv",
    surface: { reach: { network: ["api.example.com:443"] } },
    commands: [cmd("get", "read"), cmd("save", "write", "local"), cmd("post", "write", "external")],
  } as unknown as Pack;
  const proj = (allow: string[]) => ({ grants: { allow, deny: [] } }) as unknown as Project;

  it("an mcp server: the widest land among the granted verbs only", () => {
    expect(widestGranted(pack, proj(["srv.get"]))).toBe("read");
    expect(widestGranted(pack, proj(["srv.get", "srv.save"]))).toBe("local");
    expect(widestGranted(pack, proj(["srv.*"]))).toBe("external");
    expect(widestGranted(pack, proj([]))).toBe("read");
  });

  it("the network: only where declared, for the declared kinds of call (default remote, external)", () => {
    expect(networkFor(pack, "read")).toBe(false);
    expect(networkFor(pack, "local")).toBe(false);
    expect(networkFor(pack, "external")).toBe(true);
    expect(
      networkFor(
        { ...pack, surface: { reach: { network: ["x:1"], network_for: ["read"] } } } as unknown as Pack,
        "read",
      ),
    ).toBe(true);
    expect(networkFor({ ...pack, surface: {} } as unknown as Pack, "remote")).toBe(false);
  });
});

describe("pack add's review", () => {
  it("shows the declared network (and that it is the host's whole network), hidden paths, and the mcp server's widest land", async () => {
    const { reachLines } = await import("../../src/packs/review");
    const lines = reachLines({
      kind: "mcp",
      bins: [],
      modules: [],
      http: [],
      env: [],
      setsEnv: [],
      commands: [],
      network: ["api.example.com:443"],
      networkFor: ["remote"],
      paths: ["~/.config/gh"],
    }).join("\n");
    expect(lines).toContain("network: api.example.com:443 for its remote calls");
    expect(lines).toContain("not filtered by host");
    expect(lines).toContain("reads paths hcpx hides (HOME's secrets): ~/.config/gh");
    expect(lines).toMatch(/widest land among the verbs you grant/);
  });
});

describe("HOME's secrets", () => {
  it("cover every user-scope config path of every host descriptor (hosts/*.json5): a host's config holds other servers' Binding values", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { SECRET_DIRS, SECRET_FILES } = await import("../../src/pack/secret-paths");
    const { REPO } = await import("../support/hcpx");
    const dir = join(REPO, "hosts");
    const paths = new Set<string>();
    for (const f of readdirSync(dir).filter((x) => x.endsWith(".json5")))
      for (const m of readFileSync(join(dir, f), "utf8").matchAll(/"~\/([^"]+)"/g))
        paths.add(m[1]!.replace(/\/+$/, ""));
    expect(paths.size).toBeGreaterThan(10);
    // instructions (.md) and Skill folders hold no env values
    const uncovered = [...paths]
      .filter((p) => !p.endsWith(".md") && !p.split("/").includes("skills"))
      .filter(
        (p) =>
          !(SECRET_FILES as readonly string[]).includes(p) &&
          !SECRET_DIRS.some((d) => p === d || p.startsWith(d + "/")),
      );
    expect(uncovered).toEqual([]);
  });
});

describe("fewer mounts for the same protection (src/runtime/sandbox/mounts.ts)", () => {
  /** A listing from names; a name ending in / is a folder. */
  const listing = (dirs: Record<string, string[]>) => (d: string) => {
    const names = dirs[d];
    if (!names) throw new Error(`ENOENT ${d}`);
    return names.map((n) => ({ name: n.replace(/\/$/, ""), dir: n.endsWith("/") }));
  };

  it("a folder whose every entry is a protected folder is bound whole; a path inside a protected one is left out", () => {
    const protect = ["/w/p/packs/a", "/w/p/packs/b", "/w/p/packs/c", "/w/p/packs/a/bin.mjs", "/w/p/hcp.lock"];
    const out = fewerMounts(protect, ["/w/p"], listing({ "/w/p/packs": ["a/", "b/", "c/"] }));
    expect(out.sort()).toEqual(["/w/p/hcp.lock", "/w/p/packs"]);
  });

  it("a folder holding anything else or a protected file, a root itself, a lone entry, an unreadable folder: entry by entry", () => {
    const list = listing({
      "/w/p/packs": ["a/", "b/", "notes.md"],
      "/w/p/.git": ["hooks/", "config"],
      "/w/q": ["x/", "y/"],
      "/w/r/one": ["a/"],
      "/w/t/packs": ["a/", "b/"],
    });
    const same = (protect: string[], writable: string[]) =>
      expect(fewerMounts(protect, writable, list).sort()).toEqual([...protect].sort());
    same(["/w/p/packs/a", "/w/p/packs/b"], ["/w/p"]);
    same(["/w/p/.git/hooks", "/w/p/.git/config"], ["/w/p"]);
    same(["/w/q/x", "/w/q/y"], ["/w/q"]);
    same(["/w/r/one/a"], ["/w/r"]);
    same(["/w/s/gone/a", "/w/s/gone/b"], ["/w/s"]);
    // another writable root inside the folder: its bind would be covered by the folder's
    same(["/w/t/packs/a", "/w/t/packs/b"], ["/w/t", "/w/t/packs/a/data"]);
  });

  it("reads a folder only until an entry that is not protected: a folder a write filled costs no more than its packs", () => {
    let read = 0;
    const flooded = function* (d: string) {
      if (d !== "/w/p/packs") throw new Error(`ENOENT ${d}`);
      for (const n of ["a", "b", "planted-0"]) {
        read++;
        yield { name: n, dir: true };
      }
      for (let i = 1; i < 100_000; i++) {
        read++;
        yield { name: `planted-${i}`, dir: false };
      }
    };
    const protect = ["/w/p/packs/a", "/w/p/packs/b"];
    expect(fewerMounts(protect, ["/w/p"], flooded).sort()).toEqual(protect);
    expect(read).toBe(3);
  });

  it("lists a real folder the same way (opendir, entry by entry), and closes it when it stops early", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "hcpx-mounts-")));
    try {
      for (const n of ["a", "b"]) mkdirSync(join(root, "packs", n), { recursive: true });
      const protect = [join(root, "packs", "a"), join(root, "packs", "b")];
      expect(fewerMounts(protect, [root])).toEqual([join(root, "packs")]);
      for (let i = 0; i < 2000; i++) writeFileSync(join(root, "packs", `f${i}`), "");
      const fds = readdirSync("/proc/self/fd").length;
      expect(fewerMounts(protect, [root]).sort()).toEqual(protect);
      expect(readdirSync("/proc/self/fd").length).toBe(fds);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the git dirs inside a .git (src/runtime/sandbox/gitdirs.ts)", () => {
  it("its own, each submodule's (a name with a slash, a submodule's submodule) and each worktree's", () => {
    const git = join(mkdtempSync(join(tmpdir(), "hcpx-gitdirs-")), ".git");
    for (const d of ["modules/lib/a", "modules/x", "modules/x/modules/y", "worktrees/w", "modules/empty"]) {
      mkdirSync(join(git, d), { recursive: true });
      if (d !== "modules/empty") writeFileSync(join(git, d, "HEAD"), "ref: refs/heads/main\n");
    }
    expect(innerGitDirs(git)!.sort()).toEqual(
      [git, "modules/lib/a", "modules/x", "modules/x/modules/y", "worktrees/w"]
        .map((d) => (d === git ? d : join(git, d)))
        .sort(),
    );
  });
});

describe("the walk of .git/modules is bounded", () => {
  it("past 4,096 entries or 8 levels it stops: modules/ and worktrees/ are then protected whole", () => {
    const flood = join(mkdtempSync(join(tmpdir(), "hcpx-gitdirs-")), ".git");
    mkdirSync(join(flood, "hooks"), { recursive: true });
    writeFileSync(join(flood, "config"), "[core]\n");
    for (let i = 0; i < 4200; i++) mkdirSync(join(flood, "modules", `f${i}`), { recursive: true });
    expect(innerGitDirs(flood)).toBeUndefined();
    expect(gitProtected(flood, true)).toEqual(["hooks", "config", "modules", "worktrees"].map((n) => join(flood, n)));
    expect(gitProtected(flood, false)).toEqual(["hooks", "modules", "worktrees"].map((n) => join(flood, n)));
    // a submodule's git dir nested past 8 levels of folders
    const deep = join(mkdtempSync(join(tmpdir(), "hcpx-gitdirs-")), ".git");
    const nested = join(deep, "modules", ...Array.from({ length: 9 }, (_, i) => `d${i}`));
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(nested, "HEAD"), "ref: refs/heads/main\n");
    expect(innerGitDirs(deep)).toBeUndefined();
    expect(gitProtected(deep, true)).toContain(join(deep, "modules"));
    // within the bounds: each git dir's own, nothing whole
    const few = join(mkdtempSync(join(tmpdir(), "hcpx-gitdirs-")), ".git");
    mkdirSync(join(few, "hooks"), { recursive: true });
    mkdirSync(join(few, "modules", "x", "hooks"), { recursive: true });
    writeFileSync(join(few, "modules", "x", "HEAD"), "ref: refs/heads/main\n");
    expect(gitProtected(few, false)).toEqual([join(few, "hooks"), join(few, "modules", "x", "hooks")]);
  });

  it("what is not there is kept by its nearest folder: a git dir without hooks/ or config whole; config.worktree when turned on", () => {
    const git = join(mkdtempSync(join(tmpdir(), "hcpx-gitdirs-")), ".git");
    mkdirSync(join(git, "modules", "x", "hooks"), { recursive: true });
    writeFileSync(join(git, "modules", "x", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(git, "config"), "[core]\n");
    // .git has no hooks/: .git itself; the submodule's git dir has no config: that git dir itself
    expect(gitProtected(git, true)).toEqual([
      git,
      join(git, "config"),
      join(git, "modules", "x", "hooks"),
      join(git, "modules", "x"),
    ]);
    mkdirSync(join(git, "hooks"));
    mkdirSync(join(git, "worktrees", "w"), { recursive: true });
    writeFileSync(join(git, "worktrees", "w", "HEAD"), "ref: refs/heads/w\n");
    writeFileSync(join(git, "modules", "x", "config"), "[core]\n");
    expect(gitProtected(git, true)).not.toContain(join(git, "worktrees", "w"));
    // extensions.worktreeConfig on: a worktree's config.worktree that is not there yet is kept too
    writeFileSync(join(git, "config"), "[extensions]\n\tworktreeConfig = true\n");
    expect(gitProtected(git, true)).toContain(join(git, "worktrees", "w"));
    expect(gitProtected(git, true)).toContain(git); // the main worktree's .git/config.worktree: .git whole
    writeFileSync(join(git, "config.worktree"), "");
    writeFileSync(join(git, "worktrees", "w", "config.worktree"), "");
    expect(gitProtected(git, true)).toEqual(
      ["hooks", "config", "config.worktree", "modules/x/hooks", "modules/x/config", "worktrees/w/config.worktree"].map(
        (n) => join(git, n),
      ),
    );
    // a .git that is a file (a worktree's pointer): the file itself
    const wt = mkdtempSync(join(tmpdir(), "hcpx-gitdirs-wt-"));
    writeFileSync(join(wt, ".git"), "gitdir: /somewhere/.git/worktrees/w\n");
    expect(new Set(gitProtected(join(wt, ".git"), true))).toEqual(new Set([join(wt, ".git")]));
  });
});

describe("no new unix socket under the sandbox (src/runtime/sandbox/seccomp.ts)", () => {
  it("bwrap reads the filter from fd 3 unless the pack declares reach.unix_sockets", () => {
    const args = bwrapArgs(plan({ noUnixSockets: true }), "/bin/x", []);
    expect(args.slice(args.indexOf("--seccomp"), args.indexOf("--seccomp") + 2)).toEqual(["--seccomp", "3"]);
    expect(args.indexOf("--seccomp")).toBeLessThan(args.indexOf("--"));
    expect(bwrapArgs(plan({}), "/bin/x", [])).not.toContain("--seccomp");
  });

  it("the filter is a classic BPF program: it loads the arch first and ends allowing; a refusal is EACCES", () => {
    const f = Buffer.from(unixSocketFilter());
    expect(f.length % 8).toBe(0);
    const at = (i: number) => ({ code: f.readUInt16LE(i * 8), k: f.readUInt32LE(i * 8 + 4) });
    expect(at(0)).toEqual({ code: 0x20, k: 4 });
    expect(at(f.length / 8 - 1)).toEqual({ code: 0x06, k: 0x7fff0000 });
    expect(at(f.length / 8 - 2)).toEqual({ code: 0x06, k: 0x0005000d });
  });

  it("run as the kernel runs it: socket(AF_UNIX), a socketpair() but a stream or packet one and io_uring refused on each known architecture, everything of another refused", () => {
    // a classic BPF interpreter for the five instructions the program uses (ld abs, and, jeq, jge, ret)
    const f = Buffer.from(unixSocketFilter());
    const verdict = (arch: number, nr: number, arg0 = 0, arg1 = 0): number => {
      const data = Buffer.alloc(64);
      data.writeInt32LE(nr, 0);
      data.writeUInt32LE(arch, 4);
      data.writeUInt32LE(arg0, 16);
      data.writeUInt32LE(arg1, 24);
      let a = 0;
      for (let pc = 0; pc < f.length / 8; pc++) {
        const code = f.readUInt16LE(pc * 8);
        const k = f.readUInt32LE(pc * 8 + 4);
        if (code === 0x06) return k;
        if (code === 0x20) a = data.readUInt32LE(k);
        else if (code === 0x54) a = (a & k) >>> 0;
        else if (code === 0x15 || code === 0x35)
          pc += (code === 0x15 ? a === k : a >= k) ? f[pc * 8 + 2]! : f[pc * 8 + 3]!;
        else throw new Error(`unexpected BPF code ${code}`);
      }
      throw new Error("the program fell off its end");
    };
    const ALLOW = 0x7fff0000;
    const EACCES = 0x0005000d;
    const [X86_64, I386, AARCH64, ARM, RISCV64] = [0xc000003e, 0x40000003, 0xc00000b7, 0x40000028, 0xc00000f3];
    const ENOSYS = 0x00050026;
    const [AF_UNIX, AF_INET] = [1, 2];
    const [STREAM, DGRAM, SEQPACKET, NONBLOCK_CLOEXEC] = [1, 2, 5, 0o4000 | 0o2000000];
    for (const [arch, socket, socketpair] of [
      [X86_64, 41, 53],
      [AARCH64, 198, 199],
      [ARM, 281, 288],
      [I386, 359, 360],
    ] as const) {
      expect(verdict(arch, socket, AF_UNIX)).toBe(EACCES);
      expect(verdict(arch, socket, AF_INET)).toBe(ALLOW);
      expect(verdict(arch, 3)).toBe(ALLOW); // read / close / … whatever the number
      // a child's stdio (libuv: socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)) and Chromium's packet pairs:
      // connected, so neither can send to a path; no pair that can (datagrams)
      expect(verdict(arch, socketpair, AF_UNIX, STREAM)).toBe(ALLOW);
      expect(verdict(arch, socketpair, AF_UNIX, STREAM | NONBLOCK_CLOEXEC)).toBe(ALLOW);
      expect(verdict(arch, socketpair, AF_UNIX, SEQPACKET)).toBe(ALLOW);
      expect(verdict(arch, socketpair, AF_UNIX, SEQPACKET | NONBLOCK_CLOEXEC)).toBe(ALLOW);
      for (const type of [DGRAM, DGRAM | NONBLOCK_CLOEXEC, 3 /* SOCK_RAW */, 4 /* SOCK_RDM */, 10 /* SOCK_PACKET */])
        expect(verdict(arch, socketpair, AF_UNIX, type)).toBe(EACCES);
      for (const nr of [425, 426, 427]) expect(verdict(arch, nr)).toBe(ENOSYS); // io_uring_setup, _enter, _register
      expect(verdict(arch, 424)).toBe(ALLOW); // pidfd_send_signal
      expect(verdict(arch, 428)).toBe(ALLOW); // open_tree
    }
    expect(verdict(X86_64, 0x40000000 + 41, AF_INET)).toBe(EACCES); // x32
    expect(verdict(I386, 102, 1)).toBe(EACCES); // socketcall(SYS_SOCKET): the family is behind a pointer
    expect(verdict(I386, 102, 8)).toBe(EACCES); // socketcall(SYS_SOCKETPAIR): so is the type
    expect(verdict(I386, 102, 3)).toBe(ALLOW); // socketcall(SYS_CONNECT)
    // an architecture the filter does not know: fails closed, not open
    expect(verdict(RISCV64, 198, AF_UNIX)).toBe(EACCES);
    expect(verdict(RISCV64, 63)).toBe(EACCES);
    expect(filterKnowsThisMachine("x64")).toBe(true);
    expect(filterKnowsThisMachine("arm64")).toBe(true);
    expect(filterKnowsThisMachine("riscv64")).toBe(false);
    expect(filterKnowsThisMachine("s390x")).toBe(false);
  });

  it("a connect the filter refused is told as such", () => {
    const p = { masks: [], network: false, rebind: [], writable: [], noUnixSockets: true };
    expect(denialsIn("Error: connect EACCES /w/p/run/db.sock", p)).toEqual([
      { what: "unix socket", path: "/w/p/run/db.sock", line: "Error: connect EACCES /w/p/run/db.sock" },
    ]);
    expect(denialsIn("Error: connect EACCES /w/p/run/db.sock", { ...p, noUnixSockets: false })).toEqual([]);
  });
});

describe("what git's configs point at (src/runtime/sandbox/git-config.ts)", () => {
  it("parses git's syntax: sections and subsections, quotes, escapes, comments, continued lines, keys without a value", () => {
    const text = [
      "# a comment",
      "[core]",
      '\thooksPath = ".husky/_"  ; husky',
      "\tbare",
      "[Core]",
      "  HooksPath = .githooks # the team's",
      '[includeIf "gitdir:~/work/"]',
      '  path = "~/work/.gitconfig"',
      "[include]",
      "  path = ../shared\\",
      ".gitconfig",
      '[alias] co = "checkout \\"x\\""',
    ].join("\n");
    expect(parseGitConfig(text)).toEqual([
      { section: "core", key: "hookspath", value: ".husky/_" },
      { section: "core", key: "bare", value: undefined },
      { section: "core", key: "hookspath", value: ".githooks" },
      { section: "includeif.gitdir:~/work/", key: "path", value: "~/work/.gitconfig" },
      { section: "include", key: "path", value: "../shared.gitconfig" },
      { section: "alias", key: "co", value: 'checkout "x"' },
    ]);
  });

  it("every hooksPath and every include counts, followed through includes; a missing one is kept by its nearest folder", () => {
    const root = mkdtempSync(join(tmpdir(), "hcpx-gitcfg-"));
    const home = mkdtempSync(join(tmpdir(), "hcpx-gitcfg-home-"));
    mkdirSync(join(root, ".git"));
    mkdirSync(join(root, ".husky", "_"), { recursive: true });
    mkdirSync(join(root, "conf"));
    writeFileSync(join(root, ".git", "config"), "[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../conf/extra\n");
    // the included file (in the root) includes one more, and sets a hooks folder that is not there yet
    writeFileSync(join(root, "conf", "extra"), "[include]\n\tpath = ~/more\n[core]\n\thooksPath = tools/hooks\n");
    writeFileSync(join(home, "more"), '[includeIf "onbranch:main"]\n\tpath = /nonexistent-hcpx/x\n');
    expect(repoGitPointers(root, [home]).sort()).toEqual(
      [join(root, ".husky", "_"), join(root, "conf", "extra"), root, join(home, "more"), "/"].sort(),
    );
    // no .git folder here: nothing to look at
    expect(repoGitPointers(home, [home])).toEqual([]);
    // an include loop is followed once; a chain past 32 files stops the call
    writeFileSync(join(root, "conf", "extra"), "[include]\n\tpath = extra\n");
    expect(repoGitPointers(root, [home])).toContain(join(root, "conf", "extra"));
    for (let i = 0; i < 40; i++) writeFileSync(join(root, "conf", `c${i}`), `[include]\n\tpath = c${i + 1}\n`);
    writeFileSync(join(root, "conf", "extra"), "[include]\n\tpath = c0\n");
    expect(() => repoGitPointers(root, [home])).toThrow(/more than 32 files/);
  });
});

describe("the git config reader against git itself", () => {
  const gitGet = (file: string, key: string): string[] => {
    const r = spawnSync("git", ["config", "--file", file, "--get-all", key], { encoding: "utf8" });
    return r.status === 0 ? r.stdout.split("\n").slice(0, -1) : [];
  };
  const ours = (text: string, section: string, key: string) =>
    parseGitConfig(text)
      .filter((e) => e.section === section && e.key === key)
      .map((e) => e.value ?? "true");

  it("reads core.hooksPath and include.path as `git config --file` does", () => {
    const dir = mkdtempSync(join(tmpdir(), "hcpx-gitcfg-vs-"));
    const cases = [
      "[core]\n\thooksPath = .husky/_\n",
      '[core]\n\thooksPath = "a b"  # c\n',
      "[CORE]\nHOOKSPATH=x;y\n",
      '[core] hooksPath = "q\\"x\\\\y"\n',
      "[core]\n\thooksPath = one \\\n two\n",
      "[core]\n  hooksPath   =   spaced   out   \n",
      "[include]\n\tpath = a\n\tpath = ../b\n[include]\n\tpath = ~/c\n",
      '[includeIf "gitdir:~/w/"]\n\tpath = w.inc\n',
      "[core]\r\n\thooksPath = crlf\r\n",
      "# [core]\n; hooksPath = no\n[core]\n\thooksPath = yes\n",
    ];
    for (const [i, text] of cases.entries()) {
      const f = join(dir, `c${i}`);
      writeFileSync(f, text);
      expect(ours(text, "core", "hookspath"), text).toEqual(gitGet(f, "core.hooksPath"));
      expect(ours(text, "include", "path"), text).toEqual(gitGet(f, "include.path"));
    }
  });

  it("any text: an answer, never an exception or a hang", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom("[", "]", '"', "\\", "\n", "\r", "=", "#", ";", " ", "\t", "a", "k", ".", "-"),
          maxLength: 200,
        }),
        (text) => {
          expect(Array.isArray(parseGitConfig(text))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
