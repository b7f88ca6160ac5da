// The seed's window of writes in flight (--seed-window): a server answers a window of writes in
// about the time it answers one round trip, so the seed keeps up to N writes waiting on it instead
// of one. Order is kept where the fixture needs it: an entity's writes one after another (its create
// before its updates), and a barrier (the resume cursor) waits for every earlier write, so every
// write after it is answered after every write before it.

/** One write's place in the order: its entity, and whether every earlier write must end first. */
export interface WindowItem {
  key: string;
  barrier: boolean;
}

/**
 * Runs `write` over `items` in their order, at most `window` at once. An item waits for its key's
 * previous write; a barrier item waits for every earlier one. After the first failure no write
 * begins; the writes in flight are awaited (each has its own deadline), then the first failure is thrown.
 */
export async function runWindowed<T extends WindowItem>(
  items: Iterable<T>,
  window: number,
  write: (item: T) => Promise<void>,
): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  const lastOfKey = new Map<string, Promise<void>>();
  let failure: { error: unknown } | null = null;
  for (const item of items) {
    if (item.barrier) await Promise.all(inFlight);
    while (failure === null && inFlight.size >= window) await Promise.race(inFlight);
    if (failure !== null) break;
    const before = lastOfKey.get(item.key);
    const task: Promise<void> = (before ?? Promise.resolve())
      .then(() => (failure === null ? write(item) : undefined))
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => {
        inFlight.delete(task);
        if (lastOfKey.get(item.key) === task) lastOfKey.delete(item.key);
      });
    inFlight.add(task);
    lastOfKey.set(item.key, task);
  }
  await Promise.all(inFlight);
  if (failure !== null) throw (failure as { error: unknown }).error;
}
