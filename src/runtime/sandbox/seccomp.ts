// No new unix socket under the sandbox (docs/sandbox.md): a seccomp filter, handed to bubblewrap
// (`--seccomp 3`), makes socket(AF_UNIX, …) fail with EACCES in the confined program and all it
// starts. A network namespace does not cover a unix socket that is a file (a database's, an agent's, a
// container engine's kept in the project or under a path the call can see), and a read-only mount
// does not stop connect(); a call with the network shares the host's abstract sockets too. The other
// ways to a socket are closed with it: io_uring (its IORING_OP_SOCKET) is refused, ENOSYS, and
// socketpair() makes only a connected pair (SOCK_STREAM, SOCK_SEQPACKET). Pipes and such socketpairs (how
// Node, Python … talk to their own children, and Chromium to its helpers) keep working. A pack whose program must reach a unix socket declares
// reach.unix_sockets: its calls get no filter.
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
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
const SOCK_TYPE = 0xf; // socketpair()'s type without its flags (SOCK_NONBLOCK, SOCK_CLOEXEC: higher bits)
const SYS_SOCKET = 1; // socketcall's call numbers for socket() and socketpair()
const SYS_SOCKETPAIR = 8;
// io_uring_setup, io_uring_enter, io_uring_register: 425–427 on each architecture the filter knows (the
// numbers every architecture shares since 5.1)
const IO_URING_FIRST = 425;
const IO_URING_LAST = 427;
const RET_ALLOW = 0x7fff0000;
const RET_EACCES = 0x00050000 | 13; // SECCOMP_RET_ERRNO | EACCES
// io_uring's IORING_OP_SOCKET makes a socket without socket(), then connect() reaches any unix socket: no
// io_uring at all (Docker's default profile refuses it too). ENOSYS, as on a kernel built without it:
// what a program that may use io_uring (libuv, liburing's users) tests for and falls back from, and no
// EACCES for the denial's reader (denials.ts) to take for a unix socket
const RET_ENOSYS = 0x00050000 | 38;
// seccomp_data: nr at 0, arch at 4, args[0] and args[1] (their low 32 bits on a little-endian host) at 16, 24
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;

type Op =
  ["ld", number] | ["and", number] | ["jeq" | "jge", number, string, string] | ["ret", number] | ["label", string];

/**
 * One architecture's checks of the system call's number (loaded): socket() by its family, socketpair()
 * by its type, io_uring refused; any other call goes on to `next`.
 */
function calls(arch: string, socket: number, socketpair: number, next = "allow"): Op[] {
  return [
    ["jeq", socket, "unix?", `${arch}-socketpair`],
    ["label", `${arch}-socketpair`],
    ["jeq", socketpair, "stream?", `${arch}-io_uring`],
    ["label", `${arch}-io_uring`],
    ["jge", IO_URING_FIRST, `${arch}-io_uring-last`, next],
    ["label", `${arch}-io_uring-last`],
    ["jge", IO_URING_LAST + 1, next, "no-io_uring"],
  ];
}

/** The filter's program, with labels for its jumps. */
const PROGRAM: Op[] = [
  ["ld", ARCH],
  ["jeq", AUDIT_ARCH.x86_64, "x86_64", "not-x86_64"],
  ["label", "x86_64"],
  ["ld", NR],
  ["jge", X32_BIT, "deny", "x86_64-nr"], // the x32 ABI: nothing hcpx runs uses it
  ["label", "x86_64-nr"],
  ...calls("x86_64", 41, 53),
  ["label", "not-x86_64"],
  ["jeq", AUDIT_ARCH.aarch64, "aarch64", "not-aarch64"],
  ["label", "aarch64"],
  ["ld", NR],
  ...calls("aarch64", 198, 199),
  ["label", "not-aarch64"],
  ["jeq", AUDIT_ARCH.arm, "arm", "not-arm"],
  ["label", "arm"],
  ["ld", NR],
  ...calls("arm", 281, 288),
  ["label", "not-arm"],
  ["jeq", AUDIT_ARCH.i386, "i386", "deny"], // an architecture the filter does not know: nothing at all
  ["label", "i386"],
  ["ld", NR],
  ...calls("i386", 359, 360, "i386-socketcall"),
  ["label", "i386-socketcall"],
  // socketcall(SYS_SOCKET or SYS_SOCKETPAIR, args): the family and the type are behind a pointer the filter
  // cannot read, so a 32-bit program that goes through socketcall makes neither under the filter
  ["jeq", 102, "socketcall", "allow"],
  ["label", "socketcall"],
  ["ld", ARG0],
  ["jeq", SYS_SOCKET, "deny", "socketcall-pair"],
  ["label", "socketcall-pair"],
  ["jeq", SYS_SOCKETPAIR, "deny", "allow"],
  ["label", "unix?"],
  ["ld", ARG0],
  ["jeq", AF_UNIX, "deny", "allow"],
  // a socketpair() of datagrams can sendto() any unix socket by its path (the host's journal, a service's),
  // and connect() to one: only a pair already connected to each other, which can neither (connect(): EISCONN;
  // a sendto()'s address is ignored, af_unix.c unix_seqpacket_sendmsg): a stream pair (how libuv, so Node,
  // and Python make a child's stdio) or a packet pair (Chromium's)
  ["label", "stream?"],
  ["ld", ARG1],
  ["and", SOCK_TYPE],
  ["jeq", SOCK_STREAM, "allow", "seqpacket?"],
  ["label", "seqpacket?"],
  ["jeq", SOCK_SEQPACKET, "allow", "deny"],
  ["label", "no-io_uring"],
  ["ret", RET_ENOSYS],
  ["label", "deny"],
  ["ret", RET_EACCES],
  ["label", "allow"],
  ["ret", RET_ALLOW],
];

// BPF_LD|W|ABS, BPF_ALU|AND|K, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K
const CODE = { ld: 0x20, and: 0x54, jeq: 0x15, jge: 0x35, ret: 0x06 } as const;

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
