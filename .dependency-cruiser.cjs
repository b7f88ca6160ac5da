// The architecture's import rules (DESIGN.md §3, docs/development.md "Who imports whom"), checked by
// `npm run lint:deps` inside `npm test`. Inside scripts/ a layer imports only the layers below it:
//
//   cli.ts, commands/, selfbench/       entry points
//   options/                            flags -> typed configs
//   clinic/, fuzz/, k6operator/         orchestration that borrows bench/'s fixture and plan helpers
//   history/                            orchestration: record, add, detect over the history store
//   bench/                              orchestration: latency, memory, leak and storm cells, refs
//   report/                             rendering
//   verdicts/                           pure judging
//   storm/, seed/ -> driver/ -> server-process/ -> sampler/; refs/ -> server-process/; store/     instruments
//   results/, util/                     the schema and the journal; small pure utilities
const LAYERS = [
  ["entry", "^scripts/(cli\\.ts$|commands/|selfbench/)"],
  ["options", "^scripts/options/"],
  ["tools", "^scripts/(clinic|fuzz|k6operator)/"],
  ["history", "^scripts/history/"],
  ["bench", "^scripts/bench/"],
  ["report", "^scripts/report/"],
  ["verdicts", "^scripts/verdicts/"],
  ["storm", "^scripts/storm/"],
  ["seed", "^scripts/seed/"],
  ["driver", "^scripts/driver/"],
  ["refs", "^scripts/refs/"],
  ["server-process", "^scripts/server-process/"],
  ["sampler", "^scripts/sampler/"],
  ["store", "^scripts/store/"],
  ["results", "^scripts/results/"],
  ["util", "^scripts/util/"],
];

// Layer i may not import any layer above it (index < i). refs/ and driver/ are siblings: neither
// imports the other.
const upward = LAYERS.slice(1).map(([name, path], i) => ({
  name: `no-upward-from-${name}`,
  comment: `scripts/ layers import only downward: ${name} must not import ${LAYERS.slice(0, i + 1)
    .map(([n]) => n)
    .join(", ")}`,
  severity: "error",
  from: { path },
  to: { path: LAYERS.slice(0, i + 1).map(([, p]) => p) },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: "refs-not-driver",
      comment: "refs/ (git checkouts) and driver/ (clients) are sibling instruments",
      severity: "error",
      from: { path: "^scripts/refs/" },
      to: { path: "^scripts/driver/" },
    },
    {
      name: "store-is-an-instrument",
      comment:
        "store/ (the history store) imports only results/, util/ and common/: it keeps data, never judges or runs",
      severity: "error",
      from: { path: "^scripts/store/" },
      to: { path: "^(scripts/(?!store/|results/|util/)|fixtures/|scenarios/|server-under-test/)" },
    },
    {
      name: "results-is-a-leaf",
      comment: "results/ (schema, journal) imports only util/, common/, the fixture schema and scenarios/lib",
      severity: "error",
      from: { path: "^scripts/results/" },
      to: { path: "^(scripts/(?!results/|util/)|server-under-test/)" },
    },
    {
      name: "util-is-a-leaf",
      comment: "util/ imports nothing of scripts/ (only common/, the bottom layer)",
      severity: "error",
      from: { path: "^scripts/util/" },
      to: { path: "^(scripts/(?!util/)|fixtures/|server-under-test/|scenarios/)" },
    },
    {
      name: "scenarios-lib-self-contained",
      comment: "scenarios/lib runs under k6: it imports nothing outside itself (and no package)",
      severity: "error",
      from: { path: "^scenarios/lib/" },
      to: { pathNot: "^scenarios/lib/" },
    },
    {
      name: "k6-scripts-only-lib",
      comment: "the k6 scripts import scenarios/lib and k6's own modules only",
      severity: "error",
      from: { path: "^scenarios/[^/]+\\.js$" },
      to: { path: "^(scripts|fixtures|server-under-test|test)/" },
    },
    {
      name: "common-is-the-bottom",
      comment:
        "common/ (helpers every part may import: atomic files, disk full, process alive, the PRNG) imports none of the others",
      severity: "error",
      from: { path: "^common/" },
      to: { path: "^(scripts|fixtures|scenarios|server-under-test|test)/" },
    },
    {
      name: "bindings-self-contained",
      comment:
        "a shipped binding is a user's kind of module: it imports nothing of the harness (its contract is types)",
      severity: "error",
      from: { path: "^bindings/" },
      to: { path: "^(scripts|fixtures|scenarios|server-under-test|test|common)/" },
    },
    {
      name: "fixtures-self-contained",
      comment: "fixtures/ (the fixture generator) imports none of the others but common/",
      severity: "error",
      from: { path: "^fixtures/" },
      to: { path: "^(scripts|scenarios|server-under-test|test)/" },
    },
    {
      name: "nobody-imports-the-bundled-server",
      comment: "the harness knows the bundled server only as a process it starts and a URL it dials",
      severity: "error",
      from: { pathNot: "^(server-under-test|test)/" },
      to: { path: "^server-under-test/" },
    },
    {
      name: "bundled-server-imports-only-fixture-schema",
      comment: "server-under-test imports only the fixture schema and metadata reader (and common/)",
      severity: "error",
      from: { path: "^server-under-test/" },
      to: { path: "^(scripts|scenarios|test)/|^fixtures/(?!schema\\.ts$|meta\\.ts$)" },
    },
    {
      name: "no-circular",
      comment: "no import cycles anywhere",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-unresolvable",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules|reports)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
