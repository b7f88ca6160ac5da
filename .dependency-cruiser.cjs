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

// Every rule is an error: modules matching `from` must not import modules matching `to`.
const forbid = (name, comment, from, to) => ({ name, comment, severity: "error", from, to });

// Layer i may not import any layer above it (index < i). refs/ and driver/ are siblings: neither
// imports the other.
const upward = LAYERS.slice(1).map(([name, path], i) => {
  const above = LAYERS.slice(0, i + 1);
  return forbid(
    `no-upward-from-${name}`,
    `scripts/ layers import only downward: ${name} must not import ${above.map(([n]) => n).join(", ")}`,
    { path },
    { path: above.map(([, p]) => p) },
  );
});

module.exports = {
  forbidden: [
    ...upward,
    forbid(
      "refs-not-driver",
      "refs/ (git checkouts) and driver/ (clients) are sibling instruments",
      { path: "^scripts/refs/" },
      { path: "^scripts/driver/" },
    ),
    forbid(
      "store-is-an-instrument",
      "store/ (the history store) imports only results/, util/ and common/: it keeps data, never judges or runs",
      { path: "^scripts/store/" },
      { path: "^(scripts/(?!store/|results/|util/)|fixtures/|scenarios/|server-under-test/)" },
    ),
    forbid(
      "results-is-a-leaf",
      "results/ (schema, journal) imports only util/, common/, the fixture schema and scenarios/lib",
      { path: "^scripts/results/" },
      { path: "^(scripts/(?!results/|util/)|server-under-test/)" },
    ),
    forbid(
      "util-is-a-leaf",
      "util/ imports nothing of scripts/ (only common/, the bottom layer)",
      { path: "^scripts/util/" },
      { path: "^(scripts/(?!util/)|fixtures/|server-under-test/|scenarios/)" },
    ),
    forbid(
      "scenarios-lib-self-contained",
      "scenarios/lib runs under k6: it imports nothing outside itself (and no package)",
      { path: "^scenarios/lib/" },
      { pathNot: "^scenarios/lib/" },
    ),
    forbid(
      "k6-scripts-only-lib",
      "the k6 scripts import scenarios/lib and k6's own modules only",
      { path: "^scenarios/[^/]+\\.js$" },
      { path: "^(scripts|fixtures|server-under-test|test)/" },
    ),
    forbid(
      "common-is-the-bottom",
      "common/ (helpers every part may import: atomic files, disk full, process alive, the PRNG) imports none of the others",
      { path: "^common/" },
      { path: "^(scripts|fixtures|scenarios|server-under-test|test)/" },
    ),
    forbid(
      "bindings-self-contained",
      "a shipped binding is a user's kind of module: it imports nothing of the harness (its contract is types)",
      { path: "^bindings/" },
      { path: "^(scripts|fixtures|scenarios|server-under-test|test|common)/" },
    ),
    forbid(
      "fixtures-self-contained",
      "fixtures/ (the fixture generator) imports none of the others but common/",
      { path: "^fixtures/" },
      { path: "^(scripts|scenarios|server-under-test|test)/" },
    ),
    forbid(
      "nobody-imports-the-bundled-server",
      "the harness knows the bundled server only as a process it starts and a URL it dials",
      { pathNot: "^(server-under-test|test)/" },
      { path: "^server-under-test/" },
    ),
    forbid(
      "bundled-server-imports-only-fixture-schema",
      "server-under-test imports only the fixture schema and metadata reader (and common/)",
      { path: "^server-under-test/" },
      { path: "^(scripts|scenarios|test)/|^fixtures/(?!schema\\.ts$|meta\\.ts$)" },
    ),
    forbid("no-circular", "no import cycles anywhere", {}, { circular: true }),
    forbid("no-unresolvable", "every import resolves to a file or a package", {}, { couldNotResolve: true }),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|node_modules|reports)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
