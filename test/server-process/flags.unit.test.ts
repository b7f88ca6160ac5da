// The bench flags of target readiness and stopping: --ready-line and --stop-grace-ms.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { UsageError } from "../../scripts/util/usage.js";

const foreign = { target: ["a=node a.js --port {port}"] };

describe("--ready-line and --stop-grace-ms", () => {
  it("default to waiting for the port and a 5 s grace", () => {
    const c = resolveConfig(foreign);
    expect([c.targets.readyLine, c.targets.stopGraceMs]).toEqual([null, 5000]);
  });

  it("take a regex for foreign targets and a grace in ms", () => {
    const c = resolveConfig({ ...foreign, "ready-line": "listening on (?<port>\\d+)", "stop-grace-ms": "250" });
    expect([c.targets.readyLine, c.targets.stopGraceMs]).toEqual(["listening on (?<port>\\d+)", 250]);
  });

  it("refuse a pattern that is not a regex, one for the bundled server, and a grace out of range", () => {
    expect(() => resolveConfig({ ...foreign, "ready-line": "listening (" })).toThrow(
      /^--ready-line must be a regular expression \(/,
    );
    expect(() => resolveConfig({ "ready-line": "x" })).toThrow(UsageError);
    expect(() => resolveConfig({ "ready-line": "x" })).toThrow(/--ready-line applies to --target commands only/);
    expect(() => resolveConfig({ ...foreign, "stop-grace-ms": "-1" })).toThrow(/--stop-grace-ms/);
    expect(() => resolveConfig({ ...foreign, "stop-grace-ms": "600001" })).toThrow(/--stop-grace-ms/);
  });
});
