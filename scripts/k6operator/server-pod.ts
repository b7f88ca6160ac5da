// Where the sampling agent runs in a k6-operator test: a sidecar container in the server's own pod,
// sharing its process namespace (so /proc shows the server) and its network namespace (so the
// server's inspector on 127.0.0.1 is reachable), writing its samples to the same results volume the
// runners write their summaries to. The sidecar idles; the agent is started for one run with
// `kubectl exec` and stopped with SIGINT, so a long-lived pod does not sample forever. Pure.
import { RESULTS_MOUNT } from "./manifest.js";

export const SNIPPET_FILE = "server-pod-snippet.yaml";
export const AGENT_CONTAINER = "catchup-sample";
const AGENT_PID_FILE = "/tmp/catchup-sample.pid";

export interface ServerPodOptions {
  /** Image holding Node 20 and a built catchup-bench (its bin at /app/bin/catchup-bench.js). */
  agentImage: string;
  /** The server's listening port inside the pod. */
  serverPort: number;
  pvc: string;
  namespace: string | null;
}

/** The agent's samples file of a run on the results volume (`report --merge` finds agent*.jsonl). */
export const agentSamplesPath = (runId: string) => `${RESULTS_MOUNT}/agent-${runId}.jsonl`;

/** YAML to merge into the server's pod spec (Deployment .spec.template.spec, or a Pod's .spec). */
export function serverPodSnippet(o: ServerPodOptions): string {
  return [
    "# Written by `catchup-bench k6-operator --server-pod-snippet`. Merge into the server's pod spec",
    "# (a Deployment's .spec.template.spec, or a Pod's .spec); keep the server's own containers.",
    "# For heap figures the server runs with NODE_OPTIONS=--inspect=127.0.0.1:0 (loopback only: the",
    "# inspector can run code in the server); without it the agent samples RSS only and says so.",
    "shareProcessNamespace: true   # the agent sees the server's process in /proc",
    "containers:",
    `  - name: ${AGENT_CONTAINER}`,
    `    image: ${o.agentImage}`,
    "    # Idles; each run starts the agent with kubectl exec (see README.md) and stops it with SIGINT.",
    '    command: ["sleep", "infinity"]',
    "    # Same user as the server: reading its /proc/PID/fd and resetting its VmHWM need it (or SYS_PTRACE).",
    "    # securityContext: { runAsUser: <the server's uid> }",
    "    resources:",
    "      requests: { cpu: 50m, memory: 64Mi }",
    "    volumeMounts:",
    `      - { name: results, mountPath: ${RESULTS_MOUNT} }`,
    "volumes:",
    `  - name: results   # the runners' volume: samples land beside their summaries`,
    `    persistentVolumeClaim: { claimName: ${o.pvc} }`,
    "",
  ].join("\n");
}

/** The commands that start the agent for run $RUN_ID beside the server pod $SERVER_POD, and stop it. */
export function agentCommands(o: ServerPodOptions): { start: string; stop: string } {
  const ns = o.namespace ? ` -n ${o.namespace}` : "";
  const exec = `kubectl exec${ns} "$SERVER_POD" -c ${AGENT_CONTAINER} --`;
  const out = agentSamplesPath("$RUN_ID");
  return {
    // Detached inside the container (nohup … &): the kubectl session may end, the agent keeps sampling.
    // A pid file in the container: slim Node images have no pgrep.
    start: `${exec} sh -c "nohup node /app/bin/catchup-bench.js sample --port ${o.serverPort} --gc-at-end --out ${out} > ${out}.log 2>&1 & echo \\$! > ${AGENT_PID_FILE}"`,
    stop: `${exec} sh -c 'kill -INT $(cat ${AGENT_PID_FILE})'`,
  };
}

/** The README section: where the agent runs, how one run is sampled, and the merge with its samples. */
export function agentReadme(o: ServerPodOptions): string {
  const { start, stop } = agentCommands(o);
  return [
    "## Server memory: the sampling agent",
    "",
    `\`${SNIPPET_FILE}\` adds a sidecar, \`${AGENT_CONTAINER}\`, to the server's pod: \`shareProcessNamespace: true\` lets it see the server in /proc, the pod's shared network lets it reach the server's inspector on 127.0.0.1, and it mounts the runners' volume (${o.pvc}) at ${RESULTS_MOUNT}. Merge it into the server's pod spec and roll the server out. (Or run \`catchup-bench sample --port ${o.serverPort} --out FILE\` on the server's host, if it is not in the cluster.)`,
    "",
    "The sidecar's image needs Node 20 and a built catchup-bench at /app, for example:",
    "",
    "```Dockerfile",
    "FROM node:20-bookworm-slim",
    "WORKDIR /app",
    "COPY . .",
    "RUN npm ci && npm run build",
    "```",
    "",
    "Per run, with the same run id the runners use:",
    "",
    "```sh",
    'export RUN_ID="$(date -u +%Y%m%d-%H%M%S)" SERVER_POD=<the server\'s pod>',
    start,
    "sh run.sh",
    "# ... once the TestRun has finished (and, if you like, after an idle tail):",
    stop,
    "```",
    "",
    `The agent writes \`${agentSamplesPath("<run id>")}\` (every sample stamped with wall-clock time; written every 20 ms, so a killed agent loses at most the last 50 ms) and ends with a forced GC (\`--gc-at-end\`). To mark a moment ("after the storm") with a forced GC meanwhile: \`${stop.replace("-INT", "-USR2")}\`.`,
    "",
    "run.sh has fetched the runners' summaries to results/RUN_ID/; fetch the samples from the sidecar and merge both (the runners' phase marks are placed on the agent's clock by wall-clock time; if the nodes' clocks are known to differ, pass `--clock-offset-ms`):",
    "",
    "```sh",
    `kubectl cp${o.namespace ? ` -n ${o.namespace}` : ""} -c ${AGENT_CONTAINER} "$SERVER_POD:${agentSamplesPath("$RUN_ID")}" "results/$RUN_ID/agent.jsonl"`,
    'catchup-bench report --merge "results/$RUN_ID"/summary-*.json --samples "results/$RUN_ID/agent.jsonl" --out "results/$RUN_ID/merged-memory/"',
    "```",
    "",
  ].join("\n");
}
