// What Kubernetes, k6-operator and the grafana/k6 image impose on a TestRun, as numbers and rules
// the manifest writer and run.sh check. Pure.

/**
 * A ConfigMap's data may hold at most 1 MiB, counted decoded: ValidateConfigMap sums len() of each
 * data string and each binaryData []byte (Kubernetes pkg/apis/core/validation, MaxSecretSize), so a
 * tar in binaryData counts its own bytes, not their base64. (run.sh applies it server-side: a
 * client-side apply would also copy it into the last-applied annotation, capped at 256 KiB.)
 */
export const CONFIGMAP_LIMIT = 1_048_576;

/**
 * The grafana/k6 image runs as uid 12345 (grafana/k6 Dockerfile at v2.2.0: line 11 adds the user,
 * line 14 is the release image's USER; line 27 is the with-browser image's). fsGroup makes a volume
 * group-writable for that gid only where the volume's driver applies it, so run.sh's collector pod
 * also chowns the run's folder (run-script.ts).
 */
export const K6_IMAGE_UID = 12345;
export const RUNNER_SECURITY_CONTEXT = {
  runAsUser: K6_IMAGE_UID,
  runAsGroup: K6_IMAGE_UID,
  fsGroup: K6_IMAGE_UID,
} as const;

/**
 * k6 1.8.0 and 2.0.0 fix a shutdown deadlock when a server pings while a socket closes (grafana/k6
 * #5905: commit d838f20b, first in v2.0.0, and its backport 5a291beea in v1.8.0), which can hang a
 * runner. The scripts themselves need k6 >= 1.6 (k6/websockets).
 */
export const DEFAULT_RUNNER_IMAGE = "grafana/k6:2.2.0";
export const MIN_RUNNER_K6 = "1.8.0";
/** The collector pod's image (run.sh): sh, mkdir, chown, sleep and tar (for kubectl cp). */
export const COLLECTOR_IMAGE = "busybox:1.37.0";

/** Scripts that run one VU: more runners than one would idle. */
export const SINGLE_VU_SCRIPTS = ["memory.js", "resume.js", "snapshot.js", "thread.js"] as const;

/**
 * The VUs a script runs when CLIENTS is not given (scaleout.js and storm.js: one VU per client).
 * k6-operator's initializer runs `k6 inspect` and sets the TestRun's stage to "error" when the max VUs
 * are below `parallelism` (grafana/k6-operator internal/controller/k6_initialize.go:87-98).
 */
export const DEFAULT_CLIENTS: Readonly<Record<string, number>> = { "scaleout.js": 1, "storm.js": 100 };
