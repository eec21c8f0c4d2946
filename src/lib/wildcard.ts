/**
 * Wildcard patterns as signer identities and artifact names use them: compared exactly,
 * except that each `*` matches any run of characters other than `/` and `@` (including
 * none), so a wildcard stays within one path segment or ref component.
 *
 * Matching never backtracks: a `*` cannot produce a separator, so the separators of the
 * subject must be exactly the pattern's literal ones, in order. Both are split at them and
 * each piece is matched on its own: its first and last literal parts anchored, the ones in
 * between found leftmost with a KMP search that only moves forward. The cost is linear in
 * the lengths of the pattern and the subject, whatever the pattern (a regular expression
 * built from `********Z` took seconds on one long subject and grew eightfold per `*`).
 * Characters are UTF-16 code units, as the regular expression they replace compared them.
 */

/** Most `*` one pattern may hold. */
export const MAX_WILDCARDS = 8;
/** Longest pattern holding a `*` (patterns without one keep their field's own limit). */
export const MAX_WILDCARD_PATTERN = 256;

/** Why `pattern` is over the limits, or null when it is within them. */
export function wildcardLimitProblem(pattern: string): string | null {
  let stars = 0;
  for (let i = pattern.indexOf("*"); i >= 0; i = pattern.indexOf("*", i + 1)) stars++;
  if (stars === 0) return null;
  if (stars > MAX_WILDCARDS) {
    return `A pattern may have at most ${MAX_WILDCARDS} "*" wildcards; this one has ${stars}`;
  }
  if (pattern.length > MAX_WILDCARD_PATTERN) {
    return `A pattern with "*" may be at most ${MAX_WILDCARD_PATTERN} characters long; ` +
      `this one has ${pattern.length}`;
  }
  return null;
}

/** Whether `subject` matches `pattern` (see the module's description). */
export function wildcardMatches(pattern: string, subject: string): boolean {
  if (!pattern.includes("*")) return pattern === subject;
  const wanted = splitAtSeparators(pattern);
  const given = splitAtSeparators(subject);
  if (wanted.separators !== given.separators) return false;
  for (let i = 0; i < wanted.pieces.length; i++) {
    if (!pieceMatches(wanted.pieces[i], given.pieces[i])) return false;
  }
  return true;
}

/** `text` cut at every `/` and `@`: the pieces between, and the separators in order. */
function splitAtSeparators(text: string): { pieces: string[]; separators: string } {
  const pieces: string[] = [];
  let separators = "";
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x2f || code === 0x40) {
      pieces.push(text.slice(start, i));
      separators += text[i];
      start = i + 1;
    }
  }
  pieces.push(text.slice(start));
  return { pieces, separators };
}

/** Whether `text` (no separators) matches `pattern` (no separators), `*` matching any run. */
function pieceMatches(pattern: string, text: string): boolean {
  if (!pattern.includes("*")) return pattern === text;
  const parts = pattern.split("*");
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (text.length < first.length + last.length) return false;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  const end = text.length - last.length;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i];
    if (part === "") continue;
    // Leftmost is right: any later occurrence leaves less room for the parts after it.
    const found = indexWithin(text, part, at, end);
    if (found < 0) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * The first index `i` in [from, to - needle.length] where `needle` occurs in `haystack`, or
 * -1: Knuth–Morris–Pratt, so the time is linear in `to - from` plus the needle's length.
 */
function indexWithin(haystack: string, needle: string, from: number, to: number): number {
  const fail = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = fail[k - 1];
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    fail[i] = k;
  }
  for (let i = from, k = 0; i < to; i++) {
    while (k > 0 && haystack.charCodeAt(i) !== needle.charCodeAt(k)) k = fail[k - 1];
    if (haystack.charCodeAt(i) === needle.charCodeAt(k)) k++;
    if (k === needle.length) return i - needle.length + 1;
  }
  return -1;
}
