// --sample-interval-ms sets the RSS lane's interval: 1 to 1,000 ms; anything else is a usage error
// naming the flag.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../scripts/bench/config.js";
import { UsageError } from "../../scripts/usage.js";

describe("--sample-interval-ms", () => {
  it("accepts 1 and 1000", () => {
    expect(resolveConfig({ "sample-interval-ms": "1" }).sampleIntervalMs).toBe(1);
    expect(resolveConfig({ "sample-interval-ms": "1000" }).sampleIntervalMs).toBe(1000);
  });
  it("refuses 0 and 1001, naming the flag", () => {
    for (const v of ["0", "1001"]) {
      expect(() => resolveConfig({ "sample-interval-ms": v })).toThrow(UsageError);
      expect(() => resolveConfig({ "sample-interval-ms": v })).toThrow(/--sample-interval-ms/);
    }
  });
});
