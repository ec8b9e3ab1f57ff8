// Composite adapter module of the calc pack: loaded in-process by the runtime.
// Shape: the default export maps each verb_key (dots allowed) to
//   async (args, ctx) => data
// where args are already validated and typed from surface.json, and data is plain JSON.
// A throw becomes { ok: false, error: { code: "composite_error", message, reason: err.code } }.
import { ping, add, stats, convert } from './ops.mjs';

export default {
  ping: async (_args, _ctx) => ping(),
  add: async (args, _ctx) => add(args),
  stats: async (args, _ctx) => stats(args),
  convert: async (args, _ctx) => convert(args),
};
