/**
 * Durations for people: policy thresholds exactly, ages roughly.
 */

const UNITS: readonly [string, number][] = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1000],
];

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** A policy threshold in whole seconds, in the largest unit that divides it exactly. */
export function formatSeconds(seconds: number): string {
  const ms = seconds * 1000;
  for (const [unit, size] of UNITS) {
    if (ms >= size && ms % size === 0) return plural(ms / size, unit);
  }
  return plural(seconds, "second");
}

/**
 * An age in milliseconds, rounded down to a unit that keeps at least two of it, so "36
 * hours" rather than "1 day" and the reason never overstates how old evidence is.
 */
export function formatAge(ms: number): string {
  for (const [unit, size] of UNITS) {
    if (ms >= 2 * size) return plural(Math.floor(ms / size), unit);
  }
  return plural(Math.floor(ms / 1000), "second");
}
