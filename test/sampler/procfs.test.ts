// /proc readers: the real server is found behind wrappers by the port it listens on.
import { afterEach, describe, expect, it } from "vitest";
import {
  descendants,
  findListeningPid,
  isAlive,
  listeningPorts,
  openRssReader,
  parseListeningSockets,
  readVmHwm,
  readVmRss,
  resetVmHwm,
} from "../../scripts/sampler/procfs.js";
import { killAll, PROBE_TARGET, startProbe, startTarget, until, WRAPPER } from "./support.js";

afterEach(killAll);

describe("parseListeningSockets", () => {
  const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";
  it("decodes IPv4 LISTEN rows and skips other states", () => {
    const text =
      header +
      "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0 100 0 0 10 0\n" +
      "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2222 1 0 100 0 0 10 0\n" +
      "   2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 3333 1 0 100 0 0 10 0\n";
    expect(parseListeningSockets(text, 4)).toEqual([
      { address: "127.0.0.1", port: 8080, family: 4, inode: 1111, loopback: true },
      { address: "0.0.0.0", port: 22, family: 4, inode: 2222, loopback: false },
    ]);
  });
  it("decodes IPv6 loopback, any and v4-mapped addresses", () => {
    const row = (addr: string, inode: number) =>
      `   0: ${addr}:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 ${inode} 1 0 100 0 0 10 0\n`;
    const text =
      header +
      row("00000000000000000000000001000000", 1) +
      row("00000000000000000000000000000000", 2) +
      row("0000000000000000FFFF00000100007F", 3);
    expect(parseListeningSockets(text, 6).map((s) => [s.address, s.loopback, s.port])).toEqual([
      ["::1", true, 80],
      ["::", false, 80],
      ["::ffff:127.0.0.1", true, 80],
    ]);
  });
});

describe("findListeningPid", () => {
  it("returns the spawned pid itself when it is the server", async () => {
    const t = await startProbe();
    expect(t.ready.pid).toBe(t.pid);
    expect(listeningPorts(t.pid)).toContain(t.ready.port);
    await expect(findListeningPid(t.pid, t.ready.port, { timeoutMs: 10_000 })).resolves.toBe(t.pid);
  });

  it("finds the server behind sh -c with a second command (sh stays the parent)", async () => {
    const t = await startTarget("sh", ["-c", `"${process.execPath}" "${PROBE_TARGET}"; exit $?`]);
    expect(t.ready.pid).not.toBe(t.pid);
    expect(descendants(t.pid)).toContain(t.ready.pid);
    expect(listeningPorts(t.pid)).toEqual([]);
    await expect(findListeningPid(t.pid, t.ready.port, { timeoutMs: 10_000 })).resolves.toBe(t.ready.pid);
  });

  it("finds the server behind nested shells and a node wrapper (an npx-like chain)", async () => {
    const inner = `"${process.execPath}" "${WRAPPER}" "${PROBE_TARGET}"; exit $?`;
    const t = await startTarget("sh", ["-c", `sh -c '${inner}'; exit $?`]);
    const tree = descendants(t.pid);
    expect(tree.length).toBeGreaterThanOrEqual(3); // sh, node wrapper, node target
    expect(tree.at(-1)).toBe(t.ready.pid);
    await expect(findListeningPid(t.pid, t.ready.port, { timeoutMs: 10_000 })).resolves.toBe(t.ready.pid);
  });

  it("rejects with a message naming the port when nothing listens on it", async () => {
    const t = await startProbe();
    const otherPort = t.ready.port === 1 ? 2 : 1;
    await expect(findListeningPid(t.pid, otherPort, { timeoutMs: 200 })).rejects.toThrow(
      new RegExp(`listened on port ${otherPort} within 200 ms`),
    );
  });

  it("rejects as soon as the root process has exited", async () => {
    const t = await startProbe();
    t.kill();
    await t.waitExit();
    expect(isAlive(t.pid)).toBe(false);
    await expect(findListeningPid(t.pid, t.ready.port, { timeoutMs: 60_000 })).rejects.toThrow(/exited/);
  });
});

describe("readVmHwm / readVmRss", () => {
  it("report bytes: VmHWM covers a touched 64 MiB buffer and is never below an earlier VmRSS", async () => {
    const t = await startProbe();
    const rssBefore = readVmRss(t.pid) as number;
    await t.command(`alloc ${64 * 1024 * 1024}`);
    await t.nextLine(); // {"done":"alloc"}
    const rssAfter = readVmRss(t.pid) as number;
    const hwm = readVmHwm(t.pid) as number; // read second: the high-water mark only grows
    expect(rssAfter).toBeGreaterThanOrEqual(rssBefore + 60 * 1024 * 1024); // less a little a GC may return
    expect(hwm).toBeGreaterThanOrEqual(rssAfter);
  });
  it("resetVmHwm brings the high-water mark down to the current RSS after a freed allocation", async () => {
    const t = await startProbe(["--expose-gc"]);
    await t.command(`alloc ${128 * 1024 * 1024}`);
    await t.nextLine(); // {"done":"alloc"}
    await t.command("free");
    expect(await t.command("gc")).toEqual({ done: "gc", exposed: true });
    const hwmBefore = readVmHwm(t.pid) as number;
    // V8 releases the buffer's memory on a background thread after the GC.
    await until(() => hwmBefore - (readVmRss(t.pid) as number) > 96 * 1024 * 1024, 10_000, "buffer unmapped");
    const rssBefore = readVmRss(t.pid) as number;
    resetVmHwm(t.pid);
    const hwmAfter = readVmHwm(t.pid) as number;
    // V8 may go on returning memory around the reset (CI once saw RSS fall 19 MiB more), so the RSS
    // at the reset lies between the readings on either side of it.
    const rssAtReset = Math.min(rssBefore, readVmRss(t.pid) as number);
    expect(hwmAfter).toBeLessThan(hwmBefore - 96 * 1024 * 1024);
    expect(hwmAfter).toBeGreaterThanOrEqual(rssAtReset - 16 * 1024 * 1024); // about the RSS at the reset
  });
  it("throw a clear error for a pid that does not exist", () => {
    expect(() => readVmHwm(2 ** 22 + 12345)).toThrow(/\/proc\/\d+\/status/);
    expect(() => resetVmHwm(2 ** 22 + 12345)).toThrow(/cannot reset VmHWM of pid \d+/);
  });
});

describe("openRssReader", () => {
  it("re-reads /proc/PID/statm through one open file: a touched 64 MiB buffer shows in the next read", async () => {
    const t = await startProbe();
    const reader = openRssReader(t.pid);
    try {
      const before = reader.read();
      // statm and status show the same counters (status in kB); the idle target's RSS moves a little
      // between the two reads, and each read sums per-CPU counters approximately.
      expect(Math.abs(before - (readVmRss(t.pid) as number))).toBeLessThanOrEqual(2 * 1024 * 1024);
      await t.command(`alloc ${64 * 1024 * 1024}`);
      await t.nextLine(); // {"done":"alloc"}
      expect(reader.read()).toBeGreaterThanOrEqual(before + 60 * 1024 * 1024);
      t.kill();
      await t.waitExit();
      expect(() => reader.read()).toThrow(/gone|statm/);
    } finally {
      reader.close();
    }
  });
  it("refuses a pid that does not exist, naming the file", () => {
    expect(() => openRssReader(2 ** 22 + 12345)).toThrow(/\/proc\/\d+\/statm/);
  });
});
