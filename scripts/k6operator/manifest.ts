// A k6-operator TestRun for one of the k6 scripts, and the commands that ship it. Pure: options in,
// manifest object and shell text out.
//
// Why each part: a ConfigMap carries files but no directories, so the script travels as the output
// of `k6 archive` (the script and its lib/ modules in one tar). k6-operator splits the VUs across
// `parallelism` runners, so only a script whose sessions are VUs (scaleout.js) scales out. Each
// runner's handleSummary sees only that runner, so every runner writes its own summary (named by
// its pod) on a shared volume, for `catchup-bench report --merge`. Kubernetes expands $(POD_NAME)
// in env values and container arguments from the pod's own env. Each run.sh run gets its own run
// id (RUN_ID): the TestRun and its ConfigMap are named by it (a re-run never meets the previous
// run's Jobs: k6-operator creates NAME-initializer once and does not retry a failed create,
// grafana/k6-operator v1.6.0 internal/controller/k6_initialize.go:41-44), the
// runners write into /results/RUN_ID/, and the summaries carry it (`--merge` refuses a stale one).
import {
  CONFIGMAP_LIMIT,
  MIN_RUNNER_K6,
  RUNNER_SECURITY_CONTEXT,
  SINGLE_VU_SCRIPTS as SINGLE_VU,
} from "./testrun-limits.js";

export const ARCHIVE_FILE = "archive.tar";
export const RESULTS_MOUNT = "/results";
/** Scripts that run one VU: more runners than one would idle. */
export const SINGLE_VU_SCRIPTS = SINGLE_VU;
/** Stands for the run id in testrun.json; run.sh writes the TestRun with its own id in its place. */
export const RUN_ID_PLACEHOLDER = "@RUN_ID@";
/** The run's folder on the results volume, as the runners' env spells it. */
const RUN_FOLDER = `${RESULTS_MOUNT}/$(RUN_ID)`;
/**
 * A Job name is at most 63 characters (its job-name label) and k6-operator names the initializer Job
 * NAME-RUN_ID-initializer (pkg/resources/jobs/initializer.go:89): NAME and RUN_ID share 50.
 */
