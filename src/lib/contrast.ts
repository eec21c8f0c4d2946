/**
 * WCAG 2.x contrast between two sRGB colours written `#rrggbb`: the relative luminance of
 * each (L = 0.2126 R + 0.7152 G + 0.0722 B, every channel linearized), then
 * (L_lighter + 0.05) / (L_darker + 0.05), from 1 (same colour) to 21 (black on white).
 */

/** A colour as the service accepts it: `#` and six hexadecimal digits. */
export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** The least contrast of normal text against its background (WCAG 1.4.3, level AA). */
export const MIN_TEXT_CONTRAST = 4.5;

function channel(hex: string): number {
  const c = parseInt(hex, 16) / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** The WCAG relative luminance of `#rrggbb`, from 0 (black) to 1 (white). */
export function relativeLuminance(color: string): number {
  if (!HEX_COLOR.test(color)) throw new RangeError(`"${color}" is not #rrggbb`);
  const r = channel(color.slice(1, 3));
  const g = channel(color.slice(3, 5));
  const b = channel(color.slice(5, 7));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two `#rrggbb` colours, in either order. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}
