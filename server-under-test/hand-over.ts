// A catch-up handed to the RPC server one chunk at a time, for the shell and thread subscriptions
// alike: each element of `pending` becomes one Chunk frame (or, for a piece opened lazily, one frame
// per chunk of its stream), and the RPC server pulls the next only after the client ACKed the
// previous one.
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as ExecutionStrategy from "effect/ExecutionStrategy";
import * as Exit from "effect/Exit";
import * as Option from "effect/Option";
import * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";

/**
 * Emits each pending piece once, removing it from the list as it goes, so a delivered catch-up is
 * garbage once written, even while the subscription (and this stream) stays open. A piece that is
 * not an array is opened with `open` when reached and pulled chunk by chunk before the next piece;
 * its stream runs in a scope of its own, closed when it ends, so nothing of it (its last chunk
 * included) outlives it.
 * Then one empty chunk: Effect's channel executor keeps a reference to the last element it emitted
 * until the next one, which would pin the final catch-up chunk for as long as no live event comes.
 * The RPC server writes no frame for an empty chunk.
 */
export function handOverChunks<A>(pending: A[][]): Stream.Stream<A>;
export function handOverChunks<A, L>(pending: (A[] | L)[], open: (lazy: L) => Stream.Stream<A>): Stream.Stream<A>;
export function handOverChunks<A, L>(pending: (A[] | L)[], open?: (lazy: L) => Stream.Stream<A>): Stream.Stream<A> {
  return Stream.unwrapScoped(
    Effect.gen(function* () {
      const scope = yield* Effect.scope;
      let opened:
        | { pull: Effect.Effect<Chunk.Chunk<A>, Option.Option<never>>; scope: Scope.CloseableScope }
        | undefined;
      let flushed = false;
      const step: Effect.Effect<Chunk.Chunk<A>, Option.Option<never>> = Effect.suspend(() => {
        if (opened !== undefined) {
          const current = opened;
          // when the opened piece ends, go on with the next pending piece
          return Effect.catchAll(current.pull, () => {
            opened = undefined;
            return Scope.close(current.scope, Exit.void).pipe(Effect.zipRight(step));
          });
        }
        if (pending.length === 0) {
          if (flushed) return Effect.fail(Option.none());
          flushed = true;
          return Effect.succeed(Chunk.empty<A>());
        }
        const next = pending.shift() as A[] | L;
        if (Array.isArray(next)) return Effect.succeed(Chunk.unsafeFromArray(next as A[]));
        if (open === undefined) throw new Error("handOverChunks: a lazy piece needs `open`");
        const stream = open(next as L);
        return Effect.gen(function* () {
          const pieceScope = yield* Scope.fork(scope, ExecutionStrategy.sequential);
          const pull = yield* Stream.toPull(stream).pipe(Scope.extend(pieceScope));
          opened = { pull, scope: pieceScope };
          return yield* step;
        });
      });
      return Stream.repeatEffectChunkOption(step);
    }),
  );
}
