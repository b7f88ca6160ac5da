// A credential never goes into testrun.json, run.sh or README.md (all three are plain files, often
// committed or pasted): an --env whose name or value carries one is refused, naming the flag and
// the way that keeps it out (--token-secret, a Kubernetes Secret). Pure. The value is never quoted
// back: it is the secret.

// Names that hold a credential by convention (CATCHUP_TOKEN, AUTH, API_KEY, DB_PASSWORD, X-Api-Key, ...).
const SECRET_NAME =
  /TOKEN|SECRET|PASSW|PASSPHRASE|AUTH|CREDENTIAL|API[-_]?KEY|ACCESS[-_]?KEY|PRIVATE[-_]?KEY|TICKET|COOKIE/i;
// The scripts' own parameters whose names look like one but hold none (TOKEN_IN: header or query).
const NOT_SECRET = new Set(["TOKEN_IN"]);
const FIX = "use --token-secret (a Kubernetes Secret whose key `token` holds the bearer token)";

/** Why `value` (of an --env, a URL flag) carries a credential, or null. */
export function credentialIn(value: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@/i.test(value)) return "a user name or password in the URL (user:pw@)";
  if (
    /[?&#;](?:token|access_token|id_token|wsticket|ticket|auth|authorization|key|api_?key|password|passwd|secret|sig|signature)=/i.test(
      value,
    )
  )
    return "a credential in the URL's query";
  if (/\b(?:bearer|basic)\s+\S/i.test(value)) return "an Authorization value (Bearer/Basic)";
  return null;
}

/** Header names or values in HEADERS (a JSON object) that carry a credential, or null. */
function headersCredential(value: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null; // the script refuses malformed HEADERS itself
  }
  if (parsed === null || typeof parsed !== "object") return null;
  for (const [name, v] of Object.entries(parsed)) {
    if (SECRET_NAME.test(name)) return `a credential header (${name})`;
    if (typeof v === "string" && credentialIn(v)) return `a credential in header ${name}`;
  }
  return null;
}

/** The refusal line for one --env KEY=VALUE that would write a credential in clear, or null. */
export function envSecretProblem(key: string, value: string): string | null {
  if (SECRET_NAME.test(key) && !NOT_SECRET.has(key)) {
    return `--env ${key}=...: a variable named ${key} holds a credential, and testrun.json, run.sh and README.md would hold it in clear; ${FIX}`;
  }
  const why = key === "HEADERS" ? headersCredential(value) : credentialIn(value);
  if (why)
    return `--env ${key}=...: the value carries ${why}, which testrun.json, run.sh and README.md would hold in clear; ${FIX}`;
  return null;
}
