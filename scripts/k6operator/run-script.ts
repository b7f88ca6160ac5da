// run.sh and the collector pod it starts: ship the run, wait for it, judge it, fetch and merge its
// summaries. Pure: options in, manifest object and shell text out.
//
// Why a collector pod: the runners run as uid 12345 and the results volume may be root-owned, and
// fsGroup is applied by CSI drivers by default only to ReadWriteOnce volumes with a filesystem type,
// so on a ReadWriteMany volume the runners may not be able to write. The collector (root, on the
// same claim) makes /results/RUN_ID and hands it to uid 12345 before the TestRun starts, then stays
// so `kubectl cp` has a running container to copy the results out of; run.sh removes it.

import {
  configMapName,
  type OperatorOptions,
  RESULTS_MOUNT,
  RUN_ID_PLACEHOLDER,
  runName,
  shellQuote,
  shipCommands,
} from "./manifest.js";
import { COLLECTOR_IMAGE, K6_IMAGE_UID } from "./testrun-limits.js";

export const COLLECTOR_FILE = "collector.json";
/** The collector outlives any wait of run.sh (RUN_TIMEOUT_S is capped below it), then stops by itself. */
const COLLECTOR_DEADLINE_S = 86_400;
const MAX_RUN_TIMEOUT_S = COLLECTOR_DEADLINE_S - 3_600;

export function collectorName(name: string): string {
  return `${name}-collector`;
}

/** The collector pod (run.sh writes it with its run id in place of the placeholder). */
export function collectorPod(o: OperatorOptions): object {
  const folder = `${RESULTS_MOUNT}/${RUN_ID_PLACEHOLDER}`;
  const owner = `${K6_IMAGE_UID}:${K6_IMAGE_UID}`;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: collectorName(runName(o.name, RUN_ID_PLACEHOLDER)),
      ...(o.namespace ? { namespace: o.namespace } : {}),
    },
    spec: {
      restartPolicy: "Never",
      activeDeadlineSeconds: COLLECTOR_DEADLINE_S,
      initContainers: [
        {
          name: "results-folder",
          image: COLLECTOR_IMAGE,
          command: ["sh", "-c", `mkdir -p ${folder} && chown ${owner} ${folder} && chmod 0775 ${folder}`],
          securityContext: { runAsUser: 0 },
          volumeMounts: [{ name: "results", mountPath: RESULTS_MOUNT }],
        },
      ],
      containers: [
        {
          name: "collector",
          image: COLLECTOR_IMAGE,
          command: ["sleep", String(COLLECTOR_DEADLINE_S)],
          volumeMounts: [{ name: "results", mountPath: RESULTS_MOUNT }],
        },
      ],
      volumes: [{ name: "results", persistentVolumeClaim: { claimName: o.pvc } }],
    },
  };
}

/** Waits for the TestRun's stage (finished or error), within RUN_TIMEOUT_S. */
function waitCommands(ns: string): string[] {
  return [
    `RUN_TIMEOUT_S="\${RUN_TIMEOUT_S:-14400}"`,
    `case "$RUN_TIMEOUT_S" in ''|*[!0-9]*) echo "RUN_TIMEOUT_S must be a number of seconds up to ${MAX_RUN_TIMEOUT_S} (got '$RUN_TIMEOUT_S')" >&2; exit 2 ;; esac`,
    `[ "$RUN_TIMEOUT_S" -le ${MAX_RUN_TIMEOUT_S} ] || { echo "RUN_TIMEOUT_S must be at most ${MAX_RUN_TIMEOUT_S} (the collector stops after ${COLLECTOR_DEADLINE_S} s)" >&2; exit 2; }`,
    "deadline=$(( $(date +%s) + RUN_TIMEOUT_S ))",
    "while :; do",
    `  stage=$(kubectl get testrun "$NAME"${ns} -o jsonpath='{.status.stage}')`,
    '  case "$stage" in',
    "    finished) break ;;",
    `    error) echo "TestRun $NAME is in stage error: kubectl describe testrun $NAME${ns}" >&2; exit 1 ;;`,
    "  esac",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    '  [ "$(date +%s)" -lt "$deadline" ] || { echo "TestRun $NAME not finished after $RUN_TIMEOUT_S s (stage ${stage:-none})" >&2; exit 1; }',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    '  sleep "${POLL_S:-10}"',
    "done",
  ];
}

