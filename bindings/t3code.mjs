// The binding for T3 Code's server (the reference server: github:johnnyelwailer/t3code at be7d35aae,
// Effect 4, Node 24). It seeds an empty base directory through the server's own CLI and RPCs:
//
//   prepare    `bin.mjs auth session issue --base-dir <state> --ttl 3650d --label catchup-bench --json`
//              creates the store (userdata/state.sqlite) and prints a bearer token with the
//              orchestration:operate scope the writes need.
//   write      each fixture project event becomes `orchestration.dispatchCommand` calls:
//              project.created      -> project.create (it takes no scripts), then project.meta.update
//                                      with the scripts
//              project.meta-updated -> project.meta.update (title, scripts, workspaceRoot: what it carries)
//              project.deleted      -> project.delete
//              Thread events are not written (kinds: ["project"]): the harness skips the thread cases.
//   summarize  reads the items of `orchestration.subscribeShell {requestCompletionMarker: true}`.
//
// Options (--binding-option key=value): `node`, the Node executable that runs the server's CLI (default:
// the checkout's .catchup-bench/tools/bin/node when bindings/t3code-build.sh put it there, else "node"
// from PATH; T3 Code needs Node 24: under Node 20 its bin.mjs exits 0 without a word), and `bin`, its
// bundled server (default apps/server/dist/bin.mjs, relative to the variant's checkout), and
// `workspaces`, the folder the projects' workspace roots are created in (see below).
//
// Quirks, read from the server's source (apps/server/src/...):
// - Workspace roots must exist: WorkspacePaths.normalizeWorkspaceRoot stats the root and fails with
//   WorkspaceRootNotExistsError unless the command says createWorkspaceRootIfMissing: true, in which
//   case the server creates it (mkdir -p). The fixture's roots (/home/dev/work/...) are therefore
//   mapped below one folder outside any git repository (option `workspaces`, default
//   $TMPDIR/catchup-bench-t3code-workspaces: /home/dev/work/x becomes <workspaces>/home/dev/work/x),
//   created there by the server. Not inside the state folder: the store keeps absolute roots, and each
//   trial runs on a copy of the state elsewhere, so roots there would point at a folder gone after the
//   seed. Not inside a repository: the server runs git in each root for every shell snapshot, and
//   inside one it would find that repository's remotes. Roots stay distinct, as the server requires
//   of active projects (decider.ts: requireActiveProjectWorkspaceRootAbsent).
// - The server trims every script's id, name and command (TrimmedNonEmptyString in
//   packages/contracts), and it stamps createdAt with the time it received the command.
// - A command id the server has seen is answered with the sequence it recorded (its command
//   receipts), so the ids here are derived from the fixture (metadata.commandId plus a suffix) and a
//   re-run against the same store is a no-op that returns the same sequences.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Keeps the server off the network (DESIGN.md §8): no telemetry, every proxied request to a dead port. */
const OFFLINE_ENV = Object.freeze({
  T3CODE_TELEMETRY_ENABLED: "false",
  T3CODE_POSTHOG_HOST: "http://127.0.0.1:9",
  NODE_USE_ENV_PROXY: "1",
  HTTP_PROXY: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
  NO_PROXY: "127.0.0.1,localhost,::1",
});

const DEFAULT_NODE = "node";
const DEFAULT_BIN = "apps/server/dist/bin.mjs";
/** Where bindings/t3code-build.sh installs Node 24 in the checkout. */
const BUILT_NODE = ".catchup-bench/tools/bin/node";
/** The server's own floor (apps/server/package.json engines: ^22.16 || ^23.11 || >=24.10); the study ran 24. */
const MIN_NODE_MAJOR = 22;
const MIN_NODE_MINOR = 16;
const ISSUE_TIMEOUT_MS = 120_000;
const DISPATCH_TAG = "orchestration.dispatchCommand";

