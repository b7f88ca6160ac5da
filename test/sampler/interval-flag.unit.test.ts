// --sample-interval-ms sets the RSS lane's interval: 1 to 1,000 ms; anything else is a usage error
// naming the flag.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { defaultHeapIntervalMs } from "../../scripts/sampler/lane-defaults.js";
import { UsageError } from "../../scripts/util/usage.js";

describe("--sample-interval-ms", () => {
  it("accepts 1 and 1000", () => {
    expect(resolveConfig({ "sample-interval-ms": "1" }).memory.sampleIntervalMs).toBe(1);
    expect(resolveConfig({ "sample-interval-ms": "1000" }).memory.sampleIntervalMs).toBe(1000);
  });
});

// --heap-interval-ms sets the heap lane's interval apart from the RSS lane's: 10 to 1,000 ms; absent,
// the sampler's default applies: the RSS lane's interval, or 100 ms beside an RSS lane under 10 ms.
describe("--heap-interval-ms", () => {
  it("accepts 10 and 1000 and is null when absent", () => {
    expect(resolveConfig({ "heap-interval-ms": "10" }).memory.heapIntervalMs).toBe(10);
    expect(resolveConfig({ "heap-interval-ms": "1000", "sample-interval-ms": "1" }).memory.heapIntervalMs).toBe(1000);
    expect(resolveConfig({ "sample-interval-ms": "1" }).memory.heapIntervalMs).toBeNull();
  });
});

describe.each([
  ["sample-interval-ms", ["0", "1001"]],
  ["heap-interval-ms", ["9", "1001"]],
])("--%s out of range", (flag, bad) => {
  it(`refuses ${bad.join(" and ")}, naming the flag`, () => {
    for (const v of bad) {
      expect(() => resolveConfig({ [flag]: v })).toThrow(UsageError);
      expect(() => resolveConfig({ [flag]: v })).toThrow(new RegExp(`--${flag}`));
    }
  });
});

describe("the heap lane's default cadence", () => {
  it("follows the RSS lane from 10 ms up", () => {
    for (const ms of [10, 11, 250, 1000]) expect(defaultHeapIntervalMs(ms)).toBe(ms);
  });
  it("is 100 ms beside an RSS lane under 10 ms, where a heap request costs about 0.5% of a core", () => {
    for (const ms of [1, 2, 9]) expect(defaultHeapIntervalMs(ms)).toBe(100);
  });
});
