// A k6-operator TestRun for one of the k6 scripts, and the commands that ship it. Pure: options in,
// manifest object and shell text out.
//
// Why each part: a ConfigMap carries files but no directories, so the script travels as the output
// of `k6 archive` (the script and its lib/ modules in one tar). k6-operator splits the VUs across
// `parallelism` runners, so only a script whose sessions are VUs (scaleout.js) scales out. Each
// runner's handleSummary sees only that runner, so every runner writes its own summary (named by
// its pod) on a shared volume, for `catchup-bench report --merge`. Kubernetes expands $(POD_NAME)
// in env values and container arguments from the pod's own env. Each run.sh run gets its own run
// id (RUN_ID): the runners' summaries carry it and are named by it, so `--merge` can refuse a stale
// summary a previous run left on the volume.
import {
  CLIENT_SIDE_APPLY_LIMIT,
  CONFIGMAP_LIMIT,
  MIN_RUNNER_K6,
  RUNNER_SECURITY_CONTEXT,
  SINGLE_VU_SCRIPTS as SINGLE_VU,
} from "./limits.js";

export const ARCHIVE_FILE = "archive.tar";
export const RESULTS_MOUNT = "/results";
/** Scripts that run one VU: more runners than one would idle. */
export const SINGLE_VU_SCRIPTS = SINGLE_VU;
/** Stands for the run id in testrun.json; run.sh writes the TestRun with its own id in its place. */
export const RUN_ID_PLACEHOLDER = "@RUN_ID@";

export type OutputKind = "json" | "prometheus";

export interface OperatorOptions {
  /** The script's path as given (for `k6 archive`), and its file name. */
  scriptPath: string;
  parallelism: number;
  /** Each runner on its own node (needs at least `parallelism` schedulable nodes). */
  separate: boolean;
  name: string;
  namespace: string | null;
  image: string;
  /** Script parameters (URL, CLIENTS, ...): become the runners' environment. */
  env: Readonly<Record<string, string>>;
  /** Kubernetes Secret holding the bearer token under key "token"; null: the script's default. */
  tokenSecret: string | null;
  output: OutputKind;
  prometheusUrl: string | null;
  /** PersistentVolumeClaim (ReadWriteMany) mounted at /results in every runner. */
  pvc: string;
  /** Where the archive is written (a path relative to where run.sh runs). */
  archivePath: string;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
}

export interface TestRunManifest {
  apiVersion: "k6.io/v1alpha1";
  kind: "TestRun";
  metadata: { name: string; namespace?: string };
  spec: {
    parallelism: number;
    separate: boolean;
    arguments: string;
    script: { configMap: { name: string; file: string } };
    runner: {
      image: string;
      env: EnvVar[];
      volumes: Array<{ name: string; persistentVolumeClaim: { claimName: string } }>;
      volumeMounts: Array<{ name: string; mountPath: string }>;
      securityContext: { runAsUser: number; runAsGroup: number; fsGroup: number };
    };
  };
}

/** The TestRun. */
export function testRunManifest(o: OperatorOptions): TestRunManifest {
  const env: EnvVar[] = [
    { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ...Object.entries(o.env)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => ({ name, value })),
    { name: "RUN_ID", value: RUN_ID_PLACEHOLDER },
    // k6 does not create a summary file's directory: /results is the mounted volume; the run id in
    // the name keeps one run's files apart from the previous runs' on the same volume.
    { name: "SUMMARY", value: `${RESULTS_MOUNT}/summary-$(RUN_ID)-$(POD_NAME).json` },
    // The script reads the classic handleSummary data.
    { name: "K6_NEW_MACHINE_READABLE_SUMMARY", value: "false" },
  ];
  if (o.tokenSecret) env.push({ name: "TOKEN", valueFrom: { secretKeyRef: { name: o.tokenSecret, key: "token" } } });
  const args =
    o.output === "json"
      ? [`--out json=${RESULTS_MOUNT}/k6-$(RUN_ID)-$(POD_NAME).json`]
      : ["--out experimental-prometheus-rw", `--tag testid=${o.name}`];
  if (o.output === "prometheus" && o.prometheusUrl) {
    env.push({ name: "K6_PROMETHEUS_RW_SERVER_URL", value: o.prometheusUrl });
    env.push({ name: "K6_PROMETHEUS_RW_TREND_STATS", value: "min,p(50),p(90),p(95),max,count" });
  }
  return {
    apiVersion: "k6.io/v1alpha1",
    kind: "TestRun",
    metadata: { name: o.name, ...(o.namespace ? { namespace: o.namespace } : {}) },
    spec: {
      parallelism: o.parallelism,
      // One runner per node (runners then do not share a node's network and CPU); needs as many nodes.
      separate: o.separate,
      arguments: args.join(" "),
      script: { configMap: { name: configMapName(o.name), file: ARCHIVE_FILE } },
      runner: {
        image: o.image,
        env,
        volumes: [{ name: "results", persistentVolumeClaim: { claimName: o.pvc } }],
        volumeMounts: [{ name: "results", mountPath: RESULTS_MOUNT }],
        // The grafana/k6 image runs as uid 12345: fsGroup lets it write to a volume owned by root.
        securityContext: { ...RUNNER_SECURITY_CONTEXT },
      },
    },
  };
}

