// The limit check refuses a storm that the descriptor limits or the listen backlog cannot hold, with
// one line naming the limit and how to raise it.
import { describe, expect, it } from "vitest";
import {
  checkStormLimits,
  FD_HEADROOM,
  parseNofile,
  parseSsBacklog,
  type StormLimits,
} from "../../scripts/storm/limits.js";

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

  it("refuses an unramped storm beyond the server's own listen backlog (capped by somaxconn)", () => {
    const l = { ...roomy, serverBacklog: 511 };
    expect(checkStormLimits(511, 0, l)).toBeNull();
    expect(checkStormLimits(512, 0, l)).toMatch(/server's listen backlog of 511/);
    expect(checkStormLimits(512, 2000, l)).toBeNull();
    expect(checkStormLimits(200, 0, { ...l, serverBacklog: 65535, somaxconn: 128 })).toMatch(/backlog of 128/);
  });

  it("passes when a limit is unknown or unlimited", () => {
    const l = { ...roomy, harnessNofile: null, serverNofile: Number.POSITIVE_INFINITY, somaxconn: null };
    expect(checkStormLimits(100_000, 0, l)).toBeNull();
  });
});

describe("parseSsBacklog", () => {
  it("reads the Send-Q of the socket listening on the port", () => {
    const text = "LISTEN 369    511    127.0.0.1:45617 0.0.0.0:*\nLISTEN 0      128      0.0.0.0:2024  0.0.0.0:*\n";
    expect(parseSsBacklog(text, 45617)).toBe(511);
    expect(parseSsBacklog(text, 2024)).toBe(128);
    expect(parseSsBacklog(text, 4561)).toBeNull();
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
