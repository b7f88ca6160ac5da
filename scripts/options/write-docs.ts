// `npm run docs:cli`: writes docs/cli.md and the config file's JSON Schema from the options tables
// (atomically: a temp file, then rename).
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { benchConfigSchema, SCHEMA_FILE } from "./config-file.js";
import { renderCliDoc } from "./docs.js";

/** docs/cli.md of the package (dist/scripts/options/ -> ../../..). */
export const CLI_DOC = fileURLToPath(new URL("../../../docs/cli.md", import.meta.url));
/** The schema in the package root, published with it. */
const SCHEMA = fileURLToPath(new URL(`../../../${SCHEMA_FILE}`, import.meta.url));

writeFileAtomic(CLI_DOC, renderCliDoc());
writeFileAtomic(SCHEMA, `${JSON.stringify(benchConfigSchema(), null, 2)}\n`);
process.stdout.write(`${CLI_DOC}\n${SCHEMA}\n`);
