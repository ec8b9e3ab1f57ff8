// The importer's shapes (what an import returns and is asked) and the few constants its steps share.
import type { ArgSpec, SchemeSpec } from "../pack/schema";

export type Json = Record<string, unknown>;
export const METHODS = ["get", "post", "put", "patch", "delete", "head"] as const;

/** The longest server name + tool name every host takes (README "Tool names"). */
export const MAX_SERVER_TOOL = 50;
export const SERVER_NAME = "hcp";

export type ImportedArg = ArgSpec & { in: "path" | "query" | "body" | "header" | "cookie" };

export interface ImportedHttp {
  method: string;
  path: string;
  base_url?: string;
  body?: {
    media: "application/json" | "application/x-www-form-urlencoded" | "multipart/form-data";
    required?: boolean;
    whole?: string;
  };
  accept?: string;
  security?: string[][];
}

export interface ImportedCommand {
  verb_key: string;
  summary: string;
  description?: string;
  http: ImportedHttp;
  args: Record<string, ImportedArg>;
  operation: "read" | "write";
  /** a write's land: `external` when the document says others see its effect (drafted with confirm) */
  land?: "remote" | "external";
  confirm: boolean;
  /** the operation's first tag (the Skill groups by it) */
  tag: string;
  operationId?: string;
  /** where it came from, for messages */
  source: string;
}

export interface ImportResult {
  id: string;
  title: string;
  description: string;
  version: string;
  /** absolute, or relative ("/api/v3") when the document's server URL is relative and no --origin was given */
  baseUrl: string;
  schemes: Record<string, SchemeSpec>;
  security?: string[][];
  commands: ImportedCommand[];
  /** what was left out and why */
  notes: string[];
  /** operations the --include / --exclude filters left out */
  filtered: number;
  /** a hint for some notes (what to do), keyed by the note */
  hints: Record<string, string>;
}

export interface ImportOptions {
  /** replaces the document's server URL */
  baseUrl?: string;
  /** where the document is served from: relative server URLs resolve against it */
  origin?: string;
  /** keep only operations matching one of these (tag:<t>, path:<glob>, op:<operationId glob>, or a bare word: tag or operationId) */
  include?: string[];
  exclude?: string[];
  /** credentials the document does not declare (`--auth`): parsed by parseAuth */
  auth?: AuthSpec;
}

/** `--auth`: bearer, basic, or an API key in a header, the query or a cookie. */
export type AuthSpec =
  { type: "bearer" } | { type: "basic" } | { type: "apiKey"; in: "header" | "query" | "cookie"; name: string };

export const AUTH_FORMS = "bearer, basic, header:<name>, query:<name> or cookie:<name> (an API key)";

/** The `--auth` value, or undefined when it is none of AUTH_FORMS. */
export function parseAuth(spec: string): AuthSpec | undefined {
  if (spec === "bearer" || spec === "basic") return { type: spec };
  const m = /^(header|query|cookie):([A-Za-z0-9_.[\]-]{1,64})$/.exec(spec);
  return m ? { type: "apiKey", in: m[1] as "header" | "query" | "cookie", name: m[2]! } : undefined;
}
