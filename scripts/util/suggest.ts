// "did you mean --trials": the nearest known name to an unknown one (a flag; a binding's option).
// yargs suggests only commands.
// Pure: Levenshtein distance (insertions, deletions, substitutions), a bound that grows with length.

/** Edit distance between two strings (Levenshtein 1966), two rows of the usual table. */
export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = row;
  }
  return prev[b.length] as number;
}

/**
 * The known flag nearest to `typed`, when it is near enough to be a slip (at most 1 edit for short
 * names, 2 from 5 characters, 3 from 10), else null. Ties go to the first flag in `known`.
 */
export function suggestFlag(typed: string, known: readonly string[]): string | null {
  const name = typed.replace(/^no-/, "");
  const limit = name.length >= 10 ? 3 : name.length >= 5 ? 2 : 1;
  let best: { flag: string; d: number } | null = null;
  for (const flag of known) {
    const d = levenshtein(name, flag);
    if (d <= limit && (!best || d < best.d)) best = { flag, d };
  }
  return best ? best.flag : null;
}
