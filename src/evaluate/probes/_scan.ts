/**
 * What every scanner reader shares: severities, findings, the reading a report becomes,
 * and the rating rules (CVSS bands and severity words) the readers map their tools'
 * ratings through.
 */
import { isObject, type JsonObject, lower, own } from "./_read.ts";
import type { EvidenceFormat } from "../../domain/evidence_formats.ts";
import type { ScanFinding } from "./vex_match.ts";

/** Finding severities from least to most severe. */
export const SEVERITIES = ["low", "medium", "high", "critical"] as const;
export type Severity = typeof SEVERITIES[number];
export type Rating = Severity | "unrated";
export type Finding = ScanFinding<Rating>;

/** Findings per severity; `unrated` holds findings the scanner gave no usable severity. */
export type Tally = Record<Rating, number>;

/**
 * A report read in `format`: its findings and the identifiers of what was scanned, or
 * only a tally (a summary names no findings), or why it cannot be read. `note` is said
 * after the counts (what was left out and why); `unratedFail` names why unrated findings
 * fail in this format (a tool that never rates its findings), absent where they do not.
 */
export type ScanReading =
  | {
    format: EvidenceFormat;
    findings: Finding[];
    artifacts: string[];
    note?: string;
    unratedFail?: string;
  }
  | { format: EvidenceFormat; tally: Tally }
  | { format?: EvidenceFormat; error: string };

export function emptyTally(): Tally {
  return { critical: 0, high: 0, medium: 0, low: 0, unrated: 0 };
}

/** The non-empty strings among `values`. */
export function texts(...values: unknown[]): string[] {
  return values.filter((v): v is string => typeof v === "string" && v !== "");
}

/** `value` when it is an array, else an empty one. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `value` when it is a JSON object, else an empty one. */
export function object(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

/** `name@version` when both are strings. */
export function nameAtVersion(name: unknown, version: unknown): string[] {
  return typeof name === "string" && typeof version === "string" ? [`${name}@${version}`] : [];
}

/** A purl `pkg:type/name@version` (version left out when absent), `@` of scopes encoded. */
export function purl(type: string, name: unknown, version?: unknown): string[] {
  if (typeof name !== "string" || name === "") return [];
  const at = typeof version === "string" && version !== "" ? `@${version}` : "";
  return [`pkg:${type}/${name.replace(/^@/, "%40")}${at}`];
}

/** The GitHub advisory id in an advisory URL (`…/advisories/GHSA-xxxx-xxxx-xxxx`). */
export function ghsaOf(url: unknown): string[] {
  const match = typeof url === "string" ? url.match(/\/(GHSA(?:-[0-9a-z]{4}){3})$/i) : null;
  return match ? [match[1]] : [];
}

/** The most severe of `severities`, or unrated when none is rated. */
export function worst(severities: Rating[]): Rating {
  let best = -1;
  for (const s of severities) best = Math.max(best, SEVERITIES.indexOf(s as Severity));
  return best === -1 ? "unrated" : SEVERITIES[best];
}

/** CVSS v3/v4 qualitative rating; a 0.0 ("none") score is counted as low. */
export function byCvssScore(score: number): Severity {
  if (score >= 9) return "critical";
  if (score >= 7) return "high";
  if (score >= 4) return "medium";
  return "low";
}

/** A scanner's severity word; unknown words (and "unknown") are unrated. */
export function bySeverityWord(value: unknown): Rating {
  switch (lower(value)) {
    case "critical":
      return "critical";
    case "high":
      return "high";
    case "medium":
    case "moderate": // GitHub advisories, as npm and OSV carry them
      return "medium";
    case "low":
    case "negligible": // Grype, below low
    case "info": // npm, below low
      return "low";
    default:
      return "unrated";
  }
}

/** `own` for a key path, stopping at the first value that is not an object. */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = own(current, key);
  }
  return current;
}
