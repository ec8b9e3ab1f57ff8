// The lines of a TOML file as TOML reads them: table headers, key/value pairs
// (a value may run over several lines: a multi-line string, an array), comment
// lines and blank lines. A `[x]` or `"""` inside a string or a comment is text,
// never a header or the start of a string: tomledit.ts finds hcpx's table by the
// headers seen here. The file was parsed (smol-toml) before it is scanned here.
import { HcpxError } from "../util/errors";

export interface TomlItem {
  kind: "header" | "keyval" | "comment" | "blank";
  /** where its first line starts */
  start: number;
  /** after its last line's line break (or the end of the text) */
  end: number;
  /** the header's path, or the key's (dotted) segments */
  path: string[];
  /** the path of the table a key/value is in (the last header above it; [] at the top) */
  table: string[];
  /** `[[…]]` */
  array?: boolean;
  /** a key/value: where its value starts; a header: where its line's text starts */
  valueStart: number;
  /** a key/value: after its value's last character (before the spaces and comment after it); a header: after its `]` */
  valueEnd: number;
  /** 1-based line of `start` */
  line: number;
}

// TOML 1.0's escapes (the reader, smol-toml, takes no others)
const ESCAPES: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" };

/** The text of a basic string's body (escapes resolved): a quoted key segment. */
function unescapeBasic(body: string): string {
  return body.replace(/\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/g, (m, u, U, c) =>
    u || U ? String.fromCodePoint(parseInt(u ?? U, 16)) : (ESCAPES[c as string] ?? m),
  );
}

class Scanner {
  i = 0;
  constructor(
    readonly t: string,
    readonly file: string,
  ) {}

  fail(what: string): never {
    const line = this.t.slice(0, this.i).split("\n").length;
    throw new HcpxError({
      code: "toml_unsupported",
      message: `hcpx cannot follow this TOML (${what}); nothing was written`,
      file: this.file,
      line,
      hint: "rewrite that line in a plainer form (one key = value, or a [table] header), then run the command again",
    });
  }

  skipWs(): void {
    while (this.t[this.i] === " " || this.t[this.i] === "\t") this.i++;
  }

  /** to the line break (not past it): a comment, or what follows a header */
  toEol(): void {
    const n = this.t.indexOf("\n", this.i);
    this.i = n < 0 ? this.t.length : n;
  }

  /** past the line break at `i` (or at the end) */
  eol(): void {
    if (this.t[this.i] === "\r" && this.t[this.i + 1] === "\n") this.i++;
    if (this.i < this.t.length) this.i++;
  }

  /** a string starting at `i` (", ', """ or '''); returns its body */
  string(): string {
    const t = this.t;
    const q = t[this.i]!;
    const basic = q === '"';
    if (t.startsWith(q.repeat(3), this.i)) {
      const from = this.i + 3;
      for (let j = from; j < t.length; j++) {
        if (basic && t[j] === "\\") j++;
        else if (t.startsWith(q.repeat(3), j)) {
          // up to two quotes right before the closing three belong to the string
          let k = j + 3;
          while (k < j + 5 && t[k] === q) k++;
          this.i = k;
          return t.slice(from, k - 3);
        }
      }
      this.fail("a multi-line string that does not end");
    }
    for (let j = this.i + 1; j < t.length && t[j] !== "\n"; j++) {
      if (basic && t[j] === "\\") j++;
      else if (t[j] === q) {
        const body = t.slice(this.i + 1, j);
        this.i = j + 1;
        return basic ? unescapeBasic(body) : body;
      }
    }
    return this.fail("a string that does not end on its line");
  }

  /** a key: segments joined by dots (bare, "basic" or 'literal') */
  key(): string[] {
    const segs: string[] = [];
    for (;;) {
      this.skipWs();
      const c = this.t[this.i];
      if (c === '"' || c === "'") segs.push(this.string());
      else {
        const bare = /[A-Za-z0-9_-]+/y;
        bare.lastIndex = this.i;
        const m = bare.exec(this.t);
        if (!m) this.fail("a key expected");
        segs.push(m[0]);
        this.i += m[0].length;
      }
      this.skipWs();
      if (this.t[this.i] !== ".") return segs;
      this.i++;
    }
  }

