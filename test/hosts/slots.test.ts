// The host-program slots (test/hosts/slots.mjs): at most N runs at once across
// processes; a run's wait is not its time; a dead owner's slot is taken over.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const SLOTS = join(import.meta.dirname, "slots.mjs");
type Slots = {
  withSlot<T>(fn: (waitedMs: number) => Promise<T>): Promise<T>;
  takeSlot(): Promise<{ release(): void; waitedMs: number }>;
};
const { withSlot, takeSlot } = (await import(pathToFileURL(SLOTS).href)) as Slots;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("host-program slots", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "hcpx-slots-"));
    process.env.HCPX_HOST_SLOTS_DIR = dir;
    process.env.HCPX_HOST_SLOTS = "2";
  });
  afterEach(() => {
    delete process.env.HCPX_HOST_SLOTS_DIR;
    delete process.env.HCPX_HOST_SLOTS;
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "never more than N at once; the ones that waited say how long; every slot is given back",
    { timeout: 20_000 },
    async () => {
      let now = 0,
        most = 0;
      const waits = await Promise.all(
        Array.from({ length: 6 }, () =>
          withSlot(async (waited) => {
            most = Math.max(most, ++now);
            await sleep(80);
            now--;
            return waited;
          }),
        ),
      );
      expect(most).toBe(2);
      expect(waits.filter((w) => w >= 60).length).toBeGreaterThanOrEqual(4);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it("slots held by another process are waited for, across processes", { timeout: 20_000 }, async () => {
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `
      const { takeSlot } = await import(${JSON.stringify(pathToFileURL(SLOTS).href)});
      const a = await takeSlot(), b = await takeSlot();
      process.stdout.write("held\\n");
      setTimeout(() => { a.release(); b.release(); }, 400);
    `,
      ],
      { env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const closed = new Promise<number | null>((r) => child.once("close", r));
    await new Promise<void>((r) => child.stdout.once("data", () => r()));
    const t0 = Date.now();
    const s = await takeSlot();
    s.release();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(s.waitedMs).toBeGreaterThanOrEqual(250);
    expect(await closed, err).toBe(0);
  });

  it(
    "a slot whose owner is gone is taken over at once; one being written (empty, new) is not",
    { timeout: 20_000 },
    async () => {
      const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
        encoding: "utf8",
      }).stdout;
      writeFileSync(join(dir, "slot-0"), `${dead}\n`);
      writeFileSync(join(dir, "slot-1"), "");
      const t0 = Date.now();
      const s = await takeSlot();
      expect(Date.now() - t0).toBeLessThan(1000);
      const other = takeSlot().then((x) => (x.release(), "taken"));
      expect(await Promise.race([other, sleep(400).then(() => "waiting")])).toBe("waiting");
      s.release();
      expect(await other).toBe("taken");
    },
  );
});
