// SIGINT and SIGTERM heard for as long as something runs (a bench run, a fuzz run, a build): one
// handler for both, removed again by the function returned.

export type StopSignal = "SIGINT" | "SIGTERM";

export function onStopSignals(handler: (signal: StopSignal) => void): () => void {
  const onSigint = () => handler("SIGINT");
  const onSigterm = () => handler("SIGTERM");
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  return () => {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
  };
}
