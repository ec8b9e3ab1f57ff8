// hcpx's cache entries as src/util/cache.ts frames them (an 8-byte magic, the
// payload's length, the payload twice), for tests that read or plant one.

/** An entry's payload, as text. */
export const unframe = (b: Buffer): string => b.subarray(12, 12 + b.readUInt32LE(8)).toString("utf8");

/** `text` framed as hcpx writes it: a well-formed entry. */
export function frame(text: string): Buffer {
  const payload = Buffer.from(text);
  const head = Buffer.alloc(12);
  Buffer.from("hcpxC02\n", "latin1").copy(head);
  head.writeUInt32LE(payload.length, 8);
  return Buffer.concat([head, payload, payload]);
}
