// The inspector client: heap from outside the target, loopback only, discovery without stderr.
import { afterEach, describe, expect, it } from "vitest";
import {
  assertLoopbackWsUrl,
  connectInspector,
  findInspector,
  type InspectorClient,
  inspectorUrlFromStderr,
} from "../../scripts/sampler/inspector.js";
import { locateTarget } from "../../scripts/sampler/locate.js";
import { descendants, findListeningPid, listeningSockets } from "../../scripts/sampler/procfs.js";
import { killAll, PROBE_TARGET, startProbe, startTarget, type Target, WRAPPER, withTimeout } from "./support.js";

const clients: InspectorClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close(1_000)));
  killAll();
});

/** Waits until the target's stderr shows its inspector url. */
async function inspectorUrl(t: Target): Promise<string> {
  const found = inspectorUrlFromStderr(t.stderr());
  if (found) return found;
  return withTimeout(
    new Promise<string>((resolve) => {
      t.child.stderr?.on("data", () => {
        const u = inspectorUrlFromStderr(t.stderr());
        if (u) resolve(u);
      });
    }),
    10_000,
    "inspector url on stderr",
  );
}

describe("inspectorUrlFromStderr / assertLoopbackWsUrl", () => {
  it("parses Node's banner and returns null without one", () => {
    const text =
      "Debugger listening on ws://127.0.0.1:9229/0f2c-aa\nFor help, see: https://nodejs.org/en/docs/inspector\n";
    expect(inspectorUrlFromStderr(text)).toBe("ws://127.0.0.1:9229/0f2c-aa");
    expect(inspectorUrlFromStderr("listening on 9229\n")).toBeNull();
  });
  it("refuses any inspector address that is not loopback", async () => {
    expect(() => assertLoopbackWsUrl("ws://10.0.0.5:9229/x")).toThrow(/must be ws:\/\/ on 127\.0\.0\.1/);
    expect(() => assertLoopbackWsUrl("not a url")).toThrow(/not a valid URL/);
    await expect(connectInspector("ws://192.168.1.1:9229/x")).rejects.toThrow(/127\.0\.0\.1/);
    expect(assertLoopbackWsUrl("ws://127.0.0.1:9229/x").port).toBe("9229");
  });
});

describe("connectInspector", () => {
  it("reads the target's heap, evaluates in it, and reports protocol errors", async () => {
    const t = await startProbe(["--inspect=127.0.0.1:0"]);
    const c = await connectInspector(await inspectorUrl(t), { timeoutMs: 5_000 });
    clients.push(c);
    expect(await c.evaluate("process.pid")).toBe(t.pid);
    const before = await c.getHeapUsage();
    expect(before.usedSize).toBeGreaterThan(0);
    expect(before.totalSize).toBeGreaterThanOrEqual(before.usedSize);
    await t.command("heap 32");
    const after = await c.getHeapUsage();
    expect(after.usedSize - before.usedSize).toBeGreaterThan(24 * 1024 * 1024);
    await expect(c.send("No.suchMethod")).rejects.toThrow(/inspector error/);
    await expect(c.evaluate("(() => { throw new Error('boom') })()")).rejects.toThrow(/evaluate threw/);
  });

  it("binds the inspector to 127.0.0.1 only (its LISTEN socket in /proc/PID/net/tcp)", async () => {
    const t = await startProbe(["--inspect=127.0.0.1:0"]);
    const port = Number(new URL(await inspectorUrl(t)).port);
    const sockets = listeningSockets(t.pid).filter((s) => s.port === port);
    expect(sockets).toEqual([expect.objectContaining({ address: "127.0.0.1", family: 4, loopback: true })]);
  });

  it("answers getHeapUsage while the target's event loop is blocked", async () => {
    const t = await startProbe(["--inspect=127.0.0.1:0"]);
    const c = await connectInspector(await inspectorUrl(t));
    clients.push(c);
    expect(await t.command("block 2000")).toEqual({ started: "block", ms: 2000 });
    let blockDone = false;
    const done = t.nextLine().then((line) => {
      blockDone = true;
      return line;
    });
    const heap = await c.getHeapUsage(1_500);
    expect(heap.usedSize).toBeGreaterThan(0);
    expect(blockDone).toBe(false); // answered while the loop still spun
    expect(await done).toMatchObject({ done: "block", ms: 2000 });
  });

  it("lets a target with an attached session exit instead of waiting for the debugger", async () => {
    const t = await startProbe(["--inspect=127.0.0.1:0"]);
    const c = await connectInspector(await inspectorUrl(t));
    clients.push(c);
    t.child.stdin?.write("exit 7\n");
    expect(await t.waitExit()).toEqual({ code: 7, signal: null });
    expect(await withTimeout(c.closed, 5_000, "inspector close")).toBe("target is exiting");
    expect(c.isClosed).toBe(true);
    await expect(c.getHeapUsage()).rejects.toThrow(/inspector closed/);
  });

  it("rejects calls in flight when the target is killed", async () => {
    const t = await startProbe(["--inspect=127.0.0.1:0"]);
    const c = await connectInspector(await inspectorUrl(t));
    clients.push(c);
    await t.command("block 5000");
    const gc = c.collectGarbage(30_000); // waits for the busy loop, so it is in flight when the kill lands
    t.kill();
    await expect(gc).rejects.toThrow(/inspector closed/);
  });
});

describe("findInspector", () => {
  it("finds the server's own inspector when NODE_OPTIONS gives every node in a wrapper chain one", async () => {
    const env = { ...process.env, NODE_OPTIONS: "--inspect=127.0.0.1:0" };
    const t = await startTarget("sh", ["-c", `"${process.execPath}" "${WRAPPER}" "${PROBE_TARGET}"; exit $?`], { env });
    const serverPid = await findListeningPid(t.pid, t.ready.port);
    expect(serverPid).toBe(t.ready.pid);
    // The wrapper listens on an inspector port too: the one found must belong to the server.
    const wrapperPid = descendants(t.pid)[0] as number;
    expect(listeningSockets(wrapperPid).length).toBe(1);
    const c = await findInspector(serverPid, { excludePorts: [t.ready.port], timeoutMs: 10_000 });
    clients.push(c);
    expect(await c.evaluate("process.pid")).toBe(serverPid);
    expect(new URL(c.url).hostname).toBe("127.0.0.1");
  });

  it("locateTarget does both steps through a real `npm exec` chain", async () => {
    const env = { ...process.env, NODE_OPTIONS: "--inspect=127.0.0.1:0" };
    const t = await startTarget("npm", ["exec", "--offline", "-c", `"${process.execPath}" "${PROBE_TARGET}"`], { env });
    expect(t.ready.pid).not.toBe(t.pid); // npm, then a shell, then the target
    const located = await locateTarget(t.pid, t.ready.port, { timeoutMs: 10_000 });
    clients.push(located.inspector);
    expect(located.pid).toBe(t.ready.pid);
    expect(await located.inspector.evaluate("process.pid")).toBe(t.ready.pid);
  });

  it("fails with a clear message when the process has no inspector", async () => {
    const t = await startProbe();
    await expect(findInspector(t.pid, { excludePorts: [t.ready.port], timeoutMs: 300 })).rejects.toThrow(
      /no inspector found for pid \d+ within 300 ms.*--inspect=127\.0\.0\.1:0/,
    );
  });

  it("rejects a port that answers HTTP but is not an inspector", async () => {
    const t = await startProbe();
    await expect(findInspector(t.pid, { timeoutMs: 300 })).rejects.toThrow(/not an inspector list/);
  });
});
