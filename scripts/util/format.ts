// Number formatting for rendered reports. Units on disk are bytes and ms; MiB appears only here.

const MIB = 1024 * 1024;

export function mib(bytes: number | null, digits = 1): string {
  return bytes === null ? "n/a" : `${(bytes / MIB).toFixed(digits)}`;
}

export function ms(value: number | null, digits = 1): string {
  return value === null ? "n/a" : value.toFixed(digits);
}

export function ratio(value: number): string {
  return value.toFixed(3);
}

/** "a → b unit", or "n/a" parts where a figure is missing. */
export function arrow(a: string, b: string, unit = ""): string {
  const suffix = unit && (a !== "n/a" || b !== "n/a") ? ` ${unit}` : "";
  return `${a} → ${b}${suffix}`;
}

/** Script sizes as people say them: 1 KiB, 8 KiB, 1,500 B. */
export function size(bytes: number): string {
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString("en-US")} B`;
}

/** A set of chunk counts: "2", or "2–3" when trials differed, or "n/a". */
export function chunkSet(values: readonly number[]): string {
  if (values.length === 0) return "n/a";
  const lo = values[0] as number;
  const hi = values[values.length - 1] as number;
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}
