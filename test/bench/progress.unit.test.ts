// The terminal progress bar: no "ETA 0s" before anything finished (nothing to estimate from), and
// after Ctrl-C the bar is gone for good: no redraw of "0/N" after the interrupt line.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgress } from "../../scripts/bench/progress/progress.js";

/** A stream that says it is a terminal and keeps everything written to it. */
function fakeTty() {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean; columns: number; text: string };
  stream.isTTY = true;
  stream.columns = 120;
  stream.text = "";
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stream.text += String(chunk);
    return write(chunk, ...(rest as []));
  }) as typeof stream.write;
  return stream;
}

describe("terminal progress", () => {
  it("shows ETA n/a at 0/N, an estimate after the first trial", () => {
    const tty = fakeTty();
    const p = createProgress(tty as unknown as NodeJS.WriteStream);
    p.start(4);
    p.trial("snapshot legacy, trial 1/2");
    expect(tty.text).toMatch(/0\/4/);
    expect(tty.text).not.toMatch(/ETA 0s/);
    expect(tty.text).toMatch(/0\/4 .*ETA n\/a/);
    p.done("snapshot legacy, trial 1/2", true);
    p.stop(); // renders the final state
    expect(tty.text).toMatch(/1\/4 .*ETA \d/);
  });

  it("after interrupt() draws no bar again, even when a log line or a finished trial follows", () => {
    const tty = fakeTty();
    const p = createProgress(tty as unknown as NodeJS.WriteStream);
    p.start(6);
    p.trial("snapshot legacy, trial 1/3");
    p.interrupt("SIGINT: stopping targets, keeping finished results");
    const at = tty.text.length;
    p.log("target legacy stopped");
    p.done("snapshot legacy, trial 1/3", true);
    p.trial("snapshot batched, trial 1/3");
    p.stop();
    const after = tty.text.slice(at);
    expect(after).not.toMatch(/\/6 \|/); // no bar line ("1/6 | cell | elapsed ...")
    expect(after).toContain("target legacy stopped\n");
    expect(after).toContain("[1/6] snapshot legacy, trial 1/3\n");
  });
});

describe("fixture progress bar", () => {
  it("says ETA n/a until there is a rate, then seconds", async () => {
    const { fixtureBarFormat } = await import("../../scripts/commands/fixture.js");
    const options = {
      barsize: 10,
      barCompleteString: "#".repeat(10),
      barIncompleteString: ".".repeat(10),
      barGlue: "",
      autopaddingChar: " ",
    };
    const params = (value: number, eta: number) => ({
      value,
      total: 3100,
      eta,
      progress: value / 3100,
      startTime: Date.now(),
      stopTime: null,
      maxWidth: 120,
    });
    const line = (value: number, eta: number) =>
      fixtureBarFormat(options as never, params(value, eta) as never, {}).replace(/\s+$/, "");
    expect(line(2000, 0)).toMatch(/2000\/3100 rows \| ETA n\/a$/);
    expect(line(2000, 3)).toMatch(/2000\/3100 rows \| ETA 3s$/);
    expect(line(3100, 0)).toMatch(/3100\/3100 rows \| ETA 0s$/);
  });
  it("counts auto-sampling's extra rounds apart from the plan, never past either", () => {
    const out = new PassThrough() as PassThrough & { text: string };
    out.text = "";
    out.on("data", (d: Buffer) => {
      out.text += String(d);
    });
    const p = createProgress(out as unknown as NodeJS.WriteStream);
    p.start(2);
    p.done("snapshot legacy, trial 1/1", true);
    p.done("snapshot batched, trial 1/1", true);
    p.grow(2);
    p.done("snapshot legacy, auto-sample round 2", true);
    p.done("snapshot batched, auto-sample round 2", true);
    // Plain lines carry the weighted ETA while trials remain (eta.unit.test.ts checks its figure).
    expect(out.text.trimEnd().split("\n").slice(1)).toEqual([
      "[1/2] snapshot legacy, trial 1/1 (ETA 0s)",
      "[2/2] snapshot batched, trial 1/1",
      "[2/2 + 1/2 added] snapshot legacy, auto-sample round 2 (ETA 0s)",
      "[2/2 + 2/2 added] snapshot batched, auto-sample round 2",
    ]);
  });

  it("counts the rounds to the first look into the first range and says how many trials they add", () => {
    const out = new PassThrough() as PassThrough & { text: string };
    out.text = "";
    out.on("data", (d: Buffer) => {
      out.text += String(d);
    });
    const p = createProgress(
      out as unknown as NodeJS.WriteStream,
      () => 0,
      () => 1,
    );
    const cell = "memory:8192x4/memory";
    const rounds = { kinds: [cell, cell, cell], budgetMs: 600_000, roundKinds: [cell], expected: [cell, cell] };
    p.start(2, [cell, cell], { "memory rounds": rounds });
    p.stop();
    // 4 trials of the cell's 4.2 s prior (0.8x-1.25x) in the range; the third reserved trial after it.
    expect(out.text.split("\n")[0]).toBe(
      "catchup-bench: expected run time 13s–21s for the 2 planned trials and the 2 the rounds add to the first look, then up to 5s of adaptive rounds (memory rounds) as the verdicts need them",
    );
  });

  it("states the whole run's expected length first, a range while rounds may join, and the actual time last", () => {
    const out = new PassThrough() as PassThrough & { text: string };
    out.text = "";
    out.on("data", (d: Buffer) => {
      out.text += String(d);
    });
    let clock = 0;
    const p = createProgress(
      out as unknown as NodeJS.WriteStream,
      () => clock,
      () => 1,
    );
    const cell = "memory:8192x4/memory";
    // Two planned trials; rounds may add up to two more, within a 10 s budget.
    p.start(2, [cell, cell], { "memory rounds": { kinds: [cell, cell], budgetMs: 10_000, roundKinds: [cell, cell] } });
    for (const label of ["a", "b"]) {
      p.trial(label);
      clock += 4_000;
      p.done(label, true);
    }
    p.grow(2, [cell, cell], "memory rounds");
    p.trial("c");
    clock += 4_000;
    p.done("c", true);
    p.settle("memory rounds");
    p.trial("d");
    clock += 4_000;
    p.done("d", true);
    p.stop();
    const lines = out.text.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^catchup-bench: expected run time \d+s–\d+s for the 2 planned trials, then up to \d+s of adaptive rounds \(memory rounds\) as the verdicts need them$/,
    );
    // The first range is the planned trials' alone, at most 1.6x wide.
    const [low, high] = (/time (\d+)s–(\d+)s/.exec(lines[0] as string) ?? []).slice(1).map(Number);
    expect((high as number) / (low as number)).toBeLessThanOrEqual(1.6);
    // The plan's last trial is done, but rounds may still follow: the line says so, not "0s".
    expect(lines[2]).toBe("[2/2] b (ETA 0s–8s)");
    // Added rounds are their own part of the count: the plan's part stays full.
    expect(lines[3]).toBe("[2/2 + 1/2 added] c (ETA 4s)");
    expect(lines[4]).toBe("[2/2 + 2/2 added] d");
    expect(lines[5]).toMatch(/^catchup-bench: run time 16s \(expected \d+s–\d+s at the start\)$/);
  });
});
