// The pre-run memory estimate: a matrix that clearly cannot fit (one frame longer than a V8 string,
// a server heap beyond its limit, more than the machine has) is refused; a tight one warns; the
// default matrix passes on a small machine.
import { describe, expect, it } from "vitest";
import {
  availableMemory,
  checkMemory,
  frameBytes,
  MAX_STRING_BYTES,
} from "../../scripts/bench/memory/memory-estimate.js";

const GIB = 1024 ** 3;
const fixture = { projects: 1000, events: 1000 };
const limits = { heapLimitBytes: 4 * GIB, availableBytes: 16 * GIB };
const cells = (scriptBytes: number[], clients: number[]) =>
  scriptBytes.flatMap((s) =>
    clients.flatMap((c) => ["memory", "snapshot"].map((mode) => ({ scriptBytes: s, clients: c, mode }))),
  );

describe("checkMemory", () => {
  it("passes the default matrix (1 KiB and 8 KiB scripts x 1 and 4 clients) with 2 GiB available", () => {
    expect(
      checkMemory(cells([1024, 8192], [1, 4]), fixture, { heapLimitBytes: 2 * GIB, availableBytes: 2 * GIB }).verdict,
    ).toBe("ok");
  });

  it("refuses 1,000 clients of 1 MiB scripts: one frame is longer than a V8 string", () => {
    expect(frameBytes({ scriptBytes: 1048576, clients: 1, mode: "memory" }, fixture)).toBeGreaterThan(MAX_STRING_BYTES);
    const c = checkMemory(cells([1048576], [1000]), fixture, limits);
    expect(c.verdict).toBe("refuse");
    expect(c.line).toMatch(/1048576 B x 1000 clients .*more than a V8 string can hold.*--no-memory-check/);
  });

  it("refuses a cell whose server heap estimate is above the heap limit, naming both", () => {
    const c = checkMemory(cells([8192], [1000]), fixture, limits);
    expect(c.verdict).toBe("refuse");
    expect(c.line).toMatch(
      /8192 B x 1000 clients .*about \d+ GiB of server heap.*heap limit is 4\.00 GiB.*--no-memory-check/,
    );
  });

  it("without a known heap limit (foreign target) still refuses what the machine cannot hold, and warns when tight", () => {
    const foreign = { heapLimitBytes: null, availableBytes: 8 * GIB };
    expect(checkMemory(cells([8192], [1000]), fixture, foreign).line).toMatch(/8 GiB|8\.00 GiB available/);
    expect(checkMemory(cells([8192], [1000]), fixture, foreign).verdict).toBe("refuse");
    expect(checkMemory(cells([8192], [50]), fixture, foreign).verdict).toBe("warn");
  });

  it("names storm cells and the ramp that spreads them, not the memory matrix's flags", () => {
    // 800 clients of 8 KiB all at once: the bundled server died out of heap at about 5.1 GiB RSS
    const c = checkMemory([{ scriptBytes: 8192, clients: 800, mode: "all at once" }], fixture, limits, "storm");
    expect(c.verdict).toBe("refuse");
    expect(c.line).toMatch(/^storm cell 8192 B x 800 clients \(all at once\) needs about .*--storm-ramp-ms/);
    expect(c.line).not.toMatch(/--clients|--no-memory-check/);
  });

  it("has nothing to say without memory cells", () => {
    expect(checkMemory([], fixture, limits)).toEqual({ verdict: "ok", line: "", worst: null });
  });
});

describe("availableMemory", () => {
  it("reads MemAvailable", () => {
    expect(availableMemory()).toBeGreaterThan(0);
  });
});
