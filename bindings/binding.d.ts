// The contract of a binding (docs/bindings.md): a small ES module that seeds one kind of server
// from the fixture through the server's own API. The harness owns the order, the progress, the state
// folders and the check; a binding only knows its server's CLI, commands and item shapes. Every call
// (loading the module, prepare, each write, summarize) must settle within --binding-timeout-ms.
// In a binding: /** @type {import("catchup-bench/bindings/binding.js").Binding} */

/** One row of the fixture's event log, in sequence order, with its JSON parsed. */
export interface FixtureEvent {
  /** The fixture's own sequence (1-based, gap-free). */
  sequence: number;
  /** e.g. "project.created", "project.meta-updated", "thread.created", "message.updated". */
  type: string;
  /** "project" or "thread". */
  aggregateKind: string;
  streamId: string;
  /** ISO time the fixture gives the event. */
  occurredAt: string;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** One RPC connection to the server being seeded (Effect 3 or 4 wire dialect; several requests may be in flight). */
export interface RpcClient {
  /** A unary call: resolves with the Exit's value, rejects with an Error naming the tag and the failure. */
  call(tag: string, payload: unknown): Promise<unknown>;
}

/** What a command run by `prepare` printed. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface PrepareContext {
  /** The empty state folder the server will be started on ({state} in its start command). */
  stateDir: string;
  /** The variant's working directory: its checkout for a --ref, else the harness's. */
  cwd: string;
  /** --binding-option key=value pairs (the config file's "binding-option"), each one the binding declares. */
  options: Readonly<Record<string, string>>;
  /**
   * Runs a command (no shell) in `cwd` with the harness's environment; throws when it cannot start or
   * times out (default: --binding-timeout-ms). A stop (Ctrl-C) stops it.
   */
  run(argv: readonly string[], opts?: { env?: Record<string, string>; timeoutMs?: number }): Promise<RunResult>;
  log(line: string): void;
}

export interface WriteContext {
  rpc: RpcClient;
  stateDir: string;
  options: Readonly<Record<string, string>>;
  log(line: string): void;
}

/** What the server's own snapshot says it holds, as the binding reads its items. */
export interface SnapshotSummary {
  /** Projects that are not deleted. */
  projects: number;
  /** UTF-8 bytes of every script command of those projects (each counted once). */
  scriptBytes: number;
  /** The snapshot's sequence (the server's high-water mark). */
  sequence: number;
}

export interface Binding {
  /** Shown in the report. */
  name: string;
  /** Aggregate kinds the binding writes ("project", "thread"); events of other kinds are not written. */
  kinds: readonly string[];
  /**
   * The --binding-option keys it takes, each with what it does: `{ node: "the Node that runs the
   * server's CLI" }`. Any other key is refused before the run starts (exit 2).
   */
  options?: Readonly<Record<string, string>>;
  /**
   * Before the server first starts: make the empty state folder the server's (e.g. run its CLI to
   * create the store and issue a token). Returns the token clients use (a non-empty string), when
   * the server issues one.
   */
  prepare?(ctx: PrepareContext): Promise<{ token?: string } | undefined>;
  /**
   * Writes one fixture event through the server's RPCs and returns the sequence the server assigned
   * to its last write for it: a whole number above 0, above its entity's previous write's and above
   * every write's before the resume cursor (with order "strict": above the previous write's). Calls
   * begin in fixture order; up to --seed-window of them are in flight at once (see `order`).
   */
  write(event: FixtureEvent, ctx: WriteContext): Promise<number>;
  /** Reads the items of a snapshot subscription (up to and including the completion marker). Pure. */
  summarize(items: readonly unknown[]): SnapshotSummary;
  /**
   * The order the server needs its writes in: "entity" (the default) lets the harness keep up to
   * --seed-window writes in flight, an entity's writes one after another and every write before the
   * resume cursor answered before any after it; "strict" writes one at a time, in fixture order.
   */
  order?: "strict" | "entity";
  /** Paths in the state folder left out of the template (the server's logs, say). */
  exclude?: readonly string[];
}