  /** a value, to the line break that ends it (arrays and inline tables may span lines); returns where its text ends */
  value(): number {
    let depth = 0;
    let last = this.i;
    while (this.i < this.t.length) {
      const c = this.t[this.i]!;
      if (c === '"' || c === "'") {
        this.string();
        last = this.i;
      } else if (c === "#") this.toEol();
      else {
        if (c === "\n" && depth <= 0) return last;
        if (c === "[" || c === "{") depth++;
        else if (c === "]" || c === "}") depth--;
        this.i++;
        if (c !== " " && c !== "\t" && c !== "\r" && c !== "\n") last = this.i;
      }
    }
    return last;
  }

  /** whitespace, line breaks and comments; true when a comment was among them */
  trivia(): boolean {
    let comment = false;
    for (;;) {
      const c = this.t[this.i];
      if (c === " " || c === "\t" || c === "\r" || c === "\n") this.i++;
      else if (c === "#") {
        comment = true;
        this.toEol();
      } else return comment;
    }
  }

  /** the list starting at `i` (its `[`), past its `]`: where its items are, and whether a comment is in it */
  list(): { open: number; close: number; items: [number, number][]; comment: boolean } {
    const open = this.i++;
    const items: [number, number][] = [];
    let comment = false;
    for (;;) {
      comment = this.trivia() || comment;
      const c = this.t[this.i];
      if (c === "]") return { open, close: this.i++, items, comment };
      if (c === undefined) this.fail("a list that does not close");
      const from = this.i;
      if (c === '"' || c === "'") this.string();
      else if (c === "[") comment = this.list().comment || comment;
      else if (c === "{") this.inlineTable();
      else {
        while (this.i < this.t.length && !/[,\]#\n]/.test(this.t[this.i]!)) this.i++;
        while (this.t[this.i - 1] === " " || this.t[this.i - 1] === "\t" || this.t[this.i - 1] === "\r") this.i--;
      }
      items.push([from, this.i]);
      comment = this.trivia() || comment;
      if (this.t[this.i] === ",") this.i++;
      else if (this.t[this.i] !== "]") this.fail("`,` or `]` expected in a list");
    }
  }

  /** an inline table starting at `i` (its `{`), past its `}` */
  inlineTable(): void {
    let depth = 0;
    while (this.i < this.t.length) {
      const c = this.t[this.i]!;
      if (c === '"' || c === "'") this.string();
      else {
        this.i++;
        if (c === "{" || c === "[") depth++;
        else if ((c === "}" || c === "]") && --depth === 0) return;
      }
    }
    this.fail("an inline table that does not close");
  }

  item(): TomlItem {
    const start = this.i;
    this.skipWs();
    const c = this.t[this.i];
    let kind: TomlItem["kind"] = "keyval";
    let path: string[] = [];
    let array: boolean | undefined;
    let valueStart = this.i;
    let valueEnd = this.i;
    if (c === undefined || c === "\n" || (c === "\r" && this.t[this.i + 1] === "\n")) kind = "blank";
    else if (c === "#") {
      kind = "comment";
      this.toEol();
    } else if (c === "[") {
      kind = "header";
      array = this.t[this.i + 1] === "[";
      this.i += array ? 2 : 1;
      path = this.key();
      if (!this.t.startsWith(array ? "]]" : "]", this.i)) this.fail("a table header that does not close");
      valueEnd = this.i + (array ? 2 : 1);
      this.toEol();
    } else {
      path = this.key();
      if (this.t[this.i] !== "=") this.fail("`=` expected after a key");
      this.i++;
      this.skipWs();
      valueStart = this.i;
      valueEnd = this.value();
    }
    this.eol();
    return { kind, start, end: this.i, path, table: [], ...(array ? { array } : {}), valueStart, valueEnd, line: 0 };
  }
}

/** The items of `text`, in order, covering it whole. */
export function scanToml(text: string, file: string): TomlItem[] {
  const s = new Scanner(text, file);
  // a UTF-8 BOM is not TOML (the reader drops it too)
  if (text.charCodeAt(0) === 0xfeff) s.i = 1;
  const out: TomlItem[] = [];
  let line = 1;
  let at = 0;
  let table: string[] = [];
  while (s.i < text.length) {
    const it = s.item();
    if (it.kind === "header") table = it.path;
    else it.table = table;
    for (; at < it.start; at++) if (text[at] === "\n") line++;
    it.line = line;
    out.push(it);
  }
  return out;
}

/** The list whose `[` is at `at` in `text` (a value scanToml found): its items' spans, and whether a comment is in it. */
export function tomlList(
  text: string,
  at: number,
  file: string,
): { open: number; close: number; items: [number, number][]; comment: boolean } {
  const s = new Scanner(text, file);
  s.i = at;
  return s.list();
}
