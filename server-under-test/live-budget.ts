// A live tail with a retention budget: events are drained from the subscription as they are
// published (so an unbounded PubSub queue never holds them) and kept until the client has ACKed
// the chunk that carried them. The RPC server pulls the next chunk only after the ACK of the
// previous one, so a pull releases the previous batch. A tail that would retain more than
// `maxItems` items or `maxBytes` serialized bytes fails the stream instead: the client resumes from
// the last sequence it received, and the server's memory stays bounded by the budget.
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Queue from "effect/Queue";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import { LiveBufferError } from "./rpcs.js";

export interface LiveLimits {
  maxItems: number;
  maxBytes: number;
}

/** The reference server's live budget: 1,000 items and 8 MiB serialized per subscription. */
export const LIVE_LIMITS: LiveLimits = { maxItems: 1000, maxBytes: 8 * 1024 * 1024 };

export const LIVE_BUFFER_FULL = "The live event buffer is full. Resume from the last received sequence.";

/** What a bounded tail holds now (for diagnostics and tests). */
export interface LiveUsage {
  items: number;
  bytes: number;
}

/** Told of every change in retained items and of each overflow (server-wide counters). */
export interface LiveMeter {
  retained(deltaItems: number): void;
  overflowed(): void;
}

const NO_METER: LiveMeter = { retained: () => {}, overflowed: () => {} };

/** Server-wide live tail counters of one subscription kind (server.getConfig reports them). */
export interface LiveCounters {
  /** Live items retained now, over all subscriptions of the kind (queued, or sent and not yet ACKed). */
  liveRetainedItems: number;
  /** Subscriptions ended by their live budget. */
  liveOverflows: number;
}

export function liveCounters(): LiveCounters {
  return { liveRetainedItems: 0, liveOverflows: 0 };
}

/** A meter that keeps counters up to date. */
export function meterOf(counters: LiveCounters): LiveMeter {
  return {
    retained: (delta) => {
      counters.liveRetainedItems += delta;
    },
    overflowed: () => {
      counters.liveOverflows += 1;
    },
  };
}

/**
 * Starts draining `source` now (in the caller's scope) and returns the tail as a stream: every
 * event for which `keep` holds, projected, in order, each pull taking all that is waiting.
 */
export function boundedLive<E, A>(
  source: Queue.Dequeue<E>,
  keep: (e: E) => boolean,
  project: (e: E) => A,
  limits: LiveLimits,
  meter: LiveMeter = NO_METER,
): Effect.Effect<{ stream: Stream.Stream<A, LiveBufferError>; usage: () => LiveUsage }, never, Scope.Scope> {
  return Effect.gen(function* () {
    let pending: { value: A; bytes: number }[] = [];
    let inFlight: { bytes: number }[] = [];
    let items = 0;
    let bytes = 0;
    let failure: LiveBufferError | undefined;
    const wake = yield* Queue.sliding<void>(1);
    const accept = (e: E) =>
      Effect.suspend(() => {
        if (failure !== undefined || !keep(e)) return Effect.void;
        const value = project(e);
        const size = Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
        if (items + 1 > limits.maxItems || bytes + size > limits.maxBytes) {
          failure = new LiveBufferError({
            message: LIVE_BUFFER_FULL,
            maxItems: limits.maxItems,
            maxBytes: limits.maxBytes,
          });
          meter.retained(-items);
          meter.overflowed();
          pending = [];
          inFlight = [];
          items = 0;
          bytes = 0;
        } else {
          pending.push({ value, bytes: size });
          items += 1;
          bytes += size;
          meter.retained(1);
        }
        return Queue.offer(wake, undefined);
      });
    yield* Queue.take(source).pipe(Effect.flatMap(accept), Effect.forever, Effect.forkScoped);
    // the subscription ends (client gone, Interrupt): what it still held is released
    yield* Effect.addFinalizer(() => Effect.sync(() => meter.retained(-items)));
    const pull: Effect.Effect<Chunk.Chunk<A>, Option.Option<LiveBufferError>> = Effect.suspend(() => {
      // this pull comes after the ACK of the chunk that carried the previous batch
      for (const b of inFlight) {
        items -= 1;
        bytes -= b.bytes;
      }
      meter.retained(-inFlight.length);
      inFlight = [];
      if (failure !== undefined) return Effect.fail(Option.some(failure));
      if (pending.length === 0) return Effect.flatMap(Queue.take(wake), () => pull);
      const batch = pending;
      pending = [];
      inFlight = batch;
      return Effect.succeed(Chunk.unsafeFromArray(batch.map((b) => b.value)));
    });
    return { stream: Stream.repeatEffectChunkOption(pull), usage: () => ({ items, bytes }) };
  });
}
