/**
 * Builders for evaluator tests: controls with just the policy fields a case cares about.
 */
import type { ControlRule, EvidenceType, TrustControl } from "../../src/domain/control.ts";
import type { Observation } from "../../src/evaluate/mod.ts";

export const L = "2026-01-01T00:00:00.000Z";
export const L_MS = Date.parse(L);
export const SECOND = 1000;

export interface ControlOptions {
  /** Freshness window in seconds; null for kind none. */
  w?: number | null;
  d?: number | null;
  s?: number | null;
  key?: string;
  evidenceType?: EvidenceType | null;
  rule?: ControlRule | null;
}

/** A control reading `sbom` evidence with W, D, S given in seconds (unset means null). */
export function control(options: ControlOptions = {}): TrustControl {
  const evidenceType = options.evidenceType === undefined ? "sbom" : options.evidenceType;
  return {
    id: "6b0d7a9e-2f4c-4d8b-9a1e-3c5f7b9d1e2f",
    key: options.key ??
      (evidenceType === null ? "collector.heartbeat" : `evidence.${evidenceType}`),
    category: evidenceType === null ? "collector" : "evidence",
    publicName: "Test control",
    freshnessPolicyJson: options.w == null
      ? { kind: "none" }
      : { kind: "time_window", windowSeconds: options.w },
    degradationPolicyJson: {
      staleAfterSeconds: options.s ?? null,
      degradedAfterSeconds: options.d ?? null,
    },
    enabled: true,
    createdAt: L,
    evidenceType,
    rule: options.rule ?? null,
    required: false,
  };
}

/** An observation at `at` (default L) carrying `payload`. */
export function observed(payload: unknown, at = L): Observation {
  return { at, payload, evidenceRecordId: "0f9e8d7c-6b5a-4948-8372-615243f5e6d7" };
}

/** The instant `ms` milliseconds after L. */
export function after(ms: number): Date {
  return new Date(L_MS + ms);
}

/** The ISO string `ms` milliseconds after L. */
export function iso(ms: number): string {
  return after(ms).toISOString();
}

/** Base64 of a string's UTF-8 bytes, as DSSE envelopes carry payloads. */
export function base64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

/** An object nested `depth` levels deep: `{ a: { a: … } }`. */
export function deepObject(depth: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** An array nested `depth` levels deep: `[[…]]`. */
export function deepArray(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** Inputs no probe can read. */
export const GARBAGE: readonly [string, unknown][] = [
  ["null", null],
  ["undefined", undefined],
  ["a number", 42],
  ["a huge number", 1e308],
  ["a string", "x"],
  ["a boolean", true],
  ["an empty array", []],
  ["an array of numbers", [1, 2, 3]],
  ["an empty object", {}],
  ["a deeply nested object", deepObject(10_000)],
  ["a deeply nested array", deepArray(10_000)],
];