/** @param {import("./binding.js").RunResult} r @param {number} [n] */
function lastLines(r, n = 5) {
  const text = `${r.stderr ?? ""}`.trim() || `${r.stdout ?? ""}`.trim();
  if (text === "") return "(it printed nothing)";
  return text.split("\n").slice(-n).join(" | ");
}

/** @param {unknown} v @returns {v is Record<string, unknown>} */
function isRecord(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * The fixture's workspace root, moved under the workspaces folder (absolute roots keep their path
 * below it, so distinct roots stay distinct).
 * @param {string} workspaces
 * @param {unknown} root
 * @param {number} sequence
 */
function workspaceRootIn(workspaces, root, sequence) {
  if (typeof root !== "string" || root.trim() === "") {
    throw new Error(`t3code binding: fixture event ${sequence} has no workspaceRoot`);
  }
  const rel = path.posix.normalize(root.trim().replace(/\\/g, "/")).replace(/^\/+/, "");
  if (rel === "" || rel === "." || rel.split("/").includes("..")) {
    throw new Error(
      `t3code binding: fixture event ${sequence}'s workspaceRoot ${JSON.stringify(root)} cannot be placed below ${workspaces}`,
    );
  }
  return path.join(workspaces, rel);
}

/** @param {import("./binding.js").WriteContext} ctx */
function workspacesOf(ctx) {
  return path.resolve(ctx.options.workspaces ?? path.join(os.tmpdir(), "catchup-bench-t3code-workspaces"));
}

/**
 * A fixture script as the server's ProjectScript (id, name, command, icon, runOnWorktreeCreate, and the
 * optional previewUrl/autoOpenPreview when the fixture has them).
 * @param {unknown} scripts
 * @param {number} sequence
 */
function scriptsOf(scripts, sequence) {
  if (!Array.isArray(scripts)) throw new Error(`t3code binding: fixture event ${sequence}'s scripts is not an array`);
  return scripts.map((s, i) => {
    if (!isRecord(s) || typeof s.command !== "string") {
      throw new Error(`t3code binding: fixture event ${sequence}'s script ${i} has no command`);
    }
    /** @type {Record<string, unknown>} */
    const out = {
      id: s.id,
      name: s.name,
      command: s.command,
      icon: s.icon ?? "play",
      runOnWorktreeCreate: s.runOnWorktreeCreate ?? false,
    };
    if (s.previewUrl !== undefined) out.previewUrl = s.previewUrl;
    if (s.autoOpenPreview !== undefined) out.autoOpenPreview = s.autoOpenPreview;
    return out;
  });
}

/**
 * One command through orchestration.dispatchCommand; its Exit's value is `{sequence}`.
 * @param {import("./binding.js").WriteContext} ctx
 * @param {Record<string, unknown>} command
 * @param {number} fixtureSequence
 * @returns {Promise<number>}
 */
async function dispatch(ctx, command, fixtureSequence) {
  /** @type {unknown} */
  let value;
  try {
    value = await ctx.rpc.call(DISPATCH_TAG, command);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new Error(
      `t3code binding: ${command.type} (${command.commandId}) for fixture event ${fixtureSequence} failed: ${why}`,
    );
  }
  const seq = isRecord(value) ? value.sequence : undefined;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) {
    throw new Error(
      `t3code binding: ${command.type} for fixture event ${fixtureSequence} was answered without a sequence: ${JSON.stringify(value)?.slice(0, 200)}`,
    );
  }
  return seq;
}

/**
 * The T3 Code server's JSON (pretty-printed over several lines), from what `auth session issue --json` printed.
 * @param {string} stdout
 * @returns {Record<string, unknown> | undefined}
 */
