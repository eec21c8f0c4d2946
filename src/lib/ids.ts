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
 * A random UUID (version 7, RFC 9562 §5.7) whose first 48 bits are the milliseconds of
 * `now`: ids made later sort after ids made earlier, so a KV prefix lists them in time order.
 */
export function timeOrderedUuid(now: Date): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = now.getTime();
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const h = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
