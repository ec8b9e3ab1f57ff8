// The file stamps of the per-call reuse (the racy rule, RACY_MS) live in
// src/util/stamp.ts, below every layer that keeps something loaded from files:
// the front's view cache (view-cache.ts), the server config and tokens file
// (team-config.ts), the start cache, and the composite adapter's module
// (src/runtime/composite.ts). One rule for all of them.
export {
  Marks,
  RACY_MS,
  settledBefore,
  Stamped,
  stampOf,
  stampStat,
  statOncePerTurn,
  TURN_MS,
  type StatFn,
} from "../util/stamp";