function parseIssued(stdout) {
  const text = stdout.trim();
  const from = text.indexOf("{");
  const to = text.lastIndexOf("}");
  if (from < 0 || to < from) return undefined;
  try {
    const v = JSON.parse(text.slice(from, to + 1));
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records a project of a snapshot item or an upsert, merged by id: a later item's fields win, and the
 * scripts an item leaves out are kept.
 * @param {Map<string, Record<string, unknown>>} projects
 * @param {unknown} pr
 */
function mergeProject(projects, pr) {
  if (!isRecord(pr) || typeof pr.id !== "string") return;
  const prev = projects.get(pr.id);
  projects.set(pr.id, prev ? { ...prev, ...pr, scripts: Array.isArray(pr.scripts) ? pr.scripts : prev.scripts } : pr);
}

/**
 * The Node that runs the server: the `node` option (a path with a slash is relative to the checkout),
 * else the Node 24 that bindings/t3code-build.sh puts in the checkout, else "node" from PATH.
 * @param {import("./binding.js").PrepareContext} ctx
 */
function nodeFor(ctx) {
  const opt = ctx.options.node;
  if (opt !== undefined && opt !== "") return opt.includes("/") ? path.resolve(ctx.cwd, opt) : opt;
  const built = path.join(ctx.cwd, BUILT_NODE);
  return fs.existsSync(built) ? built : DEFAULT_NODE;
}

/** @type {import("./binding.js").Binding} */
const binding = {
  name: "t3code",
  kinds: ["project"],
  options: {
    node: "the Node that runs the server's CLI (Node 24; a path with a / is relative to the checkout)",
    bin: `the server's bundle, relative to the checkout (default ${DEFAULT_BIN})`,
    workspaces: "the folder the projects' workspace roots are created in, outside any git repository",
  },
  // The server's trace files (server.trace.ndjson, rotated at 10 MiB up to 10 files: about 100 MiB
  // after a seed) and per-session logs.
  exclude: ["userdata/logs"],

  async prepare(ctx) {
    const node = nodeFor(ctx);
    const bin = ctx.options.bin ?? DEFAULT_BIN;
    const binPath = path.resolve(ctx.cwd, bin);
    if (!fs.existsSync(binPath)) {
      throw new Error(
        `t3code binding: the server bundle ${binPath} does not exist (build the checkout first, or pass --binding-option bin=PATH relative to ${ctx.cwd})`,
      );
    }

    // Under Node 20 the bundle exits 0 and prints nothing, so say which Node it got before anything else.
    /** @type {import("./binding.js").RunResult} */
    let version;
    try {
      version = await ctx.run([node, "-p", "process.versions.node"], { timeoutMs: 30_000 });
    } catch (e) {
      throw new Error(
        `t3code binding: cannot run ${node} (--binding-option node=PATH names a Node 24 executable): ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const v = version.stdout.trim();
    const [major = 0, minor = 0] = v.split(".").map(Number);
    if (version.code !== 0 || !/^\d+\.\d+\.\d+/.test(v)) {
      throw new Error(
        `t3code binding: ${node} -p process.versions.node exited with code ${version.code}: ${lastLines(version)}`,
      );
    }
    if (major < MIN_NODE_MAJOR || (major === MIN_NODE_MAJOR && minor < MIN_NODE_MINOR)) {
      throw new Error(
        `t3code binding: ${node} is Node ${v}; T3 Code's server needs Node 24 (its engines: ^22.16 || ^23.11 || >=24.10). Pass --binding-option node=PATH`,
      );
    }

    const argv = [
      node,
      bin,
      "auth",
      "session",
      "issue",
      "--base-dir",
      ctx.stateDir,
      "--ttl",
      "3650d",
      "--label",
      "catchup-bench",
      "--json",
    ];
    ctx.log(`t3code: issuing a token in ${ctx.stateDir} (Node ${v})`);
    const r = await ctx.run(argv, { env: { ...OFFLINE_ENV }, timeoutMs: ISSUE_TIMEOUT_MS });
    if (r.code !== 0) {
      throw new Error(`t3code binding: \`${bin} auth session issue\` exited with code ${r.code}: ${lastLines(r)}`);
    }
    const issued = parseIssued(r.stdout);
    const token = issued?.token;
    if (typeof token !== "string" || token === "") {
      throw new Error(`t3code binding: \`${bin} auth session issue --json\` printed no token: ${lastLines(r)}`);
    }
    const scopes = Array.isArray(issued?.scopes) ? issued.scopes : undefined;
    if (scopes && !scopes.includes("orchestration:operate")) {
      throw new Error(
        `t3code binding: the issued token lacks the orchestration:operate scope the writes need (it has ${scopes.join(", ")})`,
      );
    }
    return { token };
  },

  async write(event, ctx) {
    const p = event.payload;
    const projectId = p.projectId;
    if (typeof projectId !== "string" || projectId === "") {
      throw new Error(`t3code binding: fixture event ${event.sequence} (${event.type}) has no projectId`);
    }
    const base =
      typeof event.metadata.commandId === "string" && event.metadata.commandId !== ""
        ? event.metadata.commandId
        : `fixture-${event.sequence}`;

    switch (event.type) {
      case "project.created": {
        let seq = await dispatch(
          ctx,
          {
            type: "project.create",
            commandId: `${base}:create`,
            projectId,
            title: p.title,
            workspaceRoot: workspaceRootIn(workspacesOf(ctx), p.workspaceRoot, event.sequence),
            createWorkspaceRootIfMissing: true,
            createdAt: event.occurredAt,
          },
          event.sequence,
        );
        const scripts = p.scripts === undefined ? [] : scriptsOf(p.scripts, event.sequence);
        if (scripts.length > 0) {
          seq = await dispatch(
            ctx,
            { type: "project.meta.update", commandId: `${base}:scripts`, projectId, scripts },
            event.sequence,
          );
        }
        return seq;
      }
      case "project.meta-updated": {
        /** @type {Record<string, unknown>} */
        const command = { type: "project.meta.update", commandId: `${base}:meta`, projectId };
        if (p.title !== undefined) command.title = p.title;
        if (p.scripts !== undefined) command.scripts = scriptsOf(p.scripts, event.sequence);
        if (p.workspaceRoot !== undefined)
          command.workspaceRoot = workspaceRootIn(workspacesOf(ctx), p.workspaceRoot, event.sequence);
        return dispatch(ctx, command, event.sequence);
      }
      case "project.deleted":
        return dispatch(
          ctx,
          { type: "project.delete", commandId: `${base}:delete`, projectId, force: true },
          event.sequence,
        );
      default:
        throw new Error(
          `t3code binding: fixture event ${event.sequence} has type ${event.type}, which this binding cannot write`,
        );
    }
  },

  summarize(items) {
    /** @type {Map<string, Record<string, unknown>>} */
    const projects = new Map();
    let sequence = 0;
    for (const item of items) {
      if (!isRecord(item)) continue;
      if (isRecord(item.snapshot)) {
        // An authoritative snapshot, or (newer servers) a same-sequence enrichment item repeating its
        // projects with their scripts: merge by id, keeping scripts an item leaves out.
        const s = item.snapshot;
        if (typeof s.snapshotSequence === "number") sequence = Math.max(sequence, s.snapshotSequence);
        for (const pr of Array.isArray(s.projects) ? s.projects : []) {
          mergeProject(projects, pr);
        }
        continue;
      }
      // Events a resume replays (or the live tail buffered before the marker).
      if (typeof item.sequence === "number") sequence = Math.max(sequence, item.sequence);
      if (item.kind === "project-upserted") {
        mergeProject(projects, item.project);
      } else if (item.kind === "project-removed" && typeof item.projectId === "string") {
        projects.delete(item.projectId);
      }
    }
    let count = 0;
    let scriptBytes = 0;
    for (const pr of projects.values()) {
      if (pr.deletedAt !== undefined && pr.deletedAt !== null) continue;
      count += 1;
      for (const s of Array.isArray(pr.scripts) ? pr.scripts : []) {
        if (isRecord(s) && typeof s.command === "string") scriptBytes += Buffer.byteLength(s.command, "utf8");
      }
    }
    return { projects: count, scriptBytes, sequence };
  },
};

export default binding;
