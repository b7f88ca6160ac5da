// Parsing /proc/PID/statm: the resident field (the second), in pages, times the page size.
import { describe, expect, it } from "vitest";
import { statmResidentBytes } from "../../scripts/sampler/procfs.js";

describe("statmResidentBytes", () => {
  it("takes the second field as resident pages", () => {
    expect(statmResidentBytes("182059 10130 8548 6802 0 12184 0\n", 4096)).toBe(10130 * 4096);
    expect(statmResidentBytes("182059 10130 8548 6802 0 12184 0\n", 65536)).toBe(10130 * 65536);
  });
  it("is null for text that is not a statm line", () => {
    expect(statmResidentBytes("", 4096)).toBeNull();
    expect(statmResidentBytes("garbage", 4096)).toBeNull();
  });
});
