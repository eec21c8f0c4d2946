/**
 * The pieces every public HTML page shares: the document shell with the hashed inline
 * stylesheet, the top bar, state icons and pills, and dates that wrap cleanly.
 */
import type { ControlState } from "../../domain/control.ts";
import { Html, html } from "../../lib/html.ts";
import { type Anchor, humanUtc, relative, stateLabel, utc } from "./_format.ts";
import { TRUST_PAGE_STYLE } from "./_style.ts";

// Stroke icons drawn inline: a state is never told by colour alone, and no icon font or
// image can load under `default-src 'none'`.
const ICONS: Readonly<Record<ControlState | "shield", string>> = {
  pass: '<circle cx="12" cy="12" r="9"/><path d="M8 12.4l2.8 2.8 5.4-5.6"/>',
  fail: '<circle cx="12" cy="12" r="9"/><path d="M9.2 9.2l5.6 5.6M14.8 9.2l-5.6 5.6"/>',
  degraded: '<path d="M12 3.8 21.2 19.6H2.8z"/><path d="M12 9.8v4.4M12 17v.01"/>',
  stale: '<circle cx="12" cy="12" r="9"/><path d="M12 7.6V12l3 2"/>',
  unknown: '<circle cx="12" cy="12" r="9"/>' +
    '<path d="M9.6 9.6a2.5 2.5 0 1 1 3.3 2.3c-.6.3-.9.8-.9 1.4v.4M12 16.6v.01"/>',
  shield: '<path d="M12 2.8 19.5 6v5.4c0 4.6-3.1 8.4-7.5 9.8-4.4-1.4-7.5-5.2-7.5-9.8V6z"/>' +
    '<path d="M8.8 12.1l2.2 2.2 4.2-4.4"/>',
};

/** A decorative icon; the text next to it says the same thing. */
export function icon(name: ControlState | "shield"): Html {
  return new Html(
    '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" ' +
      'stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">' +
      `${ICONS[name]}</svg>`,
  );
}

/** A state as a coloured pill with icon and word; its text is exactly the state's label. */
export function pill(state: ControlState): Html {
  return html`<span class="pill s-${state}">${icon(state)}${stateLabel(state)}</span>`;
}

/** A `<time>` whose text may wrap only between the date and the time of day. */
export function time(value: string): Html {
  const [day, clock] = humanUtc(value).split(", ");
  const parts = html`<span class="d">${day},</span> <span class="d">${clock}</span>`;
  return html`<time datetime="${utc(value)}">${parts}</time>`;
}

/** A time with its offset from the anchor below it, or `missing` when there is none. */
export function moment(value: string | null, anchor: Anchor, missing: string): Html {
  if (value === null) return html`<span class="none">${missing}</span>`;
  return html`${time(value)}<span class="rel">${relative(value, anchor)}</span>`;
}

/** The skip link and the top bar with the page kind and an optional navigation. */
export function topBar(title: string, nav: Html = html``): Html {
  const brand = html`<p class="brand">${icon("shield")}${title}</p>`;
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <div class="wrap">${brand}${nav}</div>
    </header>
  `;
}

/** A complete document; the stylesheet is written verbatim so its CSP hash matches. */
export function page(title: string, head: Html, body: Html): string {
  const style = new Html(TRUST_PAGE_STYLE);
  return "<!doctype html>\n" + html`
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <meta name="referrer" content="no-referrer">
        <title>${title}</title>
        ${head}
        <style>${style}</style>
      </head>
      <body>${body}</body>
    </html>
  `.value.trim() + "\n";
}
