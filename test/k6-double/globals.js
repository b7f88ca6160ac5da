// TEST AID, not k6. The globals k6 gives a script beside the modules (grafana/k6 v2.2.0
// internal/js/bundle.go:448-500, internal/js/initcontext.go:16-40), and the stand-ins for Node's
// globals that k6 does not have (see hooks.js):
// - open(path[, "b"]): only in the init stage; a relative path is read from the main script's
//   directory; "b" gives an ArrayBuffer. NOT modelled: k6 reads only files the first init opened.
// - require(name): only in the init stage; the k6 modules the double provides. NOT modelled:
//   require() of a file.
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { inInit } from "./modules/state.js";

const MISSING = Symbol.for("catchup-bench.k6-double.missing");
const K6_MODULES = ["k6/websockets", "k6/experimental/websockets", "k6/metrics", "k6/execution", "k6/timers"];

// initcontext.go:16-17
const outsideInit = (fn) =>
  new Error(
    `the "${fn}" function is only available in the init stage (i.e. the global scope), see https://grafana.com/docs/k6/latest/using-k6/test-lifecycle/ for more information`,
  );

/** A value that throws k6's ReferenceError on any use: the script reached for a Node global. */
function missing(name) {
  const fail = () => {
    throw new ReferenceError(`${name} is not defined (a Node global: k6 has no ${name})`);
  };
  // biome-ignore lint/complexity/useArrowFunction: `new Buffer()` reaches the construct trap only on a constructible target
  return new Proxy(function () {}, { get: fail, apply: fail, construct: fail, set: fail, has: fail });
}

function open(baseDir, filename, mode) {
  if (!inInit()) throw outsideInit("open");
  if (!filename) throw new Error("open() can't be used with an empty filename");
  const path = String(filename).replace(/^file:\/\//, "");
  const full = isAbsolute(path) ? path : resolve(baseDir, path);
  if (statSync(full).isDirectory())
    throw new Error(`open() can't be used with directories, path: ${JSON.stringify(full)}`);
  const data = readFileSync(full);
  if (mode === "b") return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  return data.toString("utf8");
}

/** Installs open, require and the Node-global stand-ins; baseDir is the main script's directory. */
export async function installGlobals(baseDir) {
  const modules = {};
  for (const name of K6_MODULES) {
    const ns = await import(name);
    modules[name] = ns.default ?? ns;
  }
  globalThis[MISSING] = (names) => Object.fromEntries(names.map((n) => [n, missing(n)]));
  globalThis.open = (filename, mode) => open(baseDir, filename, mode);
  globalThis.require = (name) => {
    if (!inInit()) throw outsideInit("require");
    if (name in modules) return modules[name];
    throw new Error(`k6 double: require(${JSON.stringify(name)}) is not modelled (only ${K6_MODULES.join(", ")})`);
  };
}
