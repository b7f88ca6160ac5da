// {port} is chosen below the kernel's ephemeral range (where no outgoing connection, not even the
// readiness check's own connect, can take it before the target binds it), and never twice.
import { once } from "node:events";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { ephemeralLow, freePort } from "../../scripts/server-process/free-port.js";

describe("freePort", () => {
  it("hands out bindable ports below the ephemeral range, each once", async () => {
    const low = ephemeralLow();
    const ports: number[] = [];
    for (let i = 0; i < 200; i++) ports.push(await freePort());
    expect(ports.every((p) => p >= 10_000 && p < low)).toBe(true);
    expect(new Set(ports).size).toBe(ports.length);
    const server = createServer().listen(ports[0], "127.0.0.1");
    await once(server, "listening");
    server.close();
  });

  it("reads the range's first port, and falls back to Linux's default", () => {
    expect(ephemeralLow(() => "40000\t60999\n")).toBe(40_000);
    expect(ephemeralLow(() => "garbage")).toBe(32_768);
    expect(
      ephemeralLow(() => {
        throw new Error("ENOENT");
      }),
    ).toBe(32_768);
  });
});
