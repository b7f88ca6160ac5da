// --gc-flags (opt-in, never default): node flags for the bundled variants only, each a --flag; a bad
// word or a foreign target is a usage error naming the flag; the variants' command shows them.
import { describe, expect, it } from "vitest";
import { variantInfos } from "../../scripts/bench/run/run-context.js";
import { resolveConfig } from "../../scripts/options/resolve-config.js";
import { UsageError } from "../../scripts/util/usage.js";

describe("--gc-flags", () => {
  it("is off by default", () => {
    for (const t of resolveConfig({}).targets.targets) expect(t.kind === "bundled" && t.nodeArgs).toBeFalsy();
  });
  it("gives every bundled variant the flags, shown in its command", () => {
    const c = resolveConfig({ "gc-flags": "--predictable-gc-schedule,--max-semi-space-size=16" });
    for (const t of c.targets.targets) {
      expect(t.kind === "bundled" && t.nodeArgs).toEqual(["--predictable-gc-schedule", "--max-semi-space-size=16"]);
    }
    expect(variantInfos(c.targets.targets)[0]?.command).toMatch(
      /^node --predictable-gc-schedule --max-semi-space-size=16 --inspect=127\.0\.0\.1:0 /,
    );
  });
  it("refuses a word that is not a --flag, and foreign targets", () => {
    expect(() => resolveConfig({ "gc-flags": "--expose-gc;rm" })).toThrow(UsageError);
    expect(() => resolveConfig({ "gc-flags": "predictable" })).toThrow(/--gc-flags takes node flags/);
    expect(() => resolveConfig({ "gc-flags": "--predictable-gc-schedule", target: ["a=node a.js"] })).toThrow(
      /--gc-flags applies to the bundled variants only/,
    );
  });
});
