// Host files in odd shapes, the full matrix: 11 host files x 14 shapes
// (`npm run test:hostile:slow`). What a case checks: shapes-cases.ts.
import { describe, it } from "vitest";
import { HOST_FILES, runShape, SHAPES } from "./shapes-cases";

describe("host files in odd shapes (full matrix)", () => {
  for (const file of HOST_FILES) {
    it(`${file.path}: all ${SHAPES.length} shapes`, async () => {
      for (let i = 0; i < SHAPES.length; i += 3)
        await Promise.all(SHAPES.slice(i, i + 3).map((shape) => runShape({ file, shape })));
    }, 600_000);
  }
});
