// The limit check refuses a storm that the descriptor limits or the listen backlog cannot hold, with
// one line naming the limit and how to raise it.
import { describe, expect, it } from "vitest";
import { checkStormLimits, FD_HEADROOM, parseNofile, type StormLimits } from "../../scripts/storm/limits.js";

const roomy: StormLimits = {
  harnessNofile: 65536,
  harnessOpenFds: 20,
  serverNofile: 65536,
  serverOpenFds: 30,
  somaxconn: 4096,
};

describe("checkStormLimits", () => {
  it("accepts a storm within every limit", () => {
    expect(checkStormLimits(1000, 0, roomy)).toBeNull();
  });

  it("refuses a storm above the harness's descriptor limit, naming ulimit -n", () => {
    const l = { ...roomy, harnessNofile: 256 };
    expect(checkStormLimits(256 - 20 - FD_HEADROOM, 0, l)).toBeNull();
    const line = checkStormLimits(256 - 20 - FD_HEADROOM + 1, 0, l);
    expect(line).toMatch(/harness .*limit \(ulimit -n\) is 256/);
    expect(line).toMatch(/ulimit -n 256\b|ulimit -n 512/);
    expect(line).not.toContain("\n");
  });

  it("refuses a storm above the server's descriptor limit", () => {
    const line = checkStormLimits(1000, 0, { ...roomy, serverNofile: 1024 });
    expect(line).toMatch(/in the server .*is 1024/);
  });

  it("refuses an unramped storm beyond the listen backlog ceiling, but not a ramped one", () => {
    const l = { ...roomy, somaxconn: 128 };
    expect(checkStormLimits(500, 0, l)).toMatch(/somaxconn=128.*--storm-ramp-ms/);
    expect(checkStormLimits(500, 1000, l)).toBeNull();
  });

  it("passes when a limit is unknown or unlimited", () => {
    const l = { ...roomy, harnessNofile: null, serverNofile: Number.POSITIVE_INFINITY, somaxconn: null };
    expect(checkStormLimits(100_000, 0, l)).toBeNull();
  });
});

describe("parseNofile", () => {
  it("reads the soft limit of /proc/PID/limits", () => {
    const text = [
      "Limit                     Soft Limit           Hard Limit           Units     ",
      "Max open files            1024                 1048576              files     ",
    ].join("\n");
    expect(parseNofile(text)).toBe(1024);
    expect(parseNofile("Max open files            unlimited            unlimited            files")).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(parseNofile("nothing here")).toBeNull();
  });
});
