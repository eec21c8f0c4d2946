/**
 * Ids derived from content, for records whose identity is their content.
 */
import { sha256HexSync } from "./hash.ts";

/**
 * A UUID (version 8, RFC 9562 §5.8) made of the first 16 bytes of the
 * SHA-256 of `parts` joined by newlines: the same parts always give the same id.
 */
export function stableUuid(...parts: string[]): string {
  const h = sha256HexSync(parts.join("\n")).slice(0, 32).split("");
  h[12] = "8";
  h[16] = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  const s = h.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
