/**
 * Defensive readers shared by the probes: payloads are arbitrary JSON sent by vendors'
 * CI, so every access checks the shape first and nothing here can throw.
 */

export type JsonObject = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short description of a value's JSON type, for reasons ("a string", "null"). */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/** The reason given when a payload is not a JSON object at all. */
export function notAnObject(value: unknown, expected: string): string {
  return `Payload is ${describe(value)}, not ${expected}`;
}

/** `n` followed by the noun, pluralized (by default with a trailing "s") when `n` is not 1. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** Own property only, so "__proto__" or "constructor" in a payload never reach prototypes. */
export function own(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Lowercased string, or null for anything that is not a string. */
export function lower(value: unknown): string | null {
  return typeof value === "string" ? value.trim().toLowerCase() : null;
}

/** A value for a reason line: strings quoted and cut at `max`, containers only described. */
export function show(value: unknown, max = 60): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return describe(value);
}
