/**
 * Orders that do not depend on the runtime's locale. `String.prototype.localeCompare`
 * follows the ICU collation of the default locale (punctuation and case weighed apart from
 * code points), so two instances, or two Deno versions, could order the same keys
 * differently; published documents and APIs must not.
 */

/** Compares two strings by Unicode code point, like a byte-wise comparison of UTF-8. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800–U+DFFF) encode code points above U+FFFF: they sort after every
    // other UTF-16 unit, which UTF-16 order alone gets wrong against U+E000–U+FFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
