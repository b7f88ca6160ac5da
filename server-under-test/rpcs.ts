// The server's RPC contract: item shapes, errors and the RpcGroup. Shared by the server and by the
// stock-RpcClient test (a client we did not write decodes these very schemas).
import * as Rpc from "@effect/rpc/Rpc";
import * as RpcGroup from "@effect/rpc/RpcGroup";
import * as RpcMiddleware from "@effect/rpc/RpcMiddleware";
import * as Schema from "effect/Schema";

export const SCOPES = ["orchestration:read", "orchestration:operate"] as const;
export type Scope = (typeof SCOPES)[number];

export const ProjectScript = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  command: Schema.String,
  icon: Schema.String,
  runOnWorktreeCreate: Schema.Boolean,
});

/** A project as the shell subscription shows it: the current projection row with its scripts. */
export const ProjectShell = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  workspaceRoot: Schema.String,
  scripts: Schema.Array(ProjectScript),
  createdAt: Schema.String,
  updatedAt: Schema.String,
});
export type ProjectShell = typeof ProjectShell.Type;

export const SnapshotItem = Schema.Struct({
  kind: Schema.Literal("snapshot"),
  snapshotSequence: Schema.Number,
  projects: Schema.Array(ProjectShell),
  /** Only with --max-initial-chunk-bytes (batched, marker requested): this item's page, 1..pages. */
  page: Schema.optional(Schema.Number),
  /** Pages of this snapshot; it is complete at the item with page === pages (pages arrive in order). */
  pages: Schema.optional(Schema.Number),
});
/** The reference server's shell snapshot body (this server has no threads: both lists stay empty). */
export const ShellSnapshot = Schema.Struct({
  schemaVersion: Schema.Number,
  snapshotSequence: Schema.Number,
  projects: Schema.Array(ProjectShell),
  threads: Schema.Array(Schema.Unknown),
  archivedThreads: Schema.Array(Schema.Unknown),
});
export type ShellSnapshot = typeof ShellSnapshot.Type;

/**
 * The reference server's snapshot item (--item-shape reference): the authoritative item has no
 * resolvedRepositoryIdentityRoots; the same-sequence enrichment item (and a resume's metadata
 * snapshot) has them, with the projects whose roots resolved, each with its scripts.
 */
export type LeanSnapshotItem = typeof SnapshotItem.Type;

export const ReferenceSnapshotItem = Schema.Struct({
  kind: Schema.Literal("snapshot"),
  snapshot: ShellSnapshot,
  resolvedRepositoryIdentityRoots: Schema.optional(Schema.Array(Schema.String)),
});

export const ResumeItem = Schema.Struct({
  kind: Schema.Literal("resume"),
  fromSequence: Schema.Number,
  toSequence: Schema.Number,
});
export const ProjectUpdatedItem = Schema.Struct({
  kind: Schema.Literal("project.updated"),
  sequence: Schema.Number,
  project: ProjectShell,
});
export const SynchronizedItem = Schema.Struct({
  kind: Schema.Literal("synchronized"),
  sequence: Schema.Number,
});
export const ShellItem = Schema.Union(
  SnapshotItem,
  ReferenceSnapshotItem,
  ResumeItem,
  ProjectUpdatedItem,
  SynchronizedItem,
);
export type ShellItem = typeof ShellItem.Type;

/** Thread stream items, as the reference server names them: a snapshot of the thread's projection, one event, the marker. */
export const ThreadSnapshotItem = Schema.Struct({
  kind: Schema.Literal("snapshot"),
  snapshotSequence: Schema.Number,
  projection: Schema.Struct({
    thread: Schema.Unknown,
    messages: Schema.Array(Schema.Unknown),
    turnItems: Schema.Array(Schema.Unknown),
    updatedAt: Schema.String,
  }),
});
export const ThreadEventItem = Schema.Struct({
  kind: Schema.Literal("event"),
  sequence: Schema.Number,
  event: Schema.Struct({
    id: Schema.String,
    threadId: Schema.String,
    type: Schema.String,
    occurredAt: Schema.String,
    payload: Schema.Unknown,
  }),
});
/** The thread stream's completion marker: `{kind:"synchronized"}` with no sequence, as the reference server sends it. */
export const ThreadSynchronizedItem = Schema.Struct({ kind: Schema.Literal("synchronized") });
export const ThreadStreamItem = Schema.Union(ThreadSnapshotItem, ThreadEventItem, ThreadSynchronizedItem);
export type ThreadStreamItem = typeof ThreadStreamItem.Type;

/** subscribeThread (or a thread command) for a thread the store does not have. */
export class ThreadNotFoundError extends Schema.TaggedError<ThreadNotFoundError>()("ThreadNotFoundError", {
  threadId: Schema.String,
  message: Schema.String,
}) {}

/** A live tail that would retain more than its budget while the client does not ACK: resume from the last sequence. */
export class LiveBufferError extends Schema.TaggedError<LiveBufferError>()("LiveBufferError", {
  message: Schema.String,
  maxItems: Schema.Number,
  maxBytes: Schema.Number,
}) {}

