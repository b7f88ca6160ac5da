// A target's runtime is read from its own process: /proc/PID/exe, and the version only of a Node
// binary (another executable is never run with --version: that flag may mean anything to it).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { realpathSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { looksLikeNode, targetRuntime } from "../../scripts/server-process/runtime.js";

const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
});

function start(file: string, args: string[]) {
  const c = spawn(file, args, { stdio: ["ignore", "pipe", "ignore"] });
  children.push(c);
  return c;
}

describe("targetRuntime", () => {
  it("names a Node process's executable and version", async () => {
    const c = start(process.execPath, ["-e", "console.log('up'); setInterval(() => {}, 1000)"]);
    await once(c.stdout as NodeJS.ReadableStream, "data");
    expect(await targetRuntime(c.pid as number)).toEqual({
      exe: realpathSync(process.execPath),
      node: process.version,
    });
  });

  it("names another executable without running it", async () => {
    const c = start("sleep", ["60"]);
    await once(c, "spawn");
    const r = await targetRuntime(c.pid as number);
    expect(r.node).toBeNull();
    expect(r.exe).toMatch(/sleep$|coreutils$|busybox$/);
  });

  it("is empty for a process that is gone", async () => {
    const c = start("true", []);
    await once(c, "exit");
    expect(await targetRuntime(c.pid as number)).toEqual({ exe: null, node: null });
  });

  it("takes node, nodejs and versioned names for Node", () => {
    expect(["/usr/bin/node", "/opt/nodejs", "/x/node24", "/x/node24.1"].map(looksLikeNode)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["/usr/bin/bun", "/usr/bin/deno", "/x/nodemon"].map(looksLikeNode)).toEqual([false, false, false]);
  });
});
