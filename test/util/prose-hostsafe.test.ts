// Text drafted from what a server or a document says (`pack from-mcp`, `pack from-openapi`: oneLine) is text a
// pack may hold: src/pack/hosttext.ts finds nothing in it, so the drafted pack loads.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { oneLine } from "../../src/util/prose";
import { unsafeHostText } from "../../src/pack/hosttext";

const unit = fc.oneof(
  fc.constantFrom(
    "\u001b",
    "\u0000",
    "\u202e",
    "\u200b",
    "\u200f",
    "\u061c",
    "\u2060",
    "\ufeff",
    "\u{E0041}",
    "\u2028",
    "\r",
    "\n",
    " ",
    "@",
    "~",
    "/",
    ".",
    "<!-- hcp:end -->",
    "<!--",
  ),
  fc.constantFrom(..."ab <>-:"),
);

describe("oneLine drafts host-safe text", () => {
  it("property: nothing in oneLine's result is refused in host text, an import directive included", () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), fc.integer({ min: 2, max: 40 }), (parts, max) => {
        const t = oneLine(parts.join(""), max);
        if (t !== undefined) expect(unsafeHostText(t, { imports: true }), JSON.stringify(t)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps ordinary text, an e-mail address and an @ before a space as they were", () => {
    expect(oneLine("Mail help@example.com or @ the desk.\nThen wait.")).toBe(
      "Mail help@example.com or @ the desk. Then wait.",
    );
    expect(oneLine("Install @scope/pkg\u200b now")).toBe("Install @ scope/pkg now");
  });
});
