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
  if (fromScenario && !specifier.startsWith("./") && !specifier.startsWith("../")) {
    throw new Error(`k6 double: ${parent} imports ${JSON.stringify(specifier)}, which k6 cannot resolve`);
  }
  return next(specifier, context);
}
