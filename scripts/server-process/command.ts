// A foreign target's command line: {port}/{db}/{state} substitution and `exec` semantics. Pure.

export class TargetError extends Error {
  override readonly name = "TargetError";
}

/**
 * Substitutes {port}, and {db} and {state} (both the target's private copy: of the fixture file, or
 * of its seeded state folder), in a foreign target's command. The path is inserted as is (it may sit
 * inside the user's own quotes), so it must be made of shell-safe characters.
 */
export function fillCommand(command: string, port: number, db: string): string {
  if (!/^[A-Za-z0-9._/-]+$/.test(db)) {
    throw new TargetError(
      `private copy path ${JSON.stringify(db)} has characters unsafe in a shell command; set TMPDIR (or the repository's path) to a plain path`,
    );
  }
  return command.split("{port}").join(String(port)).split("{db}").join(db).split("{state}").join(db);
}

// Words that make a command more than one simple command, or are builtins `exec` cannot run.
const NOT_EXECABLE = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "case",
  "esac",
  "for",
  "while",
  "until",
  "do",
  "done",
  "{",
  "}",
  "!",
  "[[",
  "function",
  "time",
  "select",
  "exec",
  "exit",
  "return",
  "set",
  "export",
  "eval",
  ".",
  "source",
  "trap",
  "shift",
  "unset",
  "readonly",
  "times",
  ":",
  "break",
  "continue",
  "wait",
  "cd",
  "ulimit",
  "umask",
  "alias",
]);

/**
 * True when command is one simple command: no unquoted `;`, `&`, `|`, `(`, `)` or newline, and a
 * first word that is neither a shell keyword, a builtin nor a variable assignment. Quotes and
 * backslashes are honoured; `$(...)` inside double quotes is part of a word.
 */
export function isSimpleCommand(command: string): boolean {
  const text = command.trim();
  if (text === "") return false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      continue;
    }
    if (c === "\\") {
      i++;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1] as string)))
      break; // a comment: the rest is not run
    else if (c === "&" && (text[i - 1] === ">" || text[i - 1] === "<"))
      continue; // 2>&1: a redirection
    else if (";&|()\n`".includes(c as string)) return false;
    else if (c === "$" && text[i + 1] === "(") return false;
  }
  if (quote !== null) return false;
  const first = text.split(/\s+/)[0] as string;
  if (NOT_EXECABLE.has(first)) return false;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) return false;
  return true;
}

/**
 * The script `sh -c` runs for a foreign target: `exec COMMAND` when COMMAND is one simple command, so
 * the target process itself receives the harness's signals and its exit status is the target's;
 * anything else (a pipeline, a list, an assignment prefix) runs as given, and the whole process group
 * is signalled instead.
 */
export function shellScript(command: string): string {
  return isSimpleCommand(command) ? `exec ${command.trim()}` : command;
}
