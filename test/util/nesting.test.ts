// checkNesting reads a host file's syntax as its parser does, so nothing a parser recurses into is
// hidden from the count (a `"` in a comment or a block scalar hid every bracket after it), and
// parsingDeep turns a stack overflow the count still missed into too_deep naming the file.
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { checkNesting, parsingDeep } from "../../src/util/nesting";
import { HcpxError } from "../../src/util/errors";

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

function refusal(f: () => unknown): Record<string, unknown> {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(HcpxError);
    return { ...(e as HcpxError).problems[0], code: (e as HcpxError).code };
  }
  throw new Error("expected too_deep, got no error");
}

describe("checkNesting, JSON and JSONC", () => {
  it("counts the brackets after a comment holding a quote", () => {
    for (const text of [`// "\n{"a": "x", "b": ${deep(300)}}`, `/* " */ {"b": ${deep(300)}}`]) {
      expect(refusal(() => checkNesting(text, "f.json"))).toMatchObject({ code: "too_deep", file: "f.json" });
    }
  });

  it("ends a string at a line break, as jsonc-parser does", () => {
    expect(refusal(() => checkNesting(`{"a": "open\n, "b": ${deep(300)}}`, "f.json"))).toMatchObject({
      code: "too_deep",
      line: 2,
    });
  });

  it("does not count brackets inside strings or comments", () => {
    const many = "[".repeat(300);
    expect(() =>
      checkNesting(`{"a": "${many}", // ${many}\n /* ${many} */ "b": ${deep(200)}}`, "f.json"),
    ).not.toThrow();
  });
});

describe("checkNesting, YAML", () => {
  const yaml = (text: string) => refusal(() => checkNesting(text, "c.yaml", "yaml"));

  it("counts the flow brackets after a comment, a block scalar or an apostrophe holding a quote", () => {
    expect(yaml(`# "\nx: ${deep(300)}\n`)).toMatchObject({ code: "too_deep", line: 2 });
    expect(yaml(`a: |\n  "oops\nb: ${deep(300)}\n`)).toMatchObject({ code: "too_deep", line: 3 });
    expect(yaml(`- |\n "oops\n- ${deep(300)}\n`)).toMatchObject({ code: "too_deep", line: 3 });
    expect(yaml(`a: it's\nb: ${deep(300)}\n`)).toMatchObject({ code: "too_deep", line: 2 });
    expect(yaml(`a: 'it''s "'\nb: ${deep(300)}\n`)).toMatchObject({ code: "too_deep", line: 2 });
  });

  it("refuses block nesting too deep for the parser: `- ` after `- `, or indentation", () => {
    expect(yaml(`x: 1\ny: ${"- ".repeat(20_000)}a\n`)).toMatchObject({ code: "too_deep", line: 2 });
    expect(yaml(`${"- ".repeat(20_000)}a\n`)).toMatchObject({ code: "too_deep", line: 1 });
    let indented = "";
    for (let i = 0; i < 3000; i++) indented += `${" ".repeat(i)}k:\n`;
    expect(yaml(indented)).toMatchObject({ code: "too_deep", line: 514 });
  });

  it("leaves what a host writes alone: quoted brackets, block scalars, comments, multi-line quotes", () => {
    const many = "[".repeat(300);
    const text = [
      `a: "${many}"`,
      `b: '${many}'`,
      `c: x ${many} # ${many}`.replace(`x ${many} `, "x "),
      `d: |`,
      `  ${many}`,
      `  "unclosed`,
      `e: "multi`,
      `  ${many} line"`,
      `f: ${deep(200)}`,
      `g:`,
      `  - - - ${deep(100)}`,
      `h: {"k": ['v', "w"]}`,
    ].join("\n");
    expect(() => checkNesting(text, "c.yaml", "yaml")).not.toThrow();
    expect(parseDocument(text).errors).toEqual([]);
  });
});

describe("parsingDeep", () => {
  it("turns a stack overflow into too_deep naming the file, and passes other errors on", () => {
    const down = (n: number): number => down(n + 1) + 1;
    expect(refusal(() => parsingDeep("h.json", () => down(0)))).toMatchObject({ code: "too_deep", file: "h.json" });
    expect(() => parsingDeep("h.json", () => JSON.parse("{"))).toThrow(SyntaxError);
    expect(parsingDeep("h.json", () => 7)).toBe(7);
  });
});
