/**
 * CVSS vectors to scores, for scanners that report a vector instead of a rating (OSV's
 * `severity[]`). The arithmetic is ae-cvss-calculator's, an implementation of FIRST's
 * specifications for v3.0, v3.1 and v4.0 (v4 scores come from a lookup table of
 * macrovectors, which is no formula to write by hand); this module only decides which
 * vectors are complete enough to score.
 */
import cvss from "ae-cvss-calculator";

/** Base metrics every vector of the version must carry, with their allowed values. */
const V3_BASE: Record<string, string[]> = {
  AV: ["N", "A", "L", "P"],
  AC: ["L", "H"],
  PR: ["N", "L", "H"],
  UI: ["N", "R"],
  S: ["U", "C"],
  C: ["H", "L", "N"],
  I: ["H", "L", "N"],
  A: ["H", "L", "N"],
};
const V4_BASE: Record<string, string[]> = {
  AV: ["N", "A", "L", "P"],
  AC: ["L", "H"],
  AT: ["N", "P"],
  PR: ["N", "L", "H"],
  UI: ["N", "P", "A"],
  VC: ["H", "L", "N"],
  VI: ["H", "L", "N"],
  VA: ["H", "L", "N"],
  SC: ["H", "L", "N"],
  SI: ["H", "L", "N"],
  SA: ["H", "L", "N"],
};
/** Longer than any real vector with every optional metric. */
const MAX_VECTOR_LENGTH = 400;
/**
 * Scores already computed: a report repeats a few vectors many times and every recompute
 * reads it again, while one calculation costs tens of microseconds. Cleared when full.
 */
const CACHE = new Map<string, number | null>();
const CACHE_SIZE = 2048;

/**
 * The score of a CVSS v3.0, v3.1 or v4.0 vector (`CVSS:3.1/AV:N/…`), or null when the
 * string is not such a vector with all of its version's base metrics. v3 vectors give
 * their base score; v4 vectors the score of the metrics they carry (CVSS-B, or CVSS-BT
 * with threat metrics), as the v4 specification defines it. Never throws.
 */
export function cvssScore(vector: unknown): number | null {
  if (typeof vector !== "string" || vector.length > MAX_VECTOR_LENGTH) return null;
  const known = CACHE.get(vector);
  if (known !== undefined) return known;
  if (CACHE.size >= CACHE_SIZE) CACHE.clear();
  const score = compute(vector);
  CACHE.set(vector, score);
  return score;
}

function compute(vector: string): number | null {
  const [prefix, ...parts] = vector.trim().split("/");
  const base = prefix === "CVSS:4.0" ? V4_BASE : /^CVSS:3\.[01]$/.test(prefix) ? V3_BASE : null;
  if (base === null || !hasBaseMetrics(parts, base)) return null;
  try {
    const score = prefix === "CVSS:4.0"
      ? new cvss.Cvss4P0(vector.trim()).calculateScores().overall
      : prefix === "CVSS:3.1"
      ? new cvss.Cvss3P1(vector.trim()).calculateScores().base
      : new cvss.Cvss3P0(vector.trim()).calculateScores().base;
    return typeof score === "number" && score >= 0 && score <= 10 ? score : null;
  } catch {
    // The library refuses unknown metrics or values; such a vector has no score.
    return null;
  }
}

function hasBaseMetrics(parts: string[], base: Record<string, string[]>): boolean {
  const seen = new Map<string, string>();
  for (const part of parts) {
    const [key, value, extra] = part.split(":");
    if (!key || !value || extra !== undefined || seen.has(key)) return false;
    seen.set(key, value);
  }
  return Object.entries(base).every(([key, values]) => values.includes(seen.get(key) ?? ""));
}
