/** Small readers of untrusted JSON values shared by the VEX formats. */

/** A string with content, trimmed, else null. */
export function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** The strings with content of a list, trimmed; [] for anything else. */
export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(text).filter((s): s is string => s !== null) : [];
}

/** A date-time string that parses, else null. */
export function instant(value: unknown): string | null {
  const s = text(value);
  return s !== null && Number.isFinite(Date.parse(s)) ? s : null;
}

/** The value when it is a list, else []. */
export function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
