// A switch's `=VALUE` is true or false, nothing else: yargs would read `--quick=maybe` as false.
import { describe, expect, it } from "vitest";
import { checkSwitchValues } from "../../scripts/options/switches.js";
import { UsageError } from "../../scripts/util/usage.js";

describe("checkSwitchValues", () => {
  it.each(["--quick=maybe", "--quick=yes", "--quick=1", "--quick=True", "--quick=", "--no-aa=0", "--aa=nope"])(
    "refuses %s naming the switch and true/false",
    (arg) => {
      const name = arg.replace(/^--(no-)?/, "").split("=")[0];
      expect(() => checkSwitchValues(["bench", arg])).toThrow(UsageError);
      expect(() => checkSwitchValues(["bench", arg])).toThrow(
        new RegExp(`--${name} is a switch; its value is true or false`),
      );
    },
  );

  it("accepts the forms yargs reads as intended, and leaves other flags and the rest after -- alone", () => {
    expect(() =>
      checkSwitchValues(["bench", "--quick", "--no-aa", "--quick=true", "--aa=false", "--trials=3", "--", "--quick=x"]),
    ).not.toThrow();
  });

  it("shows a newline in the value escaped, so the error stays one line", () => {
    expect(() => checkSwitchValues(["--quick=a\nb"])).toThrow(/--quick=a\\nb:/);
  });
});
