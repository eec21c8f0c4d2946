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

/**
 * A UUID version 7 (RFC 9562 §5.7): the Unix time in milliseconds, then random bits, so ids
 * made later sort later as text (within a millisecond, in random order).
 */
export function timeOrderedUuid(now: Date): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const ms = BigInt(now.getTime());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const h = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
