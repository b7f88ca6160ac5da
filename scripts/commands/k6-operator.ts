// `catchup-bench k6-operator SCRIPT --parallelism N --out DIR`: writes DIR/testrun.json (a k6-operator
// TestRun), DIR/collector.json (the pod that makes and fetches the run's results folder), DIR/run.sh
// (ship, run, wait, judge, collect, merge) and DIR/README.md.
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import type { CommandModule } from "yargs";
import { scenarioConfigFromEnv } from "../../scenarios/lib/env.js";
import { credentialIn, envSecretProblem } from "../k6operator/env-secrets.js";
import { imageRefProblem } from "../k6operator/image-ref.js";
import {
  ARCHIVE_FILE,
  DEFAULT_RUN_ID_LENGTH,
  NAME_AND_RUN_ID_MAX,
  type OperatorOptions,
  readme,
  SINGLE_VU_SCRIPTS,
  testRunManifest,
} from "../k6operator/manifest.js";
import { COLLECTOR_FILE, collectorPod, runScript } from "../k6operator/run-script.js";
import { agentReadme, type ServerPodOptions, SNIPPET_FILE, serverPodSnippet } from "../k6operator/server-pod.js";
import { DEFAULT_CLIENTS } from "../k6operator/testrun-limits.js";
import { K6_OPERATOR_COMMAND, K6_OPERATOR_OPTIONS } from "../options/k6-operator.js";
import { readFlags } from "../options/spec.js";
import { applyOptions } from "../options/yargs.js";
import { UsageError, writableDirFlag } from "../util/usage.js";