/** A call whose connection's token lacks the scope the RPC needs. The connection stays up. */
export class AuthorizationError extends Schema.TaggedError<AuthorizationError>()("AuthorizationError", {
  requiredScope: Schema.Literal(...SCOPES),
  message: Schema.String,
}) {}

/** subscribeShell with an afterSequence beyond the store's latest sequence. */
export class CursorAheadError extends Schema.TaggedError<CursorAheadError>()("CursorAheadError", {
  afterSequence: Schema.Number,
  latestSequence: Schema.Number,
  message: Schema.String,
}) {}

export class ProjectNotFoundError extends Schema.TaggedError<ProjectNotFoundError>()("ProjectNotFoundError", {
  projectId: Schema.String,
  message: Schema.String,
}) {}

/** Checks the connection's scopes against the RPC's; see auth.ts for how scopes reach it. */
export class Authorization extends RpcMiddleware.Tag<Authorization>()("catchup/Authorization", {
  failure: AuthorizationError,
}) {}

export const FixtureMetaSchema = Schema.Struct({
  schemaVersion: Schema.Number,
  generatorVersion: Schema.String,
  projects: Schema.Number,
  scriptBytesMin: Schema.Number,
  scriptBytesMax: Schema.Number,
  scriptsPerProject: Schema.Number,
  events: Schema.Number,
  seed: Schema.Number,
  cursorSequence: Schema.Number,
  latestSequence: Schema.Number,
  projectCount: Schema.Number,
  eventCount: Schema.Number,
  postCursorPayloadBytes: Schema.Number,
  threads: Schema.Number,
  threadEvents: Schema.Number,
  threadId: Schema.String,
  threadCursorSequence: Schema.Number,
  threadLatestSequence: Schema.Number,
  contentSha256: Schema.String,
});

export const ServerConfigResponse = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  delivery: Schema.Literal("legacy", "batched"),
  limits: Schema.Struct({
    maxReplayEvents: Schema.Number,
    maxReplayBytes: Schema.Number,
    maxInitialChunkBytes: Schema.NullOr(Schema.Number),
    maxProjectedBytes: Schema.optional(Schema.NullOr(Schema.Number)),
    maxFrameBytes: Schema.Number,
  }),
  /** How catch-up items are shaped: the reference server's, or this server's earlier lean items. */
  itemShape: Schema.optional(Schema.Literal("reference", "lean")),
  /** Counters for tests and diagnostics. */
  stats: Schema.optional(
    Schema.Struct({
      replayPagesRead: Schema.Number,
      /** The shell subscriptions' live tails: items retained now, and tails ended by their budget. */
      shell: Schema.optional(Schema.Struct({ liveRetainedItems: Schema.Number, liveOverflows: Schema.Number })),
      /** Thread catch-ups so far: snapshots, replays, and why each fallback to a snapshot happened. */
      threads: Schema.optional(
        Schema.Struct({
          snapshots: Schema.Number,
          replays: Schema.Number,
          fallbacks: Schema.Record({ key: Schema.String, value: Schema.Number }),
          liveRetainedItems: Schema.Number,
          liveOverflows: Schema.Number,
        }),
      ),
    }),
  ),
  fixture: FixtureMetaSchema,
  latestSequence: Schema.Number,
});

export const SubscribeShell = Rpc.make("orchestration.subscribeShell", {
  payload: {
    afterSequence: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
    requestCompletionMarker: Schema.optional(Schema.Boolean),
  },
  success: ShellItem,
  error: Schema.Union(CursorAheadError, LiveBufferError),
  stream: true,
});

export const SubscribeThread = Rpc.make("orchestration.subscribeThread", {
  payload: {
    threadId: Schema.String,
    afterSequence: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
    requestCompletionMarker: Schema.optional(Schema.Boolean),
    /** Accepted for the reference server's clients; this server always sends the whole projection. */
    turnLimit: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  },
  success: ThreadStreamItem,
  error: Schema.Union(ThreadNotFoundError, LiveBufferError),
  stream: true,
});

export const GetConfig = Rpc.make("server.getConfig", { success: ServerConfigResponse });

export const DispatchCommand = Rpc.make("orchestration.dispatchCommand", {
  payload: Schema.Union(
    Schema.Struct({
      type: Schema.Literal("project.update"),
      projectId: Schema.String,
      title: Schema.String,
    }),
    /** Appends a message to a thread (a `message.updated` event), published to its subscribers. */
    Schema.Struct({
      type: Schema.Literal("thread.message.append"),
      threadId: Schema.String,
      role: Schema.Literal("user", "assistant"),
      text: Schema.String,
    }),
  ),
  success: Schema.Struct({ sequence: Schema.Number }),
  error: Schema.Union(ProjectNotFoundError, ThreadNotFoundError),
});

export class ServerRpcs extends RpcGroup.make(SubscribeShell, SubscribeThread, GetConfig, DispatchCommand).middleware(
  Authorization,
) {}

/** The scope each RPC requires. */
export const REQUIRED_SCOPE: Record<string, Scope> = {
  [SubscribeShell._tag]: "orchestration:read",
  [SubscribeThread._tag]: "orchestration:read",
  [GetConfig._tag]: "orchestration:read",
  [DispatchCommand._tag]: "orchestration:operate",
};