export const NAME_AND_RUN_ID_MAX = 63 - "-initializer".length - 1;
/** run.sh's default run id, date -u +%Y%m%d-%H%M%S, is 15 characters. */
export const DEFAULT_RUN_ID_LENGTH = 15;

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
    // k6 does not create a summary file's directory: the collector pod made /results/RUN_ID, owned
    // by the runners' uid, before the TestRun was created (a folder per run: no earlier run's files).
    { name: "SUMMARY", value: `${RUN_FOLDER}/summary-$(POD_NAME).json` },
    // The script reads the classic handleSummary data.
    { name: "K6_NEW_MACHINE_READABLE_SUMMARY", value: "false" },
  ];
  if (o.tokenSecret) env.push({ name: "TOKEN", valueFrom: { secretKeyRef: { name: o.tokenSecret, key: "token" } } });
  const args =
    o.output === "json"
      ? [`--out json=${RUN_FOLDER}/k6-$(POD_NAME).json`]
      : ["--out experimental-prometheus-rw", `--tag testid=${o.name}`];
  if (o.output === "prometheus" && o.prometheusUrl) {
    env.push({ name: "K6_PROMETHEUS_RW_SERVER_URL", value: o.prometheusUrl });
    env.push({ name: "K6_PROMETHEUS_RW_TREND_STATS", value: "min,p(50),p(90),p(95),max,count" });
  }
  return {
    apiVersion: "k6.io/v1alpha1",
    kind: "TestRun",
    metadata: { name: runName(o.name, RUN_ID_PLACEHOLDER), ...(o.namespace ? { namespace: o.namespace } : {}) },
    spec: {
      parallelism: o.parallelism,
      // One runner per node (runners then do not share a node's network and CPU); needs as many nodes.
      separate: o.separate,
      arguments: args.join(" "),
      script: { configMap: { name: configMapName(runName(o.name, RUN_ID_PLACEHOLDER)), file: ARCHIVE_FILE } },
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

/** One run's TestRun name: NAME-RUN_ID. */
export function runName(name: string, runId: string): string {
  return `${name}-${runId}`;
}

/** POSIX shell single-quoting. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The commands that pick the run id, build the archive and ship it as this run's ConfigMap. */
export function shipCommands(o: OperatorOptions): string[] {
  const ns = o.namespace ? ` --namespace ${shellQuote(o.namespace)}` : "";
  const archive = shellQuote(o.archivePath);
  const storm = o.scriptPath.endsWith("storm.js") && o.env.START_AT === undefined;
  const maxRunId = NAME_AND_RUN_ID_MAX - o.name.length;
  return [
    // A fresh id per run: it names the TestRun, its ConfigMap and its results folder.
    `RUN_ID="\${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)}"`,
    `case "$RUN_ID" in ''|-*|*-|*[!a-z0-9-]*) echo "RUN_ID must be a-z, 0-9 and inner '-' (got '$RUN_ID')" >&2; exit 2 ;; esac`,
    `[ \${#RUN_ID} -le ${maxRunId} ] || { echo "RUN_ID must be at most ${maxRunId} characters: ${o.name}-RUN_ID-initializer names a Job (at most 63) (got '$RUN_ID')" >&2; exit 2; }`,
    `NAME="${runName(o.name, "$RUN_ID")}"`,
    // A results folder per run, here and on the volume: nothing of an earlier run is merged.
    '[ ! -e "results/$RUN_ID" ] || { echo "results/$RUN_ID exists: a run id is used once (set RUN_ID)" >&2; exit 2; }',
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
    // Kubernetes counts a ConfigMap's data decoded (binaryData's bytes, not their base64): at most 1 MiB.
    `size=$(wc -c < ${archive}); echo "${o.archivePath}: $size bytes (a ConfigMap holds at most ${CONFIGMAP_LIMIT}); run id $RUN_ID, TestRun $NAME"`,
    `[ "$size" -le ${CONFIGMAP_LIMIT} ] || { echo "${o.archivePath} is too big for a ConfigMap (${CONFIGMAP_LIMIT} bytes): fewer CLIENTS per archive" >&2; exit 1; }`,
    // Server-side apply keeps no last-applied-configuration annotation (capped at 256 KiB).
    `kubectl create configmap "${configMapName("$NAME")}"${ns} --from-file=${ARCHIVE_FILE}=${archive} --dry-run=client -o yaml | kubectl apply --server-side --force-conflicts -f -`,
  ];
}

/** README.md beside the manifest: what run.sh does, what it needs, what its exit code means. */
export function readme(o: OperatorOptions): string {
  return [
    `# k6-operator run: ${o.name}`,
    "",
    `${o.parallelism} runners run ${o.scriptPath} from a \`k6 archive\` in a ConfigMap, one TestRun per run.`,
    "",
    "## Before",
    "",
    `- k6-operator installed in the cluster; k6 >= 1.6 locally (for \`k6 archive\`) and k6 >= ${MIN_RUNNER_K6} in the runner image (${o.image}); \`catchup-bench\` on PATH (or CATCHUP_BENCH="node /path/to/bin/catchup-bench.js").`,
    `- A ReadWriteMany PersistentVolumeClaim named ${o.pvc}${o.namespace ? ` in namespace ${o.namespace}` : ""}: every runner writes its summary there.`,
    "- The namespace lets a pod run as root (Pod Security `baseline`, not `restricted`): the collector pod makes the run's results folder and gives it to the runners' uid 12345, which a volume of any storage class needs (fsGroup is applied only to some volumes).",
    ...(o.tokenSecret ? [`- Secret ${o.tokenSecret} with the bearer token under key \`token\`.`] : []),
    "",
    "## Run",
    "",
    "```sh",
    "sh run.sh        # RUN_ID=... to choose the run id; RUN_TIMEOUT_S (default 14400) bounds the wait",
    "```",
    "",
    "run.sh picks a run id (RUN_ID), ships the archive as ConfigMap NAME-RUN_ID-script, starts a collector pod",
    "that makes `/results/RUN_ID/` on the volume, creates TestRun NAME-RUN_ID, waits until its stage is",
    "`finished` (or `error`), reads every runner's k6 exit code, copies `/results/RUN_ID/` to `results/RUN_ID/`",
    "through the collector, removes the collector, and runs `catchup-bench report --merge` into",
    "`results/RUN_ID/merged/`. The TestRun and ConfigMap are kept for `kubectl logs`; run.sh prints how to delete them.",
    "",
    "Exit code: 0 when every runner exited 0 and the merge succeeded; else a runner's k6 exit code (99 when",
    "only thresholds failed, else the first other non-zero code; 1 when a runner has none), 1 for a TestRun in",
    "stage `error` or a wait that timed out, 2 for a bad RUN_ID. A TestRun reaches `finished` even when runners",
    "failed (k6-operator k6_finish.go), so the stage alone says nothing about the result.",
    "",
    "Thresholds and the runners' own percentiles are per runner (a runner's 99 speaks for its share only); the merged report recomputes distributions from the per-session rows and says what it cannot combine.",
    "",
  ].join("\n");
}
