// The ACK-gated hand-over both subscriptions share: one pull per chunk frame, a lazy piece opened
// only when reached and released before the next piece, each piece dropped from the list once
// emitted, then one empty chunk.
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";
import { describe, expect, it } from "vitest";
import { handOverChunks } from "../../server-under-test/hand-over.js";

/** Pulls the stream chunk by chunk, as the RPC server does (one pull per frame), recording each pull. */
function pullAll<A>(stream: Stream.Stream<A>, log: string[]): Promise<A[][]> {
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const pull = yield* Stream.toPull(stream);
        const out: A[][] = [];
        for (;;) {
          const next = yield* Effect.option(pull);
          if (Option.isNone(next)) return out;
          const chunk = Chunk.toArray(next.value);
          log.push(`chunk ${JSON.stringify(chunk)}`);
          out.push(chunk);
        }
      }),
    ),
  );
}

describe("handOverChunks", () => {
  it("emits each chunk once, emptying the list, then one empty chunk", async () => {
    const pending = [[1, 2], [3]];
    const chunks = await pullAll(handOverChunks(pending), []);
    expect(chunks).toEqual([[1, 2], [3], []]);
    expect(pending).toEqual([]);
  });

  it("opens a lazy piece when reached, pulls it chunk by chunk, and releases it before the next piece", async () => {
    const log: string[] = [];
    const lazy = (from: number, to: number): Stream.Stream<number> =>
      Stream.fromIterable([from, to]).pipe(
        Stream.rechunk(1),
        Stream.ensuring(Effect.sync(() => log.push(`released ${from}-${to}`))),
      );
    const pending: (number[] | { from: number; to: number })[] = [[0], { from: 1, to: 2 }, [3]];
    const chunks = await pullAll(
      handOverChunks(pending, (piece) => {
        log.push(`opened ${piece.from}-${piece.to}`);
        return lazy(piece.from, piece.to);
      }),
      log,
    );
    expect(chunks).toEqual([[0], [1], [2], [3], []]);
    expect(log).toEqual(["chunk [0]", "opened 1-2", "chunk [1]", "chunk [2]", "released 1-2", "chunk [3]", "chunk []"]);
  });
});
