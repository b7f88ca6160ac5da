// Builds dist/server-under-test/main.js as one bundled module (run after tsc, which emits the same
// path unbundled): Node 20 spends about a second resolving and linking Effect's several hundred ES
// modules at every start, a bundle under half of that, and every memory trial starts a fresh server.
// Names are kept (a heap profile or stack shows the server's own function names) and a source map
// points back at server-under-test/*.ts. Native and optional addons stay ordinary imports, and so does
// `ws`: a preloaded module (bench:power's knob, a user's --import hook) patches the one WebSocket class
// the server uses only if both import it from node_modules.
import { build } from "esbuild";

const root = new URL("..", import.meta.url);

await build({
  absWorkingDir: root.pathname,
  entryPoints: ["server-under-test/main.ts"],
  outfile: "dist/server-under-test/main.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  keepNames: true,
  sourcemap: "linked",
  sourcesContent: false,
  external: ["better-sqlite3", "bufferutil", "utf-8-validate", "ws"],
  // CommonJS dependencies bundled into an ES module call require(): give them Node's own.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
  logLevel: "warning",
});
