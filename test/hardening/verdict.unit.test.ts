// The fuzz verdict is pure: each pass criterion fails when its figure is bad.
import { describe, expect, it } from "vitest";
import { type FuzzFigures, formatFuzzReport, judgeFuzz } from "../../scripts/fuzz/fuzz-verdict.js";
import { encodeClientFrame, OPCODE } from "../../scripts/fuzz/wsframe.js";

function passing(): FuzzFigures {
  return {
    seed: 1,
    seconds: 20,
    connections: 4,
    minFrames: 10_000,
    framesSent: 12_000,
    bytesSent: 1_000_000,
    actions: 3000,
    connectionsOpened: 100,
    openFailures: [],
    outcomes: { "invalid-json": { defect: 10 } },
    halfOpen: { "tcp-silent": 3 },
    halfOpenClosedByServer: 0,
    halfOpenErrors: [],
    healthy: {
      catchups: 50,
      catchupFailures: [],
      liveItems: 100,
      dispatched: 100,
      missing: 0,
      duplicated: 0,
      outOfOrder: 0,
      errors: [],
    },
    heap: { baselineBytes: 30e6, afterBytes: 32e6, attempts: 1 },
    fds: { baseline: 30, after: 31 },
    heapError: null,
    serverExit: null,
    suspiciousStderr: [],
    stderrLines: 3,
    durationMs: 22_000,
  };
}

describe("judgeFuzz", () => {
  it("passes good figures and prints the figures docs/measurements.md quotes", () => {
    const f = passing();
    const v = judgeFuzz(f);
    expect(v.pass).toBe(true);
    const text = formatFuzzReport(f, v).join("\n");
    expect(text).toContain("frames sent: 12000");
    expect(text).toContain("invalid-json");
    expect(text).toContain("before 28.61 MiB, after 30.52 MiB");
    expect(text).toContain("fuzz: PASS");
  });

  const breakers: [string, (f: FuzzFigures) => void][] = [
    ["server exited", (f) => (f.serverExit = { code: null, signal: "SIGSEGV" })],
    ["too few frames", (f) => (f.framesSent = 9_999)],
    ["healthy client error", (f) => f.healthy.errors.push("defect on the healthy connection")],
    ["catch-up failed", (f) => f.healthy.catchupFailures.push("timed out")],
    ["no catch-up at all", (f) => (f.healthy.catchups = 0)],
    ["missing live event", (f) => (f.healthy.missing = 1)],
    ["duplicated live event", (f) => (f.healthy.duplicated = 1)],
    ["out-of-order live event", (f) => (f.healthy.outOfOrder = 1)],
    ["heap grew 11%", (f) => (f.heap = { baselineBytes: 30e6, afterBytes: 33.3e6, attempts: 6 })],
    ["heap not measured", (f) => (f.heap = null)],
    ["sockets not closed", (f) => (f.fds = { baseline: 30, after: 80 })],
    ["unhandled rejection logged", (f) => f.suspiciousStderr.push("UnhandledPromiseRejection: boom")],
  ];
  for (const [name, breakIt] of breakers) {
    it(`fails when: ${name}`, () => {
      const f = passing();
      breakIt(f);
      const v = judgeFuzz(f);
      expect(v.pass).toBe(false);
      expect(v.checks.filter((c) => !c.pass)).toHaveLength(1);
      expect(formatFuzzReport(f, v).at(-1)).toBe("fuzz: FAIL");
    });
  }
});

describe("encodeClientFrame", () => {
  // Decodes a masked client frame (RFC 6455 §5.2) to check the encoder round-trips.
  function decode(frame: Uint8Array): { fin: boolean; opcode: number; payload: Uint8Array } {
    const b1 = frame[1] as number;
    expect(b1 & 0x80).toBe(0x80);
    let len = b1 & 0x7f;
    let p = 2;
    if (len === 126) {
      len = ((frame[2] as number) << 8) | (frame[3] as number);
      p = 4;
    } else if (len === 127) {
      len = Number(new DataView(frame.buffer, frame.byteOffset + 2, 8).getBigUint64(0));
      p = 10;
    }
    const mask = frame.subarray(p, p + 4);
    const payload = frame.subarray(p + 4).map((x, i) => x ^ (mask[i % 4] as number));
    expect(payload.length).toBe(len);
    return { fin: ((frame[0] as number) & 0x80) !== 0, opcode: (frame[0] as number) & 0x0f, payload };
  }
  for (const size of [0, 1, 125, 126, 65_535, 65_536, 200_000]) {
    it(`round-trips a ${size}-byte payload with every length encoding`, () => {
      const payload = Uint8Array.from({ length: size }, (_, i) => (i * 7) & 0xff);
      const frame = encodeClientFrame(OPCODE.text, payload, Uint8Array.of(1, 2, 3, 4));
      const d = decode(frame);
      expect(d.fin).toBe(true);
      expect(d.opcode).toBe(OPCODE.text);
      expect(Buffer.from(d.payload).equals(Buffer.from(payload))).toBe(true);
    });
  }
});
