// `npm run docs:cli`: writes docs/cli.md from the options tables (atomically: a temp file, then rename).
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "../../common/atomic-file.js";
import { renderCliDoc } from "./docs.js";

/** docs/cli.md of the package (dist/scripts/options/ -> ../../..). */
export const CLI_DOC = fileURLToPath(new URL("../../../docs/cli.md", import.meta.url));

writeFileAtomic(CLI_DOC, renderCliDoc());
process.stdout.write(`${CLI_DOC}\n`);
