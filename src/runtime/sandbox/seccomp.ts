// No new unix socket under the sandbox (docs/sandbox.md): a seccomp filter, handed to bubblewrap
// (`--seccomp 3`), makes socket(AF_UNIX, …) fail with EACCES in the confined program and all it
// starts. A network namespace does not cover a unix socket that is a file (a database's, an agent's, a
// container engine's kept in the project or under a path the call can see), and a read-only mount
// does not stop connect(); a call with the network shares the host's abstract sockets too. Pipes and
// socketpair() (how Node, Python … talk to their own children) are not socket() and keep working. A
// pack whose program must reach a unix socket declares reach.unix_sockets: its calls get no filter.
// The program is classic BPF (struct sock_filter: u16 code, u8 jt, u8 jf, u32 k, host byte order),
// built here for the architectures a Linux host runs hcpx on. It fails closed: a system call of any
// other architecture is refused (EACCES), and on a machine of another architecture a call that needs
// the filter is not run at all (filterKnowsThisMachine: sandbox_unavailable, src/runtime/sandbox).

/** The file descriptor the confined program's filter is read from (spawn.ts feeds it: stdio[3]). */
export const SECCOMP_FD = 3;

const AUDIT_ARCH = { x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7, arm: 0x40000028 } as const;
/** Node's names (process.arch) of the machines whose programs the filter knows (their own and 32-bit ones). */
const KNOWN_MACHINES = new Set(["x64", "ia32", "arm64", "arm"]);

/** Whether the filter knows the system calls of programs on this machine (`arch`: process.arch). */
export function filterKnowsThisMachine(arch: string = process.arch): boolean {
  return KNOWN_MACHINES.has(arch);
}
const X32_BIT = 0x40000000;
const AF_UNIX = 1;
const SYS_SOCKET = 1; // socketcall's call number for socket()
const RET_ALLOW = 0x7fff0000;
const RET_EACCES = 0x00050000 | 13; // SECCOMP_RET_ERRNO | EACCES
// seccomp_data: nr at 0, arch at 4, args[0] (its low 32 bits on a little-endian host) at 16
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

type Op = ["ld", number] | ["jeq" | "jge", number, string, string] | ["ret", number] | ["label", string];

/** The filter's program, with labels for its jumps. */
const PROGRAM: Op[] = [
  ["ld", ARCH],
  ["jeq", AUDIT_ARCH.x86_64, "x86_64", "not-x86_64"],
  ["label", "x86_64"],
  ["ld", NR],
  ["jge", X32_BIT, "deny", "x86_64-nr"], // the x32 ABI: nothing hcpx runs uses it
  ["label", "x86_64-nr"],
  ["jeq", 41, "unix?", "allow"], // socket
  ["label", "not-x86_64"],
  ["jeq", AUDIT_ARCH.aarch64, "nr-198", "not-aarch64"],
  ["label", "nr-198"],
  ["ld", NR],
  ["jeq", 198, "unix?", "allow"], // socket
  ["label", "not-aarch64"],
  ["jeq", AUDIT_ARCH.arm, "nr-281", "not-arm"],
  ["label", "nr-281"],
  ["ld", NR],
  ["jeq", 281, "unix?", "allow"], // socket
  ["label", "not-arm"],
  ["jeq", AUDIT_ARCH.i386, "i386", "deny"], // an architecture the filter does not know: nothing at all
  ["label", "i386"],
  ["ld", NR],
  ["jeq", 359, "unix?", "i386-socketcall"], // socket
  ["label", "i386-socketcall"],
  // socketcall(SYS_SOCKET, args): the family is behind a pointer the filter cannot read, so a 32-bit
  // program makes no socket at all under the filter
  ["jeq", 102, "socketcall", "allow"],
  ["label", "socketcall"],
  ["ld", ARG0],
  ["jeq", SYS_SOCKET, "deny", "allow"],
  ["label", "unix?"],
  ["ld", ARG0],
  ["jeq", AF_UNIX, "deny", "allow"],
  ["label", "deny"],
  ["ret", RET_EACCES],
  ["label", "allow"],
  ["ret", RET_ALLOW],
];

const CODE = { ld: 0x20, jeq: 0x15, jge: 0x35, ret: 0x06 } as const; // BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K

let built: Uint8Array | undefined;

/** The filter as bubblewrap reads it (struct sock_filter[]), built once. */
export function unixSocketFilter(): Uint8Array {
  if (built) return built;
  const at = new Map<string, number>();
  let n = 0;
  for (const op of PROGRAM)
    if (op[0] === "label") at.set(op[1], n);
    else n++;
  // a DataView, not Buffer's write methods: those are JavaScript compiled on their first call, ~0.25 ms
  // of a confined call's start (a fresh process, measured); DataView's setters are V8's own
  const out = new Uint8Array(n * 8);
  const view = new DataView(out.buffer);
  let pc = 0;
  const target = (label: string) => {
    const t = at.get(label);
    if (t === undefined || t <= pc || t - pc - 1 > 255) throw new Error(`seccomp: bad jump to ${label}`);
    return t - pc - 1;
  };
  for (const op of PROGRAM) {
    if (op[0] === "label") continue;
    const o = pc * 8;
    view.setUint16(o, CODE[op[0]], true); // struct sock_filter is in host byte order: little-endian on every known machine
    if (op[0] === "jeq" || op[0] === "jge") {
      view.setUint8(o + 2, target(op[2]));
      view.setUint8(o + 3, target(op[3]));
    }
    view.setUint32(o + 4, op[1] >>> 0, true);
    pc++;
  }
  return (built = out);
}
