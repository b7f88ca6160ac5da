// The TestRun catchup-bench writes for k6-operator has the fields and types of the TestRun CRD's
// published schema (an excerpt vendored in fixtures/, its source named there), and ships the
// script as a `k6 archive` in a ConfigMap with per-runner summaries and machine-readable output.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type OperatorOptions, shipCommands, testRunManifest } from "../../scripts/k6operator/manifest.js";
import { runScript } from "../../scripts/k6operator/run-script.js";

interface Schema {
  type?: string;
  format?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
}

const CRD = JSON.parse(readFileSync(new URL("./fixtures/testrun-crd-schema.json", import.meta.url), "utf8")) as Schema;

/**
 * The structural-schema checks the API server applies: types (int32 range), enums, required fields,
 * and no unknown fields (the server would prune them silently, dropping a setting without a word).
 */
function check(value: unknown, schema: Schema, path = ""): string[] {
  const at = path || "(root)";
  const errors: string[] = [];
  switch (schema.type) {
    case "object":
      if (value === null || typeof value !== "object" || Array.isArray(value)) return [`${at}: not an object`];
      break;
    case "array":
      if (!Array.isArray(value)) return [`${at}: not an array`];
      value.forEach((v, i) => {
        errors.push(...check(v, schema.items ?? {}, `${path}[${i}]`));
      });
      return errors;
    case "integer":
      if (!Number.isInteger(value)) return [`${at}: not an integer`];
      if (schema.format === "int32" && ((value as number) < -(2 ** 31) || (value as number) >= 2 ** 31)) {
        return [`${at}: outside int32`];
      }
      return [];
    case "string":
    case "boolean":
      if (typeof value !== schema.type) return [`${at}: not a ${schema.type}`];
      if (schema.enum && !schema.enum.includes(value)) return [`${at}: not one of ${schema.enum.join(", ")}`];
      return [];
    default:
      return [];
  }
  const obj = value as Record<string, unknown>;
  for (const r of schema.required ?? []) if (!(r in obj)) errors.push(`${path}.${r}: required`);
  if (schema.properties) {
    for (const [k, v] of Object.entries(obj)) {
      const sub = schema.properties[k];
      if (!sub) errors.push(`${path}.${k}: not in the schema`);
      else errors.push(...check(v, sub, `${path}.${k}`));
    }
  }
  return errors;
}

const base: OperatorOptions = {
  scriptPath: "../scenarios/scaleout.js",
  parallelism: 4,
  separate: true,
  name: "catchup-bench",
  namespace: "load",
  image: "grafana/k6:2.2.0",
  env: { URL: "ws://target.load.svc:8080/ws", CLIENTS: "400", SUBSCRIBE_PAYLOAD: '{"afterSequence":{after}}' },
  tokenSecret: "catchup-token",
  output: "json",
  prometheusUrl: null,
  pvc: "catchup-results",
  archivePath: "archive.tar",
};

