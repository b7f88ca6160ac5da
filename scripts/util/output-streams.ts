// stdout and stderr are for people and pipes (`| head -1`, `> /dev/full`): a reader that goes away or a
// device that fills up must never decide a run's fate. The first failed write turns that stream into
// a sink that drops what follows; the run goes on and keeps everything it writes to files.

type Sinkable = NodeJS.WritableStream & { __sinkOnError?: boolean; write: NodeJS.WritableStream["write"] };

/** Once `stream` fails (EPIPE, ENOSPC, EIO ...), later writes are dropped and no 'error' reaches the process. */
export function sinkOnError(stream: NodeJS.WritableStream, onFirst?: (code: string) => void): void {
  const s = stream as Sinkable;
  if (s.__sinkOnError) return;
  s.__sinkOnError = true;
  let failed = false;
  s.on("error", (e: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    // Drop later writes rather than queueing them on a destroyed stream; a callback still gets called.
    s.write = ((_chunk: unknown, ...rest: unknown[]) => {
      const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      if (cb) queueMicrotask(cb);
      return true;
    }) as Sinkable["write"];
    onFirst?.(e.code ?? e.message);
  });
}

/** The CLI's streams: a failed stdout is said once on stderr (the files keep everything); a failed stderr is silent. */
export function sinkStandardStreamsOnError(): void {
  sinkOnError(process.stderr);
  sinkOnError(process.stdout, (code) => {
    if (code !== "EPIPE") process.stderr.write(`catchup-bench: stdout cannot be written (${code}); output dropped\n`);
  });
}
