// k6-operator --env: a credential (by its name, in a URL's query or user info, as a Bearer value, in
// HEADERS) is refused, never quoted back; ordinary parameters pass.
import { describe, expect, it } from "vitest";
import { envSecretProblem } from "../../scripts/k6operator/env-secrets.js";
import { imageRefProblem } from "../../scripts/k6operator/image-ref.js";

describe("envSecretProblem", () => {
  it.each([
    ["TOKEN", "x"],
    ["CATCHUP_TOKEN", "x"],
    ["AUTH", "Bearer x"],
    ["DB_PASSWORD", "x"],
    ["URL", "ws://x/ws?token=SEKRIT"],
    ["URL", "wss://x/ws?a=1&wsTicket=SEKRIT"],
    ["URL", "ws://user:SEKRIT@x/ws"],
    ["EXTRA", "Bearer SEKRIT"],
    ["HEADERS", '{"X-Api-Key":"SEKRIT"}'],
    ["HEADERS", '{"X-Forwarded":"Basic SEKRIT"}'],
  ])("refuses %s=%s without quoting the value", (key, value) => {
    const line = envSecretProblem(key, value);
    expect(line).toMatch(new RegExp(`^--env ${key}=\\.\\.\\.: .*--token-secret`));
    expect(line).not.toContain("SEKRIT");
  });

  it.each([
    ["URL", "ws://target:8080/ws"],
    ["URL", "ws://target:8080/ws?cursor=5"],
    ["CLIENTS", "400"],
    ["TOKEN_IN", "query"],
    ["HEADERS", '{"X-Trace":"1"}'],
    ["SUBSCRIBE_PAYLOAD", '{"tag":"x"}'],
  ])("accepts %s=%s", (key, value) => {
    expect(envSecretProblem(key, value)).toBeNull();
  });
});

describe("imageRefProblem (--image, --agent-image: unquoted in the snippet's YAML and in README.md)", () => {
  it.each([
    "img:1\n    securityContext: { privileged: true }",
    "k6img\nrm -rf /",
    "img: x",
    "img#x",
    "Upper/Case",
    "user:pw@registry.example/img",
    "`img`",
    "",
  ])("refuses %j", (value) => {
    expect(imageRefProblem("agent-image", value)).toMatch(/^--agent-image must be an image reference/);
  });

  it.each([
    "grafana/k6:2.2.0",
    "catchup-bench-agent:latest",
    "registry.example:5000/team/agent:1.2",
    "localhost/agent",
    `ghcr.io/x/y@sha256:${"a".repeat(64)}`,
  ])("accepts %s", (value) => {
    expect(imageRefProblem("image", value)).toBeNull();
  });
});
