// test/support/host-leftovers.ts: the agent-loop suite removes the folder Codex makes in the machine's
// /tmp whatever TMPDIR says, only when the run made it, it is empty and this user's; anything that was
// there before, or holds a file, or is not a folder, stays as it was.
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostTmpLeftovers, removeWhatTheRunMade } from "./host-leftovers";
import { tmp } from "./project";

describe("host programs' leftovers in /tmp", () => {
  it("names Codex's daemon folder for this user", () => {
    expect(hostTmpLeftovers()).toEqual([`/tmp/codex-daemon-${process.getuid!()}`]);
  });

  it("removes what the run made, empty; keeps what was there, what holds a file and what is no folder", () => {
    const base = tmp("hcpx-leftovers-");
    const at = (n: string) => join(base, n);
    mkdirSync(at("before"));
    const teardown = removeWhatTheRunMade(["made", "before", "full", "link", "file", "never"].map(at));
    // the run: a host program makes these
    mkdirSync(at("made"));
    mkdirSync(at("full"));
    writeFileSync(join(at("full"), "socket"), "");
    mkdirSync(at("elsewhere"));
    symlinkSync(at("elsewhere"), at("link"));
    writeFileSync(at("file"), "");
    expect(teardown()).toEqual([at("made")]);
    expect(readdirSync(base).sort()).toEqual(["before", "elsewhere", "file", "full", "link"]);
    expect(readdirSync(at("full"))).toEqual(["socket"]);
  });
});