export function configMapName(name: string): string {
  return `${name}-script`;
}

/** POSIX shell single-quoting. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The commands that build the archive, ship it, and start the run (run.sh). */
export function shipCommands(o: OperatorOptions, manifestFile: string): string[] {
  const ns = o.namespace ? ` --namespace ${shellQuote(o.namespace)}` : "";
  const archive = shellQuote(o.archivePath);
  const storm = o.scriptPath.endsWith("storm.js") && o.env.START_AT === undefined;
  return [
    // A fresh id per run: the TestRun's summaries are named by it and carry it (--merge checks it).
    `RUN_ID="\${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)}"`,
    // storm.js's runners start one after another, each after its own setup(): a shared instant lines
    // their schedules up. It travels in the archive's environment to every runner.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    ...(storm ? ['START_AT="${START_AT:-$(( $(date +%s) + ${START_LEAD_S:-120} ))000}"'] : []),
    // The archive keeps the script, its relative imports (lib/) and its options as evaluated now: the
    // parameters that shape options (CLIENTS sets the VUs) must be given here too, not only to the runners.
    `k6 archive -e RUN_ID="$RUN_ID" ${storm ? '-e START_AT="$START_AT" ' : ""}${Object.entries(o.env)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `-e ${shellQuote(`${k}=${v}`)} `)
      .join("")}${shellQuote(o.scriptPath)} -O ${archive}`,
    // In the ConfigMap the tar is base64 (4/3 of its size); a ConfigMap holds at most 1 MiB.
    `size=$(wc -c < ${archive}); echo "${o.archivePath}: $size bytes, $(( (size + 2) / 3 * 4 )) in the ConfigMap (limit ${CONFIGMAP_LIMIT}; client-side kubectl apply would stop at ${CLIENT_SIDE_APPLY_LIMIT}); run id $RUN_ID"`,
    `[ $(( (size + 2) / 3 * 4 )) -le ${CONFIGMAP_LIMIT} ] || { echo "${o.archivePath} is too big for a ConfigMap (${CONFIGMAP_LIMIT} bytes as base64): fewer CLIENTS per archive" >&2; exit 1; }`,
    // Server-side apply keeps no last-applied-configuration annotation (capped at 256 KiB), and
    // replaces the ConfigMap of an earlier run.
    `kubectl create configmap ${configMapName(o.name)}${ns} --from-file=${ARCHIVE_FILE}=${archive} --dry-run=client -o yaml | kubectl apply --server-side --force-conflicts -f -`,
    // Applying a finished TestRun again starts nothing: delete it, then create this run's.
    `kubectl delete testrun ${shellQuote(o.name)}${ns} --ignore-not-found --wait`,
    `sed "s/${RUN_ID_PLACEHOLDER}/$RUN_ID/g" ${shellQuote(manifestFile)} | kubectl create -f -`,
  ];
}

/** run.sh: the commands, stopping at the first failure. */
export function runScript(o: OperatorOptions, manifestFile: string): string {
  return [
    "#!/bin/sh",
    "# Written by `catchup-bench k6-operator`: ship the k6 archive and start the TestRun.",
    "set -eu",
    'cd "$(dirname "$0")"',
    ...shipCommands(o, manifestFile),
    "",
  ].join("\n");
}

/** README.md beside the manifest: what to run, how to collect, what the summaries mean. */
export function readme(o: OperatorOptions, manifestFile: string): string {
  const ns = o.namespace ? ` -n ${o.namespace}` : "";
  return [
    `# k6-operator run: ${o.name}`,
    "",
    `${o.parallelism} runners run ${o.scriptPath} from a \`k6 archive\` in ConfigMap ${configMapName(o.name)}.`,
    "",
    "## Before",
    "",
    `- k6-operator installed in the cluster; k6 >= 1.6 locally (for \`k6 archive\`) and k6 >= ${MIN_RUNNER_K6} in the runner image (${o.image}).`,
    `- A ReadWriteMany PersistentVolumeClaim named ${o.pvc}${o.namespace ? ` in namespace ${o.namespace}` : ""}: every runner writes its summary there.`,
    ...(o.tokenSecret ? [`- Secret ${o.tokenSecret} with the bearer token under key \`token\`.`] : []),
    "",
    "## Run",
    "",
    "```sh",
    ...shipCommands(o, manifestFile),
    `kubectl get testrun ${o.name}${ns} -w    # until stage is finished`,
    "```",
    "",
    "(`sh run.sh` runs all but the last.)",
    "",
    "## Collect and merge",
    "",
    `Each runner wrote \`summary-<run id>-<pod>.json\`${o.output === "json" ? " and `k6-<run id>-<pod>.json` (k6's JSON lines output)" : ""} to ${RESULTS_MOUNT} on ${o.pvc}; run.sh printed the run id. Copy them out (for example from a pod that mounts the claim, with \`kubectl cp\`), then merge one run's files (\`--merge\` refuses summaries of different run ids):`,
    "",
    "```sh",
    "catchup-bench report --merge results/summary-RUN_ID-*.json --out merged/",
    "```",
    "",
    "Thresholds and the runners' own percentiles are per runner; the merged report recomputes distributions from the per-session rows and says what it cannot combine.",
    "",
  ].join("\n");
}
