// What the k6 driver's k6 process may see of the harness's environment. `k6 run` copies the whole
// system environment into __ENV (grafana/k6 internal/cmd/runtime_options.go:22-25 and 154-157, the
// run command's default) and reads K6_* from it as options: K6_ITERATIONS or K6_DURATION replace the
// script's scenarios (lib/options.go:356-398), K6_SUMMARY_MODE=disabled or K6_NO_SUMMARY skips
// handleSummary, so no rows (internal/cmd/run.go:179-191, 522-533), K6_NO_THRESHOLDS stops
// thresholds, K6_VUS and scenario variables (CASE, THRESHOLDS, ITERATIONS, ...) change what the
// script runs. So k6 gets only what a process needs to start and reach a target, and the session
// parameters. Pure.

/** Inherited as they are: the executable path, home and temp dirs, locale, CA certificates, proxies. */
export const K6_INHERITED_ENV = [
  "PATH",
  "HOME",
  "TMPDIR",
  "TMP",
  "TEMP",
  "TZ",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
] as const;

/** The environment for the k6 process: the inherited variables that are set, then the parameters. */
export function k6ProcessEnv(
  parent: Readonly<Record<string, string | undefined>>,
  params: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of K6_INHERITED_ENV) {
    const v = parent[name];
    if (v !== undefined) env[name] = v;
  }
  return { ...env, ...params };
}
