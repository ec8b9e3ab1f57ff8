// Terminal control sequences from a bin are neutralised in `hcpx exec`'s readable
// output (issue 9 §7): nothing a bin prints can set the title, write the clipboard,
// clear the screen, move the cursor or reorder text on the user's terminal. With
// --json the envelope carries the exact value, JSON-escaped.
import { beforeAll, describe, expect, it } from "vitest";
import { runHcpx } from "../support/hcpx";
import { fxPack, project } from "./support";

const NASTY =
  "safe\x1b]0;pwned-title\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[H\u009b31mred\b\b\bXYZ\roverwrite\x7f\u202eevil\r\nend";
// every character a terminal acts on (tab and newline are text; CR only before LF)
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

let dir: string;
beforeAll(() => {
  const cmd = (v: string) => ({ verb_key: v, summary: v, cli: ["ctl", v], args: {} });
  dir = project({
    packs: [
      fxPack("ctltext", "ctl.mjs", [cmd("text"), cmd("fail")], { wrap: { output: "text" } }),
      fxPack("ctljson", "ctl.mjs", [cmd("json")]),
    ],
  }).dir;
});
const exec = (args: string[]) => runHcpx(["exec", ...args], { cwd: dir });

describe("hcpx exec: a bin's control sequences never reach the terminal", () => {
  it("text output: ESC, OSC, CSI, C1, BEL, backspace, lone CR, DEL and bidi are shown as escapes", async () => {
    const r = await exec(["ctltext", "text"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain("safe\\x1b]0;pwned-title\\x07");
    expect(r.stdout).toContain("\\x9b31mred\\x08\\x08\\x08XYZ\\x0doverwrite\\x7f\\u202eevil\r\nend\n");
  });

  it("JSON data printed readably: C1, DEL and bidi escaped too (JSON.stringify leaves them raw)", async () => {
    const r = await exec(["ctljson", "json"]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(JSON.parse(r.stdout.replace(/\\x([0-9a-f]{2})/g, "\\u00$1"))).toEqual({ msg: NASTY });
  });

  it("an error's stderr tail on stderr: neutralised", async () => {
    const r = await exec(["ctltext", "fail"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error \[exit_nonzero\]/);
    expect(r.stderr).toContain("pwned-title");
    expect(r.stderr).not.toMatch(CONTROL);
  });

  it("--json: one envelope with the exact value; no raw control character on the line", async () => {
    for (const [p, v] of [
      ["ctltext", "text"],
      ["ctljson", "json"],
    ] as const) {
      const r = await exec([p, v, "--json"]);
      expect(r.stdout).not.toMatch(CONTROL);
      const env = JSON.parse(r.stdout) as { ok: boolean; data: { text?: string; msg?: string } };
      expect(env.ok).toBe(true);
      expect(env.data.text ?? env.data.msg).toBe(v === "text" ? NASTY + "\n" : NASTY);
    }
  });
});
