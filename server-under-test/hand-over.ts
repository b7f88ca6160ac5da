// Catch-up chunks handed to the RPC server one at a time: each element of `pending` becomes one
// Chunk frame, and the RPC server pulls the next only after the client ACKed the previous one.
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";

/**
 * Emits each pending chunk once, removing it from the list as it goes, so a delivered catch-up is
 * garbage once written. Then one empty chunk: Effect's channel executor keeps a reference to the
 * last element it emitted until the next one, which would pin the final catch-up chunk for as long
 * as no live event comes. The RPC server writes no frame for an empty chunk.
 */
export function handOverChunks<A>(pending: A[][]): Stream.Stream<A> {
  let flushed = false;
  return Stream.repeatEffectChunkOption(
    Effect.suspend(() => {
      const next = pending.shift();
      if (next !== undefined) return Effect.succeed(Chunk.unsafeFromArray(next));
      if (flushed) return Effect.fail(Option.none());
      flushed = true;
      return Effect.succeed(Chunk.empty<A>());
    }),
  );
}
