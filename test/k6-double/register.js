// TEST AID, not k6. `node --import ./test/k6-double/register.js ...` installs the k6 double's resolve hook.
import { register } from "node:module";

register(new URL("./hooks.js", import.meta.url));
