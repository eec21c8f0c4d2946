/**
 * Input generation for the API fuzzer: a seeded random source, values
 * generated from the JSON Schemas /openapi.json documents (valid-ish), and
 * mutations of them (wrong types, missing or unknown fields, huge strings,
 * deep nesting, broken encodings).
 */

// deno-lint-ignore no-explicit-any
export type Schema = Record<string, any>;

/** A small seeded PRNG (mulberry32): the same seed replays the same requests. */
export class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(16).toString(16)).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${
      hex.slice(20)
    }`;
  }
}

const HUGE = "x".repeat(300 * 1024);
const LONG = "y".repeat(5000);

/** Strings that have broken parsers before: encodings, separators, lengths. */
export const GARBAGE = [
  "",
  " ",
  "..",
  "%00",
  "%E0%A4%A",
  "%",
  "a/b",
  "\u0000",
  "\ud800",
  "ü-ñ",
  "-1",
  "0",
  "1e400",
  "9007199254740993",
  "null",
  "true",
  "[]",
  "{}",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "a".repeat(64),
  "b".repeat(300),
  LONG,
  "Ａ".repeat(40),
  "__proto__",
  "constructor",
];

function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  let current = schema;
  for (let i = 0; i < 10 && typeof current?.$ref === "string"; i++) {
    current = components[current.$ref.split("/").pop()!] ?? {};
  }
  return current ?? {};
}

const PATTERN_SAMPLES = ["abc", "acme-cloud", "a1", "x", "AbC_9-z", "tp_0123456789abcdef"];

function stringFor(schema: Schema, rng: Rng): string {
  switch (schema.format) {
    case "uuid":
      return rng.uuid();
    case "date-time":
      return new Date(Date.UTC(2026, 9, 1 + rng.int(60), rng.int(24))).toISOString();
    case "email":
      return `u${rng.int(1000)}@example.com`;
    case "uri":
    case "url":
      return `https://example.com/${rng.int(1000)}`;
  }
  if (schema.pattern && rng.chance(0.8)) return rng.pick(PATTERN_SAMPLES);
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 40, min + 40);
  const length = min + rng.int(Math.max(1, max - min + 1));
  return Array.from({ length }, () => String.fromCharCode(97 + rng.int(26))).join("");
}

/** A value that (mostly) satisfies `schema`. */
export function generate(
  schema: Schema,
  rng: Rng,
  options: { components: Record<string, Schema>; depth?: number },
): unknown {
  const s = resolve(schema, options.components);
  const depth = options.depth ?? 0;
  const next = { ...options, depth: depth + 1 };
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return rng.pick(s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) return generate(rng.pick(alternatives), rng, next);
  if (Array.isArray(s.allOf)) return generate(Object.assign({}, ...s.allOf), rng, next);
  const type = Array.isArray(s.type)
    ? rng.pick(s.type.filter((t: string) => t !== "null"))
    : s.type;
  if (depth > 6) return null;
  switch (type) {
    case "string":
      return stringFor(s, rng);
    case "integer":
    case "number": {
      const min = s.minimum ?? 0;
      const max = Math.min(s.maximum ?? 1000, min + 1000);
      return min + rng.int(max - min + 1);
    }
    case "boolean":
      return rng.chance(0.5);
    case "array": {
      const count = Math.min(s.maxItems ?? 3, (s.minItems ?? 0) + rng.int(3));
      return Array.from({ length: count }, () => generate(s.items ?? {}, rng, next));
    }
    case "object":
    case undefined: {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(s.required ?? []);
      for (const [key, child] of Object.entries(s.properties ?? {})) {
        if (required.has(key) || rng.chance(0.6)) out[key] = generate(child as Schema, rng, next);
      }
      return out;
    }
  }
  return null;
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const WRONG_TYPES = [42, -1, 1.5, true, null, [], {}, "", "x", [1, 2], { a: 1 }];

/** A mutation of `value`, or `value` itself about a third of the time. */
export function mutate(value: unknown, rng: Rng): unknown {
  const roll = rng.int(12);
  if (roll < 4) return value;
  const object = value && typeof value === "object" && !Array.isArray(value)
    ? { ...(value as Record<string, unknown>) }
    : null;
  const keys = object ? Object.keys(object) : [];
  switch (roll) {
    case 4:
      if (object && keys.length) object[rng.pick(keys)] = rng.pick(WRONG_TYPES);
      return object ?? rng.pick(WRONG_TYPES);
    case 5:
      if (object && keys.length) delete object[rng.pick(keys)];
      return object ?? {};
    case 6:
      return { ...object, [rng.pick(["surprise", "__proto__", "constructor", "id"])]: 1 };
    case 7:
      if (object && keys.length) object[rng.pick(keys)] = rng.chance(0.3) ? HUGE : LONG;
      return object ?? LONG;
    case 8:
      if (object && keys.length) object[rng.pick(keys)] = nested(rng.pick([10, 70, 500]), "x");
      return object ?? nested(100, 1);
    case 9:
      return [value];
    case 10:
      if (object && keys.length) object[rng.pick(keys)] = rng.pick(GARBAGE);
      return object ?? rng.pick(GARBAGE);
    default:
      return rng.pick(WRONG_TYPES);
  }
}

/** Raw body texts no serializer produces. */
export const RAW_BODIES = [
  "",
  "{",
  '{"a":1e400}',
  "[1,",
  "null",
  '"text"',
  "\u0000\u0001",
  "a=1&a=2&%ZZ=%",
  "=&&=",
  "\ufeff{}",
  '{"a":"\\ud800"}',
];

export const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/merge-patch+json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "text/plain",
  "text/html",
  "application/octet-stream",
  "application/json; charset=utf-16",
  "invalid",
  "",
];

