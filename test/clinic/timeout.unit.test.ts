// scripts/timeout.ts (the one "promise with a deadline" helper; the clinic runner, the sampler
// benchmark and the sampler tests use it): passes results and rejections through, and names what
// timed out.
import { describe, expect, it } from "vitest";
import { TimeoutError, withTimeout } from "../../scripts/util/timeout.js";

describe("withTimeout", () => {
  it("resolves with the promise's value", async () => {
    await expect(withTimeout(Promise.resolve(42), 1_000, "the answer")).resolves.toBe(42);
  });

  it("passes the promise's own rejection through", async () => {
    await expect(withTimeout(Promise.reject(new Error("boom")), 1_000, "the answer")).rejects.toThrow("boom");
  });

  it("rejects with a TimeoutError naming what was awaited and the limit", async () => {
    const never = new Promise<never>(() => undefined);
    const e = await withTimeout(never, 20, "the server's ready line").catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as TimeoutError).message).toBe("the server's ready line: timed out after 20 ms");
    expect((e as TimeoutError).what).toBe("the server's ready line");
    expect((e as TimeoutError).ms).toBe(20);
  });
});
