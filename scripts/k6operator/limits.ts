// What Kubernetes, k6-operator and the grafana/k6 image impose on a TestRun, as numbers and rules
// the manifest writer and run.sh check. Pure.

/**
 * Client-side `kubectl apply` copies the whole object into the last-applied-configuration
 * annotation, and all annotations of an object together may hold at most 256 KiB (Kubernetes
 * apimachinery, TotalAnnotationSizeLimitB): a ConfigMap whose archive is bigger cannot be applied
 * that way. `kubectl create`/`replace` and `apply --server-side` write no such annotation.
 */
export const CLIENT_SIDE_APPLY_LIMIT = 262_144;
/** A ConfigMap's data may hold at most 1 MiB (Kubernetes core validation, MaxSecretSize/ConfigMap). */
export const CONFIGMAP_LIMIT = 1_048_576;

/**
 * The grafana/k6 image runs as uid and gid 12345 (grafana/k6 Dockerfile at v2.2.0, lines 11 and 27):
 * a results volume owned by root is not writable by it, so the pod's fsGroup makes the volume
 * group-writable for that gid.
 */
export const K6_IMAGE_UID = 12345;
export const RUNNER_SECURITY_CONTEXT = {
  runAsUser: K6_IMAGE_UID,
  runAsGroup: K6_IMAGE_UID,
  fsGroup: K6_IMAGE_UID,
} as const;

/**
 * k6 >= 2.0 fixes a shutdown deadlock when a server pings while a socket closes (grafana/k6 commit
 * d838f20b, "websockets: fix shutdown deadlock on server pings", #5905, first in v2.0.0), which can
 * hang a runner. The scripts themselves need k6 >= 1.6 (k6/websockets).
 */
export const DEFAULT_RUNNER_IMAGE = "grafana/k6:2.2.0";
export const MIN_RUNNER_K6 = "2.0.0";

/** Scripts that run one VU: more runners than one would idle. */
export const SINGLE_VU_SCRIPTS = ["memory.js", "resume.js", "snapshot.js", "thread.js"] as const;

/**
 * The VUs a script runs when CLIENTS is not given (scaleout.js and storm.js: one VU per client).
 * k6-operator's initializer runs `k6 inspect` and sets the TestRun's stage to "error" when the max VUs
 * are below `parallelism` (grafana/k6-operator internal/controller/k6_initialize.go:87-98).
 */
export const DEFAULT_CLIENTS: Readonly<Record<string, number>> = { "scaleout.js": 1, "storm.js": 100 };