/** Encodes a generated value as a form, stringifying what is not a string. */
export function formOf(value: unknown): string {
  if (!value || typeof value !== "object") return String(value);
  const form = new URLSearchParams();
  for (const [key, v] of Object.entries(value)) {
    form.append(key, typeof v === "string" ? v : JSON.stringify(v));
  }
  return form.toString();
}

/**
 * Host header values beside the service's own: other spellings of it, names no project owns,
 * malformed hosts and ports, and values the URL parser refuses (a numeric last label, bad
 * percent escapes, spaces) or that would move part of the path (`/`, `?`, `#`, `@`).
 */
export const HOSTS = [
  "trust.test:80",
  "TRUST.Test",
  "trust.test.",
  "127.0.0.1",
  "[::1]:8000",
  "localhost",
  "other.example",
  "nobody.trust.test",
  "a.1",
  "1.2.3.4.5",
  "x.127.0.0.1",
  "trust.test.0x1",
  "%",
  "%zz.example",
  "[::1",
  "[zz]",
  "a b",
  "x/trust/nope",
  "trust.test?x",
  "trust.test#x",
  "u@trust.test",
  "a\\b",
  "trust.test:abc",
  "trust.test:99999",
  "_x.example.com",
  "-a.example",
  "a..b",
  "xn--.example",
  `${"a".repeat(64)}.example`,
  `${"b.".repeat(130)}example`,
  "c".repeat(2000),
  "",
];

/** `Forwarded` (RFC 7239) values, well-formed and not. */
export const FORWARDED = [
  "for=192.0.2.60;proto=https",
  'for="[2001:db8:cafe::17]:4711"',
  "for=unknown",
  "for=_hidden, for=198.51.100.17",
  "for=127.0.0.1, for=127.0.0.1",
  'for="[::1',
  "for=",
  ";;==,,",
  "by=203.0.113.43",
  "for=999.1.1.1",
  Array.from({ length: 100 }, (_, i) => `for=10.0.0.${i % 256}`).join(", "),
];

/** `X-Forwarded-For` values. */
export const FORWARDED_FOR = [
  "203.0.113.7",
  "203.0.113.7, 127.0.0.1",
  "::1",
  "::ffff:127.0.0.1",
  "a, b, c",
  ",,,",
  "1.2.3.4:5678",
  Array.from({ length: 200 }, () => "127.0.0.1").join(","),
];

/** `Accept` values, from plain media types to broken quality values. */
export const ACCEPTS = [
  "text/html",
  "text/markdown",
  "*/*",
  "application/json",
  "x",
  "text/html;q=0.9, application/json;q=1",
  "text/markdown, text/html;q=0.1",
  "text/html;q=abc",
  "text/html;q=-1, */*;q=0",
  "application/json, text/event-stream",
  ";;;,,",
  Array.from({ length: 300 }, () => "text/html;q=0.5").join(", "),
];

/** `If-None-Match` values. */
export const ENTITY_TAGS = [
  "*",
  '"abc"',
  'W/"x", "y"',
  'W/""',
  '"',
  "no-quotes",
  Array.from({ length: 200 }, (_, i) => `"e${i}"`).join(", "),
];

/** Other request headers the service or its libraries read, each with odd values. */
export const OTHER_HEADERS: Record<string, string[]> = {
  origin: ["null", "https://evil.example", "http://trust.test", "http://trust.test:80", "%%%"],
  cookie: ["tp_csrf=x", "tp_signup_csrf=%E0%A4%A; tp_csrf=", "=;;=", "a".repeat(4000)],
  "accept-encoding": ["gzip", "br, gzip;q=0.5", "*;q=0", "identity;q=x", ""],
  "mcp-protocol-version": ["2025-06-18", "1999-01-01", "x"],
  "mcp-session-id": ["abc", "", "z".repeat(300)],
};
