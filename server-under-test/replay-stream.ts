// The legacy replay as a stream, shaped as the reference server streams it: its event log read in
// pages, grouped (up to N items or a time window, see grouping.ts), then each group's items fetched
// and sent as one chunk. Pages are read only when the grouping pulls them, which is only while the
// RPC server waits for the next chunk, i.e. after the client ACKed the previous one.
import * as Chunk from "effect/Chunk";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import * as Stream from "effect/Stream";
import { REPLAY_READ_PAGE, type ReplaySource } from "./delivery.js";
import { type GroupWindow, groupedWithin } from "./grouping.js";
import type { ShellItem } from "./rpcs.js";

/** Positions of the replay, one chunk per page of its event log, each page read when pulled. */
function pagedPositions(source: ReplaySource): Stream.Stream<number> {
  let next = 0;
  return Stream.repeatEffectChunkOption(
    Effect.suspend(() => {
      if (next >= source.size) return Effect.fail(Option.none());
      const from = next;
      const to = Math.min(from + REPLAY_READ_PAGE, source.size);
      next = to;
      source.readPage?.(from, to);
      return Effect.succeed(Chunk.range(from, to - 1));
    }),
  );
}

export function streamReplay(source: ReplaySource, window: GroupWindow): Stream.Stream<ShellItem> {
  return groupedWithin(pagedPositions(source), window).pipe(
    // a group is a run of consecutive positions: fetch its items now, as one chunk
    Stream.mapChunks((positions) => {
      const first = Chunk.unsafeHead(positions);
      return Chunk.unsafeFromArray(source.read(first, first + Chunk.size(positions)));
    }),
  );
}
