// An image flag's value lands unquoted in server-pod-snippet.yaml (`image: …`) and in README.md, so it
// must be an image reference and nothing more: a newline or `: ` would add YAML keys to the pod spec
// (a `securityContext: { privileged: true }`), Markdown would render the rest. Pure.

// [registry[:port]/]name[/name…][:tag][@sha256:digest], as Docker's reference grammar (lower-case names).
const COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const IMAGE_REF = new RegExp(
  `^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?/)?${COMPONENT}(?:/${COMPONENT})*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$`,
);

/** The refusal line for an --image/--agent-image value that is not an image reference, or null. */
export function imageRefProblem(flag: string, value: string): string | null {
  if (value.length <= 255 && IMAGE_REF.test(value)) return null;
  return `--${flag} must be an image reference such as registry.example:5000/team/agent:1.2 (lower-case name, optional tag and @sha256 digest; got ${JSON.stringify(value)})`;
}
