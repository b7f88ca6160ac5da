// TEST AID, not k6. Module hooks of the k6 test double: map the k6 modules our scenarios import to
// Node implementations in ./modules, and refuse what real k6 cannot give a script, so a script that
// passes here also loads in k6. A "script module" is any file: module outside the double and
// outside node_modules (the script and what it imports, wherever it lives):
// - imports other than relative paths and k6 modules (node: builtins, bare packages) are refused:
//   k6 resolves only k6/*, relative, absolute and remote specifiers (internal/js/modules/resolution.go);
// - Node's globals (Buffer, process, structuredClone, global, setImmediate) are shadowed in each
//   script module by a stand-in that throws "ReferenceError: X is not defined", as in k6's runtime
//   (sobek has none of them). NOT modelled: `typeof Buffer` is "function" here, not "undefined";
//   globalThis.Buffer still reaches Node's; a script declaring one of these names itself keeps it.
const DOUBLES = {
  "k6/websockets": "./modules/websockets.js",
  "k6/experimental/websockets": "./modules/websockets.js",
  "k6/metrics": "./modules/metrics.js",
  "k6/execution": "./modules/execution.js",
  "k6/timers": "./modules/timers.js",
};
export const NODE_GLOBALS = ["Buffer", "process", "structuredClone", "global", "setImmediate"];
const DOUBLE_DIR = new URL("./", import.meta.url).href;

function isScriptModule(url) {
  return url.startsWith("file:") && !url.startsWith(DOUBLE_DIR) && !url.includes("/node_modules/");
}

export async function resolve(specifier, context, next) {
  const target = DOUBLES[specifier];
  if (target) return { url: new URL(target, import.meta.url).href, shortCircuit: true };
  const parent = context.parentURL ?? "";
  const relative = specifier.startsWith("./") || specifier.startsWith("../");
  if (specifier === "k6" || specifier.startsWith("k6/")) {
    throw new Error(`k6 double: ${JSON.stringify(specifier)} is a k6 module the double does not model`);
  }
  if (isScriptModule(parent) && !relative) {
    throw new Error(
      `k6 double: ${parent} imports ${JSON.stringify(specifier)}: k6 resolves only k6/* modules and relative paths here (no node: builtins or packages)`,
    );
  }
  const resolved = await next(specifier, context);
  // k6 gives each VU its own instance of every module: a VU's script (loaded as ...?vu=N) passes
  // its query on to the modules it imports, so module-level state is never shared between VUs.
  const vu = /[?&]vu=(\d+)/.exec(parent)?.[1];
  if (vu !== undefined && relative && resolved.url.startsWith("file:")) {
    const url = new URL(resolved.url);
    url.searchParams.set("vu", vu);
    return { ...resolved, url: url.href };
  }
  return resolved;
}

/** One line (so line numbers keep) shadowing Node's globals the script does not declare itself. */
function prologue(source) {
  const names = NODE_GLOBALS.filter(
    (n) => !new RegExp(`(?:\\b(?:const|let|var|function|class)\\s+|\\bimport\\s*\\{[^}]*\\b)${n}\\b`).test(source),
  );
  if (names.length === 0) return "";
  const missing = 'globalThis[Symbol.for("catchup-bench.k6-double.missing")]';
  return `const { ${names.join(", ")} } = ${missing}(${JSON.stringify(names)});`;
}

export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (!isScriptModule(url) || loaded.format !== "module") return loaded;
  return { ...loaded, source: prologue(String(loaded.source)) + String(loaded.source) };
}
