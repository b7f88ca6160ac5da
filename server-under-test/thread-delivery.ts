// How a thread's catch-up is cut into chunks, by the same two strategies as the shell's
// (delivery.ts): legacy sends the catch-up, then the completion marker in a chunk of its own;
// batched puts the marker in the first chunk, so the client is synchronized after one round trip.
// A thread catch-up is one snapshot item or at most 129 replayed events, so it never needs more
// than one chunk of its own (the legacy replay groups hold 512 items).
import type { DeliveryStrategy } from "./delivery.js";

/** The chunks of a thread catch-up, in delivery order; `marker` null when the client did not ask for one. */
export function planThreadChunks<I>(items: readonly I[], marker: I | null, strategy: DeliveryStrategy): I[][] {
  if (strategy === "batched" && marker !== null) return [[...items, marker]];
  // legacy, and batched for clients that did not ask for the marker (old clients keep the old path)
  const chunks: I[][] = items.length > 0 ? [[...items]] : [];
  if (marker !== null) chunks.push([marker]);
  return chunks;
}
