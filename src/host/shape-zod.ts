// The schema of a settings file's shape (./settings-shape.ts): `gate.hooks[].plugins.enabled.honoured` and
// `gate.skipped` (./skipped.ts), loaded with the rest of the descriptor's zod schemas (./descriptor-zod.ts).
import * as z from "zod/mini";
import type { SettingsShape } from "./settings-shape";

const compiles = (source: string): boolean => {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
};

export const ShapeSchema: z.ZodMiniType<SettingsShape> = z.lazy(() =>
  z.union([
    z.enum(["boolean", "string", "url", "number", "count", "positive", "strings", "list"]),
    z.array(ShapeSchema),
    z.strictObject({
      keys: z.record(z.string(), ShapeSchema),
      need: z.optional(z.array(z.string().check(z.minLength(1)))),
    }),
    z.strictObject({ items: ShapeSchema }),
    z.strictObject({
      known: z.record(z.string(), ShapeSchema),
      need: z.optional(z.array(z.string().check(z.minLength(1)))),
    }),
    z.strictObject({ values: ShapeSchema }),
    z.strictObject({
      oneOf: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).check(z.minLength(1)),
    }),
    z.strictObject({
      number: z.strictObject({
        min: z.optional(z.number()),
        above: z.optional(z.number()),
        max: z.optional(z.number()),
        whole: z.optional(z.literal(true)),
      }),
    }),
    z.strictObject({ pattern: z.string().check(z.minLength(1), z.refine(compiles, "not a regular expression")) }),
  ]),
);

/**
 * `gate.skipped`: settings files the host skips as a whole when one is not plain JSON or a key `shape` names is of
 * another type (Claude Code). `path`: the files (as a target or `gate.inForce` names them); `shape`: what sinks such
 * a file (probed, or read in the host's schema), each key with the type it must have (`known`: other keys are let
 * be); `what`: the host's word for it, said to the person with the file and key. An ask rule in such a file is no
 * one's question, and a setting there (a permission mode) does not hide one of the next file (src/host/approval.ts,
 * src/host/health.ts).
 */
export const SkippedSchema = z.strictObject({
  path: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  shape: ShapeSchema,
  what: z.string().check(z.minLength(1)),
});
