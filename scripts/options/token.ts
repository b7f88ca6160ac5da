// Where the bearer token comes from: --token, else --token-file, else $CATCHUP_TOKEN, else the
// bundled server's dev token. --token-file and CATCHUP_TOKEN keep the secret off the command line,
// where `ps` shows it to every user of the machine.
import { resolve } from "node:path";
import { DEV_TOKEN } from "../../scenarios/lib/protocol.js";
import { readRegularFile } from "../util/regular-file.js";
import { UsageError } from "../util/usage.js";

export type Env = Record<string, string | undefined>;

/** The token to connect with; a bad --token-file or an empty CATCHUP_TOKEN is a usage error naming it. */
export function resolveToken(
  flags: { token?: string | undefined; "token-file"?: string | undefined },
  env: Env,
  read: (path: string) => string = readRegularFile,
): string {
  const file = flags["token-file"];
  if (flags.token !== undefined) {
    if (file !== undefined) throw new UsageError("--token and --token-file cannot be combined (give one)");
    return flags.token;
  }
  if (file !== undefined) {
    let text: string;
    try {
      text = read(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      throw new UsageError(`--token-file must be a readable file holding the token (${resolve(file)}: ${code})`);
    }
    // One token on the first line; a trailing newline (as `echo` writes) is not part of it.
    const token = text.split(/\r?\n/)[0]?.trim() ?? "";
    if (token === "") throw new UsageError(`--token-file holds no token on its first line (${resolve(file)})`);
    return token;
  }
  const fromEnv = env.CATCHUP_TOKEN;
  if (fromEnv !== undefined) {
    if (fromEnv.trim() === "") throw new UsageError("CATCHUP_TOKEN is set but empty (unset it, or set a token)");
    return fromEnv.trim();
  }
  return DEV_TOKEN;
}
