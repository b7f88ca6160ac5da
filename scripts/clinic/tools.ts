// Pure parts of the clinic runner: the tools, clinic's command line, and reading its output.

export const CLINIC_TOOLS = ["doctor", "flame", "heapprofiler", "bubbleprof"] as const;
export type ClinicTool = (typeof CLINIC_TOOLS)[number];

/**
 * Whether clinic stops the server itself once the --on-port command exits. doctor and flame send it
 * SIGINT and heapprofiler its IPC stop; bubbleprof only closes its port pipe and leaves the server
 * running, so the harness must send the SIGINT (checked against @clinic/* 13 sources).
 */
export function clinicStopsServer(tool: ClinicTool): boolean {
  return tool !== "bubbleprof";
}

/** Quotes a word for the POSIX shell clinic runs --on-port through. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * `clinic <tool> --open=false --dest DEST --on-port "node HOLD CONTROL_PORT" -- node SERVER --db DB
 * --port 0 --delivery V --exit-with-parent`. --on-port lets clinic stop the server its own way when
 * the hold command exits (heapprofiler needs its IPC stop: a plain SIGINT races the profile write).
 * --exit-with-parent: clinic hands its stdin (our pipe) to the server, so the server ends if we die.
 */
export function clinicArgs(opts: {
  clinicBin: string;
  tool: ClinicTool;
  dest: string;
  holdScript: string;
  controlPort: number;
  node: string;
  serverMain: string;
  db: string;
  delivery: string;
}): string[] {
  return [
    opts.clinicBin,
    opts.tool,
    "--open=false",
    "--dest",
    opts.dest,
    "--on-port",
    [opts.node, opts.holdScript, String(opts.controlPort)].map(shellQuote).join(" "),
    "--",
    opts.node,
    opts.serverMain,
    "--db",
    opts.db,
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--delivery",
    opts.delivery,
    "--exit-with-parent",
  ];
}

export interface ReadyLine {
  url: string;
  pid: number;
}

/** The bundled server's ready line ({"event":"listening","url":...,"pid":...}), or null for any other line. */
export function parseReadyLine(line: string): ReadyLine | null {
  if (!line.startsWith("{")) return null;
  try {
    const v = JSON.parse(line) as { event?: unknown; url?: unknown; pid?: unknown };
    if (v.event === "listening" && typeof v.url === "string" && typeof v.pid === "number") {
      return { url: v.url, pid: v.pid };
    }
  } catch {
    // not JSON: clinic's own chatter
  }
  return null;
}

/** The report path clinic prints: "Generated HTML file is file:///…/1234.clinic-doctor.html". */
export function parseHtmlPath(output: string): string | null {
  const m = /Generated HTML file is (file:\/\/\S+\.html)/.exec(output);
  if (!m?.[1]) return null;
  try {
    return decodeURIComponent(new URL(m[1]).pathname);
  } catch {
    return null;
  }
}
