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
 * `clinic <tool> --open=false --dest DEST --on-port "node HOLD CONTROL_PORT" -- SERVER...`. --on-port
 * lets clinic stop the server its own way when the hold command exits (heapprofiler needs its IPC
 * stop: a plain SIGINT races the profile write). server is the bundled server's command line, with
 * --exit-with-parent: clinic hands its stdin (our pipe) to the server, so the server ends if we die.
 */
export function clinicArgs(opts: {
  clinicBin: string;
  tool: ClinicTool;
  dest: string;
  holdScript: string;
  controlPort: number;
  node: string;
  server: string[];
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
    ...opts.server,
  ];
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
