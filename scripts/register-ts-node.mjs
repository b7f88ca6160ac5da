// Runs a TypeScript target from source through this project's own ts-node, without a build step:
//   node --import ./scripts/register-ts-node.mjs server.ts --port {port}
// `npx ts-node server.ts` fails in an ESM package (ERR_UNKNOWN_FILE_EXTENSION) and `--loader` prints an
// experimental warning; registering the ESM hooks from an --import file does neither. Transpile-only:
// under the ESM hooks a type error prints as an opaque object, so type-check with `tsc --noEmit`.
// Resolved from this file, not from the working directory, so a target may run from its own folder.
// Only for foreign targets: the bundled server and everything else we measure runs compiled JS.
import { register } from "node:module";

register("ts-node/esm/transpile-only", import.meta.url);
