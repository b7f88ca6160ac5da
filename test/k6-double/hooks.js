// TEST AID, not k6. Module resolve hook of the k6 test double: maps the k6 modules our scenarios
// import to Node implementations in ./modules, and refuses what real k6 cannot load from a
// scenario (bare package imports, node: builtins) so a script that passes here also loads in k6.
const DOUBLES = {
  "k6/websockets": "./modules/websockets.js",
  "k6/experimental/websockets": "./modules/websockets.js",
  "k6/metrics": "./modules/metrics.js",
  "k6/execution": "./modules/execution.js",
  "k6/timers": "./modules/timers.js",
};

export async function resolve(specifier, context, next) {
  const target = DOUBLES[specifier];
  if (target) return { url: new URL(target, import.meta.url).href, shortCircuit: true };
  const parent = context.parentURL ?? "";
  const fromScenario = parent.includes("/scenarios/") && !parent.includes("/node_modules/");
  const relative = specifier.startsWith("./") || specifier.startsWith("../");
  if (fromScenario && !relative) {
    throw new Error(`k6 double: ${parent} imports ${JSON.stringify(specifier)}, which k6 cannot resolve`);
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
