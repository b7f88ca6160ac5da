// How a finished bench maps to an exit code: signals first, then a run that could not produce its
// result (a crashed target, an early stop), then the guard's own code.
import { describe, expect, it } from "vitest";
import { benchExitCode } from "../../scripts/commands/bench.js";
import { EXIT } from "../../scripts/util/exit-codes.js";

const done = { stopReason: null, interrupted: false, crashes: 0, guard: null };

describe("benchExitCode", () => {
  it("maps each outcome to its code", () => {
    expect(benchExitCode(done)).toBe(EXIT.ok);
    expect(benchExitCode({ ...done, guard: { pass: true, exitCode: EXIT.ok } })).toBe(EXIT.ok);
    expect(benchExitCode({ ...done, guard: { pass: false, exitCode: EXIT.regression } })).toBe(EXIT.regression);
    expect(benchExitCode({ ...done, guard: { pass: false, exitCode: EXIT.noResult } })).toBe(EXIT.noResult);
    expect(benchExitCode({ ...done, crashes: 1, guard: { pass: true, exitCode: EXIT.ok } })).toBe(EXIT.noResult);
    expect(benchExitCode({ ...done, interrupted: true, stopReason: "--fail-fast: x" })).toBe(EXIT.noResult);
    expect(benchExitCode({ ...done, interrupted: true, stopReason: "SIGINT" })).toBe(EXIT.sigint);
    expect(benchExitCode({ ...done, interrupted: true, stopReason: "SIGTERM", crashes: 2 })).toBe(EXIT.sigterm);
  });

  it("uses the documented numbers", () => {
    expect(EXIT).toEqual({ ok: 0, regression: 1, usage: 2, noResult: 3, sigint: 130, sigterm: 143 });
  });
});
