// The message of the UsageError a call throws (fails the test when it throws anything else, or nothing).
import { expect } from "vitest";
import { UsageError } from "../../scripts/util/usage.js";

export function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error("expected a UsageError");
}
