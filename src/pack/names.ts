// The shapes of the names in a pack: its id, verb keys, arg and env names.
// A module of their own: schema.ts and schema-defs.ts both use them, and
// schema.ts loads schema-defs.ts lazily (no import cycle between the two).
export const PACK_ID_RE = /^[a-z][a-z0-9-]{0,31}$/;
export const VERB_KEY_RE = /^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$/;
export const ARG_NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]*$/;
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
