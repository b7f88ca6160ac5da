// TEST AID: stands in for kubectl in the k6-operator run.sh test. It logs every call (argv and the
// object it was given) to $FAKE_KUBECTL_LOG as JSON lines, renders `create configmap --dry-run=client
// -o yaml` as kubectl does (a binary file goes to binaryData as base64), and enforces the limits a
// real API server and kubectl enforce: client-side `apply` stores the object in the
// last-applied-configuration annotation, and all annotations together may hold at most 262,144
// bytes (apimachinery TotalAnnotationSizeLimitB); a ConfigMap's data at most 1 MiB, counted decoded.
// For run.sh's wait, verdict and collection: `get testrun` answers stage $FAKE_STAGE (default
// finished), `get pods -l k6_cr=NAME,runner=true` answers one runner per code in
// $FAKE_RUNNER_EXIT_CODES ("0,99"; an empty entry: no exit code), and `cp POD:/results/ID DEST`
// copies $FAKE_VOLUME/ID (the results volume) as kubectl cp does, failing when it is missing.
import { appendFileSync, cpSync, existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";

const args = process.argv.slice(2);
const log = (entry) => appendFileSync(process.env.FAKE_KUBECTL_LOG, `${JSON.stringify({ args, ...entry })}\n`);
const stdin = () => (args.includes("-") ? readFileSync(0, "utf8") : "");
const fail = (text) => {
  process.stderr.write(`${text}\n`);
  process.exit(1);
};

function parse(text) {
  // The configmap this fake printed is JSON-in-YAML (YAML is a superset of JSON); a TestRun is JSON.
  return JSON.parse(text);
}

if (args[0] === "create" && args[1] === "configmap") {
  const from = args.find((a) => a.startsWith("--from-file="))?.slice("--from-file=".length) ?? "";
  const [key, path] = from.includes("=") ? from.split("=") : [basename(from), from];
  const ns = args[args.indexOf("--namespace") + 1];
  const body = readFileSync(path);
  const object = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: args[2], ...(args.includes("--namespace") ? { namespace: ns } : {}) },
    binaryData: { [key]: body.toString("base64") },
  };
  if (!args.includes("--dry-run=client")) fail("fake kubectl: only --dry-run=client configmaps are modelled");
  log({ kind: "ConfigMap", archiveBytes: body.length });
  process.stdout.write(`${JSON.stringify(object)}\n`);
} else if (args[0] === "apply") {
  const text = args.includes("-") ? stdin() : readFileSync(args[args.indexOf("-f") + 1], "utf8");
  const object = parse(text);
  const serverSide = args.includes("--server-side");
  const dataBytes = Object.values(object.binaryData ?? {}).reduce((n, v) => n + Buffer.from(v, "base64").length, 0);
  const annotation = serverSide ? 0 : Buffer.byteLength(JSON.stringify(object));
  log({ kind: object.kind, serverSide, annotationBytes: annotation, dataBytes });
  if (annotation > 262_144) {
    fail(
      `The ${object.kind} "${object.metadata.name}" is invalid: metadata.annotations: Too long: must have at most 262144 bytes`,
    );
  }
  if (dataBytes > 1_048_576)
    fail(`The ${object.kind} "${object.metadata.name}" is invalid: []: Too long: must have at most 1048576 bytes`);
  process.stdout.write(
    `${object.kind.toLowerCase()}/${object.metadata.name} ${serverSide ? "serverside-applied" : "configured"}\n`,
  );
} else if (args[0] === "delete") {
  log({ kind: args[1] });
} else if (args[0] === "wait") {
  log({});
} else if (args[0] === "get" && args[1] === "testrun") {
  log({});
  process.stdout.write(process.env.FAKE_STAGE ?? "finished");
} else if (args[0] === "get" && args[1] === "pods") {
  log({});
  const name = /k6_cr=([^,]+)/.exec(args[args.indexOf("-l") + 1] ?? "")?.[1];
  const codes = (process.env.FAKE_RUNNER_EXIT_CODES ?? "").split(",");
  process.stdout.write(codes.map((code, i) => `${name}-${i + 1}-x7k2p=${code}\n`).join(""));
} else if (args[0] === "cp") {
  log({});
  const [from, to] = args
    .slice(1)
    .filter((a, i, all) => !a.startsWith("-") && !["-c", "--namespace"].includes(all[i - 1]));
  const source = `${process.env.FAKE_VOLUME}/${from.replace(/^[^:]+:\/results\//, "")}`;
  if (!existsSync(source))
    fail(`tar: removing leading '/' from member names\nerror: ${from}: no such file or directory`);
  cpSync(source, to, { recursive: true });
} else if (args[0] === "create" && args[1] === "-f") {
  const object = parse(stdin());
  log({ kind: object.kind, object });
  process.stdout.write(`${object.kind.toLowerCase()}.k6.io/${object.metadata.name} created\n`);
} else {
  fail(`fake kubectl: unmodelled command ${args.join(" ")}`);
}
