/**
 * The bounds of anonymous questionnaire matching (src/serve/questionnaire_public.ts), as small
 * pure parts: request windows per key (rate limits), a least-recently-used map bounded by
 * bytes, texts cut at a word, and a body fitted to a byte budget. Nothing here reads a clock
 * or the store: the caller passes the time and the sizes.
 */

/** Requests per key in a fixed window; keys are forgotten when the window ends. */
export interface RateWindows {
  /**
   * Counts one request of `key` at `nowMs`: 0 when it is within the limit, else the
   * milliseconds until the window ends (the request is not counted).
   */
  take(key: string, nowMs: number): number;
}

/** Fixed windows of `windowMs` allowing `limit` requests each, for at most `maxKeys` keys. */
export function createRateWindows(
  options: { limit: number; windowMs: number; maxKeys: number },
): RateWindows {
  const windows = new Map<string, { start: number; count: number }>();
  const forgetEnded = (nowMs: number) => {
    for (const [key, window] of windows) {
      if (nowMs - window.start >= options.windowMs) windows.delete(key);
    }
  };
  return {
    take(key, nowMs) {
      let window = windows.get(key);
      if (window && (nowMs - window.start >= options.windowMs || nowMs < window.start)) {
        windows.delete(key);
        window = undefined;
      }
      if (!window) {
        if (windows.size >= options.maxKeys) forgetEnded(nowMs);
        // Still full: the oldest window goes (its key starts afresh; the other limits still hold).
        if (windows.size >= options.maxKeys) windows.delete(windows.keys().next().value!);
        window = { start: nowMs, count: 0 };
        windows.set(key, window);
      }
      if (window.count >= options.limit) return window.start + options.windowMs - nowMs;
      window.count++;
      return 0;
    },
  };
}

/** A map that keeps at most `maxBytes` of values (as their owner sizes them), least recent out. */
export interface ByteLru<V> {
  get(key: string): V | undefined;
  /** Keeps `value`; a value larger than the whole budget is not kept. */
  set(key: string, value: V, bytes: number): void;
  delete(key: string): void;
  /** Drops every entry `stale` says is stale. */
  sweep(stale: (value: V) => boolean): void;
  stats(): { entries: number; bytes: number };
}

export function createByteLru<V>(maxBytes: number): ByteLru<V> {
  const entries = new Map<string, { value: V; bytes: number }>();
  let total = 0;
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    total -= entry.bytes;
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value, bytes) {
      remove(key);
      if (bytes > maxBytes) return;
      entries.set(key, { value, bytes });
      total += bytes;
      for (const oldest of entries.keys()) {
        if (total <= maxBytes) break;
        remove(oldest);
      }
    },
    delete: remove,
    sweep(stale) {
      for (const [key, entry] of entries) if (stale(entry.value)) remove(key);
    },
    stats: () => ({ entries: entries.size, bytes: total }),
  };
}

/**
 * `text` at most `max` characters (code units), cut after the last whole word that fits
 * (at the last white space within the limit; in the middle of a word only when the first
 * word alone is longer), with an ellipsis added; the text itself when it fits.
 */
export function cutAtWord(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const room = Math.max(0, max - 1);
  const head = text.slice(0, room + 1);
  const space = head.search(/\s\S*$/);
  let end = space > 0 ? space : room;
  // Never end between the two halves of a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { text: `${text.slice(0, end).trimEnd()}…`, cut: true };
}

/**
 * The JSON text of `value`, as `JSON.stringify(value)` gives it, in pieces: each property of
 * `value` is a piece, except the array under `key`, each of whose elements is one (with the
 * comma before it). Joined, the pieces are that text exactly, so a large body can be written a
 * little at a time (for plain data: no `toJSON`, no functions).
 */
export function* jsonPieces(value: Record<string, unknown>, key: string): Generator<string> {
  let first = true;
  for (const [name, item] of Object.entries(value)) {
    const text = name === key && Array.isArray(item) ? null : JSON.stringify(item);
    if (text === undefined) continue; // left out by JSON.stringify (undefined values)
    const head = `${first ? "{" : ","}${JSON.stringify(name)}:`;
    first = false;
    if (text !== null) {
      yield head + text;
      continue;
    }
    yield `${head}[`;
    const list = item as unknown[];
    for (let i = 0; i < list.length; i++) {
      yield `${i === 0 ? "" : ","}${JSON.stringify(list[i]) ?? "null"}`;
    }
    yield "]";
  }
  yield first ? "{}" : "}";
}

/** UTF-8 bytes of a value's JSON text. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).byteLength;
}

/** One result in the forms the budget chooses from, with their sizes in bytes. */
export interface BudgetChoice<T> {
  /** Best and every suggestion, texts cut at the longest length. */
  full: T;
  /** Best with its text; the other suggestions with a short preview of theirs. */
  lean: T;
  /** Neither best nor suggestions. */
  none: T;
}

/**
 * The results fitted to `budget` bytes beyond `base` (what every result needs anyway): every
 * result starts as `none`, then, in question order, each becomes `lean` while that fits, and
 * then each becomes `full` while that fits. So every question gets its best text before any
 * gets the text of its other suggestions, and a question loses its best only when even the
 * lean forms of those before it used the budget up.
 */
export function fitToBudget<T>(
  choices: BudgetChoice<T>[],
  budget: number,
  size: (value: T) => number,
): { results: T[]; reduced: boolean } {
  const sizes = choices.map((c) => ({
    full: size(c.full),
    lean: size(c.lean),
    none: size(c.none),
  }));
  let left = budget - sizes.reduce((sum, s) => sum + s.none, 0);
  const level = choices.map(() => "none" as keyof BudgetChoice<T>);
  for (const next of ["lean", "full"] as const) {
    for (let i = 0; i < choices.length; i++) {
      const extra = sizes[i][next] - sizes[i][level[i]];
      if (extra <= left) {
        level[i] = next;
        left -= extra;
      }
    }
  }
  return {
    results: choices.map((c, i) => c[level[i]]),
    reduced: level.some((l, i) => l !== "full" && sizes[i].full !== sizes[i][l]),
  };
}
