// `k6-operator` flags: the one table from which yargs, --help, docs/cli.md and validation come.
import { DEFAULT_RUNNER_IMAGE, MIN_RUNNER_K6 } from "../k6operator/testrun-limits.js";
import type { CommandSpec } from "./spec.js";

const AGENT = "Server memory (sampling agent):";

export const K6_OPERATOR_OPTIONS = {
  parallelism: { type: "int", min: 1, max: 1000, describe: "number of k6 runners (pods) the VUs are split across" },
  out: {
    type: "string",
    describe:
      "directory for testrun.json, collector.json, run.sh and README.md (created); run.sh fetches each run into results/RUN_ID/ there",
  },
  name: {
    type: "string",
    default: "catchup-bench",
    describe:
      "TestRun name prefix (DNS label: a-z, 0-9, -; at most 35 characters): each run is TestRun NAME-RUN_ID with ConfigMap NAME-RUN_ID-script",
  },
  namespace: { type: "string", describe: "Kubernetes namespace (default: kubectl's current one)" },
  env: {
    type: "string",
    repeatable: true,
    describe: "script parameter KEY=VALUE for every runner, e.g. URL=ws://target:8080/ws CLIENTS=400",
  },
  "token-secret": {
    type: "string",
    describe: "Secret whose key `token` holds the bearer token (a token never goes into the manifest)",
  },
  output: {
    type: "enum",
    choices: ["json", "prometheus"],
    default: "json",
    describe: "per-runner machine-readable output: k6 JSON lines on the volume, or experimental-prometheus-rw",
  },
  "prometheus-url": { type: "string", describe: "remote-write URL, with --output prometheus" },
  pvc: {
    type: "string",
    default: "catchup-results",
    describe: "ReadWriteMany PersistentVolumeClaim mounted at /results for the runners' summaries",
  },
  separate: {
    type: "boolean",
    default: false,
    describe: "one runner per node (needs at least --parallelism schedulable nodes, else runners stay Pending)",
  },
  "server-pod-snippet": {
    type: "boolean",
    default: false,
    describe:
      "also write server-pod-snippet.yaml: the sampling agent as a sidecar of the server's pod (shareProcessNamespace), writing to the same volume; README.md says how to start and stop it per run",
    group: AGENT,
  },
  "server-port": {
    type: "int",
    min: 1,
    max: 65_535,
    describe: "the server's port inside its pod, for the agent (default: the port of --env URL)",
    group: AGENT,
  },
  "agent-image": {
    type: "string",
    default: "catchup-bench-agent:latest",
    describe: "image of the agent sidecar: Node 20 with a built catchup-bench at /app (README.md shows a Dockerfile)",
    group: AGENT,
  },
  image: {
    type: "string",
    default: DEFAULT_RUNNER_IMAGE,
    describe: `runner image (k6 >= ${MIN_RUNNER_K6}: older k6 can deadlock when a server pings while a socket closes)`,
  },
} as const satisfies CommandSpec["options"];

export const K6_OPERATOR_COMMAND = {
  command: "k6-operator <script>",
  describe: "Write a k6-operator TestRun that runs a k6 script across --parallelism runners, and its run.sh",
  positionals: { script: { describe: "k6 script (scenarios/scaleout.js splits its sessions across runners)" } },
  options: K6_OPERATOR_OPTIONS,
} satisfies CommandSpec;
