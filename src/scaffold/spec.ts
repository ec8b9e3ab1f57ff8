// The command specs of `hcpx pack new` and `hcpx pack add-verb`
// (docs/pack-format.md#command-specs):
//
//   --verb  "<verb_key>[:json|:text]=<argv…>"                               a read
//   --write "<verb_key>:<local|remote|external>[:confirm][:json|:text]=<argv…>"  a write
//
// A verb_key never contains ':' or '=', so the attributes and the argv split
// unambiguously. The argv is split like a POSIX shell splits words, without
// expansion: '…' and "…" quote (an argument with spaces: "msg=commit -m 'a b'"),
// a backslash escapes the next character outside single quotes. `{{name}}` as
// a whole word becomes a required string arg.
import { VERB_KEY_RE } from "../pack/schema";
import { RESERVED_KEYS } from "../pack/validate";
import type { Land } from "../pack/model";
import { fail } from "../util/errors";

export interface VerbSpec {
  verb: string;
  /** argv after the CLI name */
  tail: string[];
  operation: "read" | "write";
  land?: Land;
  confirm: boolean;
  /** when the command's stdout is read differently from the pack's wrap.output */
  output?: "json" | "text";
}

export interface WriteDefaults {
  /** --land: the land of every --write that does not name its own */
  land?: string;
  /** --confirm: every --write needs confirm */
  confirm?: boolean;
}

const LANDS = ["local", "remote", "external"] as const;
const SPEC_HELP =
  'a read: --verb "status=status --short"; a write: --write "commit:local:confirm=commit -m {{message}}" (docs/pack-format.md#command-specs)';

function usage(message: string, hint = SPEC_HELP): never {
  fail("usage", message, { hint });
}

/** Split `s` into words like a POSIX shell (quotes, backslash), without any expansion. */
export function splitWords(s: string, spec: string): string[] {
  const out: string[] = [];
  let cur = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else cur += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === "\\" && i + 1 < s.length && '"\\$`'.includes(s[i + 1]!)) cur += s[++i]!;
      else cur += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "\\") {
      if (i + 1 >= s.length) usage(`--verb '${spec}': a backslash at the end escapes nothing`);
      cur += s[++i]!;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (quote)
    usage(
      `'${spec}': the ${quote === "'" ? "single" : "double"} quote is not closed`,
      "close it, like \"msg=commit -m 'a b'\"",
    );
  if (inWord) out.push(cur);
  return out;
}

/** Parse one --verb (operation "read") or --write (operation "write") spec. */
export function parseVerbSpec(spec: string, operation: "read" | "write", defaults: WriteDefaults = {}): VerbSpec {
  const flag = operation === "read" ? "--verb" : "--write";
  const eq = spec.indexOf("=");
  const head = (eq < 0 ? spec : spec.slice(0, eq)).trim();
  const [verb = "", ...attrs] = head.split(":").map((a) => a.trim());
  if (!VERB_KEY_RE.test(verb))
    usage(
      `${flag} '${spec}': '${verb}' is not a verb_key`,
      `a verb_key is lower-case words joined by dots, like status or entry.add; ${SPEC_HELP}`,
    );
  const tail = eq < 0 ? verb.split(".") : splitWords(spec.slice(eq + 1), spec);
  if (tail.length === 0)
    usage(
      `${flag} '${spec}': no argv after '='`,
      `write the program's arguments after '=', like ${flag} "${verb}=${verb}"`,
    );
  for (const t of tail) {
    if (t.includes("{{") && !/^\{\{[A-Za-z_][A-Za-z0-9_-]*\}\}$/.test(t))
      usage(
        `${flag} '${spec}': '${t}' mixes a placeholder with text`,
        'a {{name}} placeholder is one whole argv element: write it apart, like "show=show {{rev}}"',
      );
    if (RESERVED_KEYS.has(t.slice(2, -2)) && t.startsWith("{{"))
      usage(
        `${flag} '${spec}': '${t.slice(2, -2)}' is a reserved name (JavaScript's own) and cannot name an argument`,
        "name the placeholder otherwise: __proto__, constructor and prototype are never argument names",
      );
  }
  let land: Land | undefined;
  let confirm = false;
  let output: "json" | "text" | undefined;
  const seen = new Set<string>();
  for (const a of attrs) {
    if (seen.has(a)) usage(`${flag} '${spec}': '${a}' is given twice`);
    seen.add(a);
    if (a === "json" || a === "text") {
      if (output) usage(`${flag} '${spec}': give one output, json or text`);
      output = a;
    } else if ((LANDS as readonly string[]).includes(a) || a === "confirm") {
      if (operation === "read")
        usage(
          `--verb '${spec}': '${a}' is for writes, and --verb declares a read`,
          `declare a write with --write "${verb}:${a === "confirm" ? "local:confirm" : a}=…"`,
        );
      if (a === "confirm") confirm = true;
      else if (land) usage(`--write '${spec}': give one land (local, remote or external)`);
      else land = a as Land;
    } else
      usage(
        `${flag} '${spec}': unknown attribute '${a}'`,
        `attributes: ${operation === "write" ? "local, remote or external (where it lands), confirm, " : ""}json or text (how its output is read); ${SPEC_HELP}`,
      );
  }
  if (operation === "write") {
    if (!land && defaults.land !== undefined) {
      if (!(LANDS as readonly string[]).includes(defaults.land))
        usage(
          `--land '${defaults.land}' is not a land`,
          "a write lands local, remote or external (docs/pack-format.md#land)",
        );
      land = defaults.land as Land;
    }
    if (!land)
      usage(
        `--write '${spec}' does not say where it lands`,
        `add :local, :remote or :external (docs/pack-format.md#land), like --write "${verb}:local:confirm=…", or give --land for every write`,
      );
    if (defaults.confirm) confirm = true;
    if (land === "external" && !confirm)
      usage(
        `--write '${spec}' lands external (others see it) but needs no confirm`,
        `add :confirm, like --write "${verb}:external:confirm=…" (docs/pack-format.md#confirm)`,
      );
  }
  return { verb, tail, operation, ...(land ? { land } : {}), confirm, ...(output ? { output } : {}) };
}

/** Every spec of one `pack new` / `pack add-verb` call, verbs unique. */
export function parseVerbSpecs(reads: string[], writes: string[], defaults: WriteDefaults): VerbSpec[] {
  if (writes.length === 0 && (defaults.land !== undefined || defaults.confirm))
    usage("--land and --confirm go with --write", SPEC_HELP);
  const all = [
    ...reads.map((s) => parseVerbSpec(s, "read")),
    ...writes.map((s) => parseVerbSpec(s, "write", defaults)),
  ];
  const seen = new Set<string>();
  for (const v of all) {
    if (seen.has(v.verb)) usage(`the verb '${v.verb}' is given twice`, "give each verb once");
    seen.add(v.verb);
  }
  return all;
}
