/**
 * The overall-state badge, as a shields.io-style flat SVG and as the shields.io endpoint
 * JSON, so a vendor can show its live state in a README either way.
 */
import type { ControlState } from "../../domain/control.ts";
import { escapeHtml } from "../../lib/escape.ts";
import { xmlSafe } from "./_format.ts";

// Dark enough that the white text keeps a 4.5:1 contrast on every colour.
const COLORS: Readonly<Record<ControlState, string>> = {
  pass: "2e7d32",
  fail: "c62828",
  degraded: "b45309",
  stale: "8d6e63",
  unknown: "6b7280",
};

// Advance widths of Verdana at 11px (the badge font), for the characters badges use most.
const WIDTHS: Readonly<Record<string, number>> = {
  a: 6.8,
  b: 6.9,
  c: 5.9,
  d: 6.9,
  e: 6.7,
  f: 3.9,
  g: 6.9,
  h: 7,
  i: 3,
  j: 3.8,
  k: 6.5,
  l: 3,
  m: 10.7,
  n: 7,
  o: 6.7,
  p: 6.9,
  q: 6.9,
  r: 4.7,
  s: 5.7,
  t: 4.3,
  u: 7,
  v: 6.5,
  w: 9,
  x: 6.5,
  y: 6.5,
  z: 5.8,
  " ": 3.9,
  ".": 3.5,
  ",": 3.5,
  ":": 4.6,
  "-": 4.6,
  _: 7,
  "/": 4.9,
  I: 4.6,
  M: 8.7,
  W: 10.9,
  "'": 2.7,
  "!": 4.6,
  "|": 4.9,
};

/** Rough rendered width in px of `text` in 11px Verdana; unknown characters count as wide. */
export function badgeTextWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    width += WIDTHS[char] ??
      (/[0-9A-Z]/.test(char) ? 7.5 : char.codePointAt(0)! > 0x2e7f ? 11 : 7.5);
  }
  return Math.round(width);
}

/**
 * Renders the overall state as a flat SVG badge ("trust | pass"): the label on grey, the
 * state on its colour (pass green, fail red, degraded orange, stale brown-grey, unknown
 * grey), widths computed from the text, with `role="img"`, an `aria-label` and a `<title>`
 * for screen readers and tooltips. The label is escaped, so any text is safe.
 */
export function renderBadgeSvg(state: ControlState, label = "trust"): string {
  const safeLabel = xmlSafe(label);
  const labelWidth = badgeTextWidth(safeLabel) + 10;
  const stateWidth = badgeTextWidth(state) + 10;
  const width = labelWidth + stateWidth;
  const name = escapeHtml(`${safeLabel}: ${state}`);
  const esc = escapeHtml(safeLabel);
  // Text is laid out at 10x scale, as shields.io does, so sub-pixel positions stay exact.
  const text = (content: string, center: number, length: number) =>
    `<text aria-hidden="true" x="${center * 10}" y="150" fill="#010101" fill-opacity=".3" ` +
    `transform="scale(.1)" textLength="${length * 10}">${content}</text>` +
    `<text x="${center * 10}" y="140" transform="scale(.1)" fill="#fff" ` +
    `textLength="${length * 10}">${content}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${name}">`,
    `<title>${name}</title>`,
    '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>' +
    '<stop offset="1" stop-opacity=".1"/></linearGradient>',
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#r)"><rect width="${labelWidth}" height="20" fill="#555"/>` +
    `<rect x="${labelWidth}" width="${stateWidth}" height="20" fill="#${COLORS[state]}"/>` +
    `<rect width="${width}" height="20" fill="url(#s)"/></g>`,
    '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" ' +
    'text-rendering="geometricPrecision" font-size="110">',
    text(esc, labelWidth / 2, labelWidth - 10),
    text(state, labelWidth + stateWidth / 2, stateWidth - 10),
    "</g></svg>",
    "",
  ].join("\n");
}

/** The shields.io endpoint badge format (https://shields.io/badges/endpoint-badge). */
export interface BadgeJson {
  schemaVersion: 1;
  label: string;
  message: ControlState;
  color: string;
}

/**
 * The overall state in the shields.io endpoint format, `{ schemaVersion: 1, label,
 * message, color }`, with the same colours as the SVG badge (hex without `#`, as shields
 * expects), for vendors who prefer shields.io to render their badge.
 */
export function badgeJson(state: ControlState, label = "trust"): BadgeJson {
  return { schemaVersion: 1, label, message: state, color: COLORS[state] };
}