export interface K6OperatorArgs {
  script: string;
  [flag: string]: unknown;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** run.sh names the TestRun NAME-RUN_ID: NAME leaves room for its default run id. */
const NAME_MAX = NAME_AND_RUN_ID_MAX - DEFAULT_RUN_ID_LENGTH;
/** Our scripts: each reads its parameters through scenarioConfigFromEnv (URL is required). */
const OUR_SCRIPTS: readonly string[] = [...SINGLE_VU_SCRIPTS, ...Object.keys(DEFAULT_CLIENTS)];
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Validates the arguments into the manifest's options (a UsageError names the first bad one). */
export function operatorOptions(args: K6OperatorArgs): {
  options: OperatorOptions;
  outDir: string;
  serverPod: ServerPodOptions | null;
} {
  const f = readFlags(K6_OPERATOR_OPTIONS, args);
  if (f.parallelism === undefined) throw new UsageError("--parallelism is required (the number of k6 runners)");
  if (f.out === undefined) throw new UsageError("--out is required (the directory for the manifest)");
  const script = args.script;
  if (!script.endsWith(".js") || !existsSync(script) || !statSync(script).isFile()) {
    throw new UsageError(`<script> must be an existing k6 script (.js) (got ${JSON.stringify(script)})`);
  }
  if (f.parallelism > 1 && (SINGLE_VU_SCRIPTS as readonly string[]).includes(basename(script))) {
    throw new UsageError(
      `${basename(script)} runs one VU, so --parallelism ${f.parallelism} would leave runners idle; use scenarios/scaleout.js (one session per VU)`,
    );
  }
  for (const [flag, value, max] of [
    ["name", f.name, NAME_MAX],
    ["namespace", f.namespace, 53],
    ["token-secret", f["token-secret"], 53],
    ["pvc", f.pvc, 53],
  ] as const) {
    if (value !== undefined && (!DNS_LABEL.test(value) || value.length > max)) {
      throw new UsageError(
        `--${flag} must be a DNS label (a-z, 0-9, -; at most ${max} characters${flag === "name" ? ": run.sh names the TestRun NAME-RUN_ID" : ""}) (got ${JSON.stringify(value)})`,
      );
    }
  }
  for (const flag of ["image", "agent-image"] as const) {
    const problem = imageRefProblem(flag, f[flag]);
    if (problem) throw new UsageError(problem);
  }
  const env: Record<string, string> = {};
  for (const kv of f.env ?? []) {
    const i = kv.indexOf("=");
    const key = i > 0 ? kv.slice(0, i) : "";
    if (!ENV_KEY.test(key))
      throw new UsageError(`--env must be KEY=VALUE with KEY a variable name (got ${JSON.stringify(kv)})`);
    const secret = envSecretProblem(key, kv.slice(i + 1));
    if (secret) throw new UsageError(secret);
    if (key === "SUMMARY")
      throw new UsageError("--env SUMMARY is set by the manifest (each runner's file on the volume)");
    env[key] = kv.slice(i + 1);
  }
  // k6-operator refuses a test whose max VUs are below parallelism (its initializer's `k6 inspect`).
  const scriptDefault = DEFAULT_CLIENTS[basename(script)];
  const clients = env.CLIENTS === undefined ? (scriptDefault ?? null) : Number(env.CLIENTS);
  if (clients !== null && Number.isInteger(clients) && clients < f.parallelism) {
    throw new UsageError(
      `${env.CLIENTS === undefined ? `${basename(script)} runs ${clients} VU${clients === 1 ? "" : "s"} by default (CLIENTS)` : `--env CLIENTS=${clients}`}, fewer than --parallelism ${f.parallelism}: k6-operator would refuse the run (max VUs below parallelism); set --env CLIENTS=N with N >= ${f.parallelism}`,
    );
  }
  requiredEnvProblem(script, env);
  if (f.output === "prometheus" && f["prometheus-url"] === undefined) {
    throw new UsageError("--output prometheus needs --prometheus-url (the remote-write endpoint)");
  }
  const promCredential = f["prometheus-url"] === undefined ? null : credentialIn(f["prometheus-url"]);
  if (promCredential) {
    throw new UsageError(
      `--prometheus-url carries ${promCredential}, which testrun.json would hold in clear; give the endpoint without it`,
    );
  }
  const outDir = writableDirFlag("out", f.out);
  return {
    outDir,
    serverPod: serverPodOptions(f, env),
    options: {
      scriptPath: relative(outDir, resolve(script)),
      parallelism: f.parallelism,
      separate: f.separate,
      name: f.name,
      namespace: f.namespace ?? null,
      image: f.image,
      env,
      tokenSecret: f["token-secret"] ?? null,
      output: f.output as "json" | "prometheus",
      prometheusUrl: f["prometheus-url"] ?? null,
      pvc: f.pvc,
      archivePath: ARCHIVE_FILE,
    },
  };
}

/** Our scripts read URL and the session parameters in init: a missing or bad one would fail `k6 archive`. */
function requiredEnvProblem(script: string, env: Record<string, string>): void {
  if (!OUR_SCRIPTS.includes(basename(script))) return;
  try {
    scenarioConfigFromEnv(env);
  } catch (e) {
    throw new UsageError(`--env: ${basename(script)} needs its parameters here: ${(e as Error).message}`);
  }
}

/** The agent sidecar's options with --server-pod-snippet, else null (--server-port alone is refused). */
function serverPodOptions(
  f: ReturnType<typeof readFlags<typeof K6_OPERATOR_OPTIONS>>,
  env: Record<string, string>,
): ServerPodOptions | null {
  if (!f["server-pod-snippet"]) {
    if (f["server-port"] !== undefined) throw new UsageError("--server-port is for --server-pod-snippet");
    return null;
  }
  let port = f["server-port"] ?? null;
  if (port === null && env.URL !== undefined) {
    try {
      const u = new URL(env.URL);
      port = u.port === "" ? (u.protocol === "wss:" ? 443 : 80) : Number(u.port);
    } catch {
      // refused below, naming what is missing
    }
  }
  if (port === null) {
    throw new UsageError(
      "--server-pod-snippet needs the server's port: --server-port PORT, or --env URL=ws://HOST:PORT/ws",
    );
  }
  return { agentImage: f["agent-image"], serverPort: port, pvc: f.pvc, namespace: f.namespace ?? null };
}

function writeAtomically(path: string, text: string, mode = 0o644): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

/** The command's work, callable from a program: writes the files and returns what it wrote. */
export function writeOperatorRun(args: K6OperatorArgs, out: (text: string) => void): string[] {
  const { options, outDir, serverPod } = operatorOptions(args);
  const manifestFile = "testrun.json";
  mkdirSync(outDir, { recursive: true });
  const texts: Array<[string, string, number?]> = [
    [manifestFile, `${JSON.stringify(testRunManifest(options), null, 2)}\n`],
    [COLLECTOR_FILE, `${JSON.stringify(collectorPod(options), null, 2)}\n`],
    ["run.sh", runScript(options, manifestFile), 0o755],
    ["README.md", readme(options) + (serverPod ? `\n${agentReadme(serverPod)}` : "")],
    ...(serverPod ? [[SNIPPET_FILE, serverPodSnippet(serverPod)] as [string, string]] : []),
  ];
  for (const [file, text, mode] of texts) writeAtomically(join(outDir, file), text, mode);
  const files = texts.map(([file]) => join(outDir, file));
  out(
    `Wrote ${files.join(", ")}\nRun it (README.md says what it does and what its exit code means):\n  sh ${join(outDir, "run.sh")}\n`,
  );
  return files;
}

export const k6OperatorCommand: CommandModule<object, K6OperatorArgs> = {
  command: K6_OPERATOR_COMMAND.command,
  describe: K6_OPERATOR_COMMAND.describe,
  // --env takes several KEY=VALUE after one flag.
  builder: (y) => applyOptions(y, K6_OPERATOR_COMMAND).array("env") as never,
  handler: (argv) => {
    writeOperatorRun(argv, (t) => process.stdout.write(t));
  },
};
