// The bundled server as a process the harness starts (it never imports the server's code): where its
// compiled entry point is, and the node arguments that start it on loopback.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * dist/server-under-test/main.js: next to this module once compiled (dist/scripts/), or under dist/
 * when this module runs from source (tests); measured processes always run the compiled server.
 */
function serverMain(): string {
  const candidates = [
    new URL("../server-under-test/main.js", import.meta.url),
    new URL("../dist/server-under-test/main.js", import.meta.url),
  ].map((u) => fileURLToPath(u));
  return candidates.find((p) => existsSync(p)) ?? (candidates[0] as string);
}

export const SERVER_MAIN = serverMain();

/**
 * Node arguments that start the bundled server on 127.0.0.1 with a kernel-chosen port, ending when
 * its stdin closes (--exit-with-parent); with inspect, its inspector on a loopback port. extra goes last.
 */
export function bundledServerArgs(db: string, options: { inspect: boolean; extra?: string[] }): string[] {
  return [
    ...(options.inspect ? ["--inspect=127.0.0.1:0"] : []),
    SERVER_MAIN,
    "--db",
    db,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--exit-with-parent",
    ...(options.extra ?? []),
  ];
}