/**
 * Every runner's k6 exit code: a TestRun is "finished" even when runners failed (grafana/k6-operator
 * v1.6.0 internal/controller/k6_finish.go:39-69 counts failed Jobs but finishes anyway). The worst
 * wins: another failure over thresholds (99) over success; a runner without an exit code counts 1.
 */
function verdictCommands(o: OperatorOptions, ns: string): string[] {
  const jsonpath = `{range .items[*]}{.metadata.name}={.status.containerStatuses[?(@.name=="k6")].state.terminated.exitCode}{"\\n"}{end}`;
  return [
    "verdict=0",
    'worse() { if [ "$1" -ne 0 ] && { [ "$verdict" -eq 0 ] || { [ "$verdict" -eq 99 ] && [ "$1" -ne 99 ]; }; }; then verdict=$1; fi; }',
    `codes=$(kubectl get pods${ns} -l "k6_cr=$NAME,runner=true" -o jsonpath='${jsonpath}')`,
    "runners=0",
    "for line in $codes; do",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    "  runners=$((runners + 1)); code=${line#*=}",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    '  echo "runner ${line%%=*}: k6 exit code ${code:-none}"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    '  worse "${code:-1}"',
    "done",
    `[ "$runners" -eq ${o.parallelism} ] || { echo "found $runners runner pods of ${o.parallelism}" >&2; worse 1; }`,
  ];
}

/** Copies the run's folder out through the collector, and merges the summaries. */
function collectCommands(o: OperatorOptions, ns: string): string[] {
  return [
    `kubectl cp${ns} -c collector "$(collector):${RESULTS_MOUNT}/$RUN_ID" "results/$RUN_ID" || { echo "could not copy ${RESULTS_MOUNT}/$RUN_ID from the collector" >&2; worse 1; }`,
    "merge_rc=0",
    `\${CATCHUP_BENCH:-catchup-bench} report --merge "results/$RUN_ID"/summary-*.json --out "results/$RUN_ID/merged" || merge_rc=$?`,
    `echo "TestRun $NAME and ConfigMap ${configMapName("$NAME")} kept for kubectl logs; remove them with: kubectl delete testrun $NAME${ns} && kubectl delete configmap ${configMapName("$NAME")}${ns}"`,
    `[ "$verdict" -eq 0 ] || { echo "run $RUN_ID failed: exit $verdict (${o.parallelism} runners; 99: thresholds)" >&2; exit "$verdict"; }`,
    'exit "$merge_rc"',
  ];
}

/** run.sh: ship, start the collector, create the TestRun, wait, judge, collect, merge. */
export function runScript(o: OperatorOptions, manifestFile: string): string {
  const ns = o.namespace ? ` --namespace ${shellQuote(o.namespace)}` : "";
  const fill = (file: string) => `sed "s/${RUN_ID_PLACEHOLDER}/$RUN_ID/g" ${shellQuote(file)} | kubectl create -f -`;
  return [
    "#!/bin/sh",
    "# Written by `catchup-bench k6-operator`: one run of the TestRun, from shipping to the merged report.",
    "set -eu",
    'cd "$(dirname "$0")"',
    ...shipCommands(o),
    "mkdir -p results",
    `collector() { echo "${collectorName("$NAME")}"; }`,
    `trap 'kubectl delete pod "$(collector)"${ns} --ignore-not-found --wait=false >/dev/null 2>&1 || true' EXIT`,
    fill(COLLECTOR_FILE),
    `kubectl wait --for=condition=Ready "pod/$(collector)"${ns} --timeout=300s`,
    fill(manifestFile),
    ...waitCommands(ns),
    ...verdictCommands(o, ns),
    ...collectCommands(o, ns),
    "",
  ].join("\n");
}
