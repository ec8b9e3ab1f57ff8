// Poll `ok` every 50 ms until it holds or `ms` pass; its last answer. For what a child process says on a
// pipe of its own (its stderr): that arrives apart from its answers on another channel, and under load
// after them.
export async function until(ok: () => boolean, ms = 15_000): Promise<boolean> {
  for (const t0 = Date.now(); !ok() && Date.now() - t0 < ms;) await new Promise((r) => setTimeout(r, 50));
  return ok();
}