describe("the TestRun manifest", () => {
  it("matches the CRD's schema, with the archive in a ConfigMap and per-runner outputs", () => {
    const m = testRunManifest(base);
    expect(check(m, CRD)).toEqual([]);
    expect(m).toMatchObject({
      apiVersion: "k6.io/v1alpha1",
      kind: "TestRun",
      metadata: { name: "catchup-bench-@RUN_ID@", namespace: "load" },
      spec: {
        parallelism: 4,
        separate: true,
        script: { configMap: { name: "catchup-bench-@RUN_ID@-script", file: "archive.tar" } },
      },
    });
    expect(m.spec.arguments).toBe("--out json=/results/$(RUN_ID)/k6-$(POD_NAME).json");
    const env = Object.fromEntries(m.spec.runner.env.map((e) => [e.name, e.value ?? e.valueFrom]));
    expect(env).toMatchObject({
      POD_NAME: { fieldRef: { fieldPath: "metadata.name" } },
      RUN_ID: "@RUN_ID@",
      SUMMARY: "/results/$(RUN_ID)/summary-$(POD_NAME).json",
      K6_NEW_MACHINE_READABLE_SUMMARY: "false",
      TOKEN: { secretKeyRef: { name: "catchup-token", key: "token" } },
      CLIENTS: "400",
    });
    // Kubernetes expands $(POD_NAME) only from variables defined before the one using it.
    const names = m.spec.runner.env.map((e) => e.name);
    expect(names.indexOf("POD_NAME")).toBeLessThan(names.indexOf("SUMMARY"));
    expect(names.indexOf("RUN_ID")).toBeLessThan(names.indexOf("SUMMARY"));
    expect(m.spec.runner.volumeMounts).toEqual([{ name: "results", mountPath: "/results" }]);
    // The grafana/k6 image runs as uid 12345: without fsGroup it cannot write to a root-owned volume.
    expect(m.spec.runner.securityContext).toEqual({ runAsUser: 12345, runAsGroup: 12345, fsGroup: 12345 });
  });

  it("with experimental-prometheus-rw output it still matches", () => {
    const m = testRunManifest({ ...base, output: "prometheus", prometheusUrl: "http://prom:9090/api/v1/write" });
    expect(check(m, CRD)).toEqual([]);
    expect(m.spec.arguments).toMatch(/^--out experimental-prometheus-rw --tag testid=catchup-bench$/);
    expect(m.spec.runner.env).toContainEqual({
      name: "K6_PROMETHEUS_RW_SERVER_URL",
      value: "http://prom:9090/api/v1/write",
    });
  });

  it("the check bites: a wrong type, a missing required field, an unknown field", () => {
    const m = testRunManifest(base) as unknown as { spec: Record<string, unknown> };
    expect(check({ ...m, spec: { ...m.spec, parallelism: "4" } }, CRD)).toEqual([".spec.parallelism: not an integer"]);
    const { script: _script, ...noScript } = m.spec;
    expect(check({ ...m, spec: noScript }, CRD)).toEqual([".spec.script: required"]);
    expect(check({ ...m, spec: { ...m.spec, runners: 2 } }, CRD)).toEqual([".spec.runners: not in the schema"]);
    expect(check({ ...m, spec: { ...m.spec, parallelism: 2 ** 31 } }, CRD)).toEqual([
      ".spec.parallelism: outside int32",
    ]);
  });
});

describe("the ship commands", () => {
  it("pick a checked run id, archive with it and the option-shaping env, check the size decoded, apply this run's ConfigMap server-side", () => {
    const cmds = shipCommands(base);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    expect(cmds[0]).toBe('RUN_ID="${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)}"');
    expect(cmds[2]).toMatch(/-le 37 \]/);
    expect(cmds[3]).toBe('NAME="catchup-bench-$RUN_ID"');
    expect(cmds[5]).toBe(
      'k6 archive -e RUN_ID="$RUN_ID" -e CLIENTS=400 -e \'SUBSCRIBE_PAYLOAD={"afterSequence":{after}}\' -e URL=ws://target.load.svc:8080/ws ../scenarios/scaleout.js -O archive.tar',
    );
    expect(cmds[6]).toMatch(/^size=\$\(wc -c < archive\.tar\); echo "archive\.tar: \$size bytes/);
    // Kubernetes counts binaryData decoded: the tar's own bytes against 1 MiB, not their base64.
    expect(cmds[7]).toMatch(/^\[ "\$size" -le 1048576 \]/);
    expect(cmds[8]).toBe(
      'kubectl create configmap "$NAME-script" --namespace load --from-file=archive.tar=archive.tar --dry-run=client -o yaml | kubectl apply --server-side --force-conflicts -f -',
    );
    // No client-side apply of the ConfigMap: its last-applied annotation would stop at 262,144 bytes.
    expect(cmds.join("\n")).not.toMatch(/kubectl apply -f configmap/);
    expect(runScript(base, "testrun.json")).toMatch(/^#!\/bin\/sh\n[^\n]*\nset -eu\n/);
  });

  it("storm.js gets a shared START_AT in the archive, so the runners' schedules line up", () => {
    const cmds = shipCommands({ ...base, scriptPath: "../scenarios/storm.js" });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    expect(cmds[5]).toBe('START_AT="${START_AT:-$(( $(date +%s) + ${START_LEAD_S:-120} ))000}"');
    expect(cmds[6]).toMatch(/^k6 archive -e RUN_ID="\$RUN_ID" -e START_AT="\$START_AT" /);
    const given = shipCommands({ ...base, scriptPath: "../scenarios/storm.js", env: { START_AT: "1767225600000" } });
    expect(given.join("\n")).not.toMatch(/START_AT="\$\{START_AT/);
  });
});
