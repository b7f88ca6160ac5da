// The seed's window of writes in flight: at most N at once, an entity's writes one after another, a
// barrier waits for every earlier write, and a failure stops new writes and waits for those in flight.
// The writes here are promises the test settles by hand, in the order it chooses.
import { describe, expect, it } from "vitest";
import { runWindowed, type WindowItem } from "../../scripts/seed/write-window.js";

interface Item extends WindowItem {
  n: number;
}

/** A write per item that the test settles; `started` lists the items in the order their writes began. */
function controlled() {
  const started: number[] = [];
  const settle = new Map<number, { ok(): void; fail(e: Error): void }>();
  const waiters: (() => void)[] = [];
  const write = (item: Item) =>
    new Promise<void>((ok, fail) => {
      started.push(item.n);
      settle.set(item.n, { ok, fail });
      for (const w of waiters.splice(0)) w();
    });
  /** Resolves once `count` writes have begun (rejects after 2 s: a write that never begins). */
  const begun = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${started.length} of ${count} writes began`)), 2000);
      const check = () => {
        if (started.length >= count) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  /** Lets the scheduler run until it waits on a write again (only microtasks and one macrotask turn). */
  const idle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const ok = (n: number) => settle.get(n)?.ok();
  const fail = (n: number, e: Error) => settle.get(n)?.fail(e);
  return { started, write, begun, idle, ok, fail };
}

const items = (keys: string[], barrierAt: number[] = []): Item[] =>
  keys.map((key, n) => ({ n, key, barrier: barrierAt.includes(n) }));

describe("runWindowed", () => {
  it("keeps at most `window` writes in flight, starting the next as one ends", async () => {
    const c = controlled();
    const done = runWindowed(items(["a", "b", "c", "d", "e", "f"]), 3, c.write);
    await c.begun(3);
    await c.idle();
    expect(c.started).toEqual([0, 1, 2]);
    c.ok(1);
    await c.begun(4);
    await c.idle();
    expect(c.started).toEqual([0, 1, 2, 3]);
    for (const n of [0, 2, 3]) c.ok(n);
    await c.begun(6);
    c.ok(4);
    c.ok(5);
    await done;
  });

  it("writes one at a time with a window of 1", async () => {
    const c = controlled();
    const done = runWindowed(items(["a", "b", "c"]), 1, c.write);
    for (const n of [0, 1, 2]) {
      await c.begun(n + 1);
      await c.idle();
      expect(c.started).toHaveLength(n + 1);
      c.ok(n);
    }
    await done;
  });

  it("begins an entity's write only once its previous write ended, while other entities go on", async () => {
    const c = controlled();
    const done = runWindowed(items(["a", "a", "b", "c"]), 8, c.write);
    await c.begun(3);
    await c.idle();
    expect(c.started).toEqual([0, 2, 3]);
    c.ok(2);
    c.ok(3);
    await c.idle();
    expect(c.started).toEqual([0, 2, 3]);
    c.ok(0);
    await c.begun(4);
    expect(c.started).toEqual([0, 2, 3, 1]);
    c.ok(1);
    await done;
  });

  it("a barrier waits for every earlier write; later writes wait for it", async () => {
    const c = controlled();
    const done = runWindowed(items(["a", "b", "c", "d"], [2]), 8, c.write);
    await c.begun(2);
    c.ok(1);
    await c.idle();
    expect(c.started).toEqual([0, 1]);
    c.ok(0);
    await c.begun(4);
    expect(c.started).toEqual([0, 1, 2, 3]);
    c.ok(2);
    c.ok(3);
    await done;
  });

  it("after a failure begins no more writes, waits for those in flight, then rejects with the first failure", async () => {
    const c = controlled();
    let settled = false;
    const done = runWindowed(items(["a", "b", "c", "d", "e"]), 3, c.write).finally(() => {
      settled = true;
    });
    done.catch(() => undefined);
    await c.begun(3);
    c.fail(1, new Error("write 1 refused"));
    await c.idle();
    expect(c.started).toEqual([0, 1, 2]);
    expect(settled).toBe(false);
    c.fail(2, new Error("write 2 refused too"));
    c.ok(0);
    await expect(done).rejects.toThrow("write 1 refused");
    expect(c.started).toEqual([0, 1, 2]);
  });
});
