// A k6-operator TestRun for one of the k6 scripts, and the commands that ship it. Pure: options in,
// manifest object and shell text out.
//
// Why each part: a ConfigMap carries files but no directories, so the script travels as the output
// of `k6 archive` (the script and its lib/ modules in one tar). k6-operator splits the VUs across
// `parallelism` runners, so only a script whose sessions are VUs (scaleout.js) scales out. Each
// runner's handleSummary sees only that runner, so every runner writes its own summary (named by
// its pod) on a shared volume, for `catchup-bench report --merge`. Kubernetes expands $(POD_NAME)
// in env values and container arguments from the pod's own env.

export const ARCHIVE_FILE = "archive.tar";
export const RESULTS_MOUNT = "/results";
export const DEFAULT_IMAGE = "grafana/k6:1.6.0";
/** Scripts that run one VU: more runners than one would idle. */
export const SINGLE_VU_SCRIPTS = ["memory.js", "resume.js", "snapshot.js"] as const;

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
    // k6 does not create a summary file's directory: /results is the mounted volume.
    { name: "SUMMARY", value: `${RESULTS_MOUNT}/summary-$(POD_NAME).json` },
    // The script reads the classic handleSummary data.
    { name: "K6_NEW_MACHINE_READABLE_SUMMARY", value: "false" },
  ];
  if (o.tokenSecret) env.push({ name: "TOKEN", valueFrom: { secretKeyRef: { name: o.tokenSecret, key: "token" } } });
  const args =
    o.output === "json"
      ? [`--out json=${RESULTS_MOUNT}/k6-$(POD_NAME).json`]
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
  return [
    // The archive keeps the script, its relative imports (lib/) and its options as evaluated now: the
    // parameters that shape options (CLIENTS sets the VUs) must be given here too, not only to the runners.
    `k6 archive ${Object.entries(o.env)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `-e ${shellQuote(`${k}=${v}`)} `)
      .join("")}${shellQuote(o.scriptPath)} -O ${shellQuote(o.archivePath)}`,
    // Written to a file, then applied: re-running replaces the ConfigMap instead of failing on it.
    `kubectl create configmap ${configMapName(o.name)}${ns} --from-file=${ARCHIVE_FILE}=${shellQuote(o.archivePath)} --dry-run=client -o yaml > configmap.yaml`,
    "kubectl apply -f configmap.yaml",
    `kubectl apply -f ${shellQuote(manifestFile)}`,
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
    "- k6-operator installed in the cluster; k6 >= 1.6 locally (for `k6 archive`) and in the runner image.",
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
    `Each runner wrote \`summary-<pod>.json\`${o.output === "json" ? " and `k6-<pod>.json` (k6's JSON lines output)" : ""} to ${RESULTS_MOUNT} on ${o.pvc}. Copy them out (for example from a pod that mounts the claim, with \`kubectl cp\`), then:`,
    "",
    "```sh",
    "catchup-bench report --merge results/ --out merged/",
    "```",
    "",
    "Thresholds and the runners' own percentiles are per runner; the merged report recomputes distributions from the per-session rows and says what it cannot combine.",
    "",
  ].join("\n");
}
