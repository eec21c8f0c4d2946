/**
 * The public trust page and organization trust center as HTML: one self-contained document
 * each, no script, no external resource, styled by one inline stylesheet that the CSP
 * allows by hash. Every vendor string goes through the escaping `html` template.
 */
import type { ControlState } from "../../domain/control.ts";
import type {
  OrganizationTrustCenter,
  PublishedTrustControl,
  PublishedTrustProfile,
} from "../../domain/publish.ts";
import { Html, html } from "../../http/html.ts";
import {
  type Anchor,
  humanUtc,
  nowAnchor,
  percent,
  publicationAnchor,
  relative,
  STATE_MEANING,
  stateLabel,
  summaryLine,
  utc,
} from "./_format.ts";
import { TRUST_PAGE_STYLE } from "./_style.ts";

export { styleHash, TRUST_PAGE_STYLE, trustPageCsp } from "./_style.ts";

/** Where a trust page points its readers; every URL is the caller's, used verbatim. */
export interface TrustPageLinks {
  trustJson: string;
  signature: string;
  feed: string;
  evaluationRules: string;
  versions: string;
  badge: string;
}

/** Rendering options of a trust page. */
export interface TrustPageOptions {
  /**
   * The instant freshness is described against ("in 3 days"); without it, the publication
   * time ("3 days after publication"), which keeps stored pages a function of the data.
   */
  now?: string;
}

// Stroke icons drawn inline: a state is never told by colour alone, and no icon font or
// image is needed under `default-src 'none'`.
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

function icon(name: ControlState | "shield"): Html {
  return new Html(
    '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" ' +
      'stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">' +
      `${ICONS[name]}</svg>`,
  );
}

function pill(state: ControlState): Html {
  return html`<span class="pill s-${state}">${icon(state)}${stateLabel(state)}</span>`;
}

function moment(value: string | null, anchor: Anchor, missing: string): Html {
  if (value === null) return html`<span class="none">${missing}</span>`;
  return html`<time datetime="${utc(value)}">${humanUtc(value)}</time><span class="rel">${
    relative(value, anchor)
  }</span>`;
}

function controlRow(control: PublishedTrustControl, evidence: Anchor, schedule: Anchor): Html {
  return html`
    <tr>
      <th scope="row">${control.name}<span class="key"><code>${control.key}</code> · ${control
        .category}</span></th>
      <td data-label="State">${pill(control.state)}</td>
      <td data-label="Confidence">${percent(control.confidence)}</td>
      <td data-label="Latest evidence">${moment(
        control.latestEvidenceAt,
        evidence,
        "No evidence yet",
      )}</td>
      <td data-label="Fresh until">${moment(
        control.freshUntil,
        schedule,
        "No freshness window",
      )}</td>
      <td data-label="Next check">${moment(control.nextCheckAt, schedule, "None scheduled")}</td>
    </tr>
  `;
}

function controlsTable(profile: PublishedTrustProfile, options: TrustPageOptions): Html {
  if (profile.controls.length === 0) {
    return html`
      <p
        class="card hero">No control is enabled for this project yet, so its overall state is unknown.</p>
    `;
  }
  const evidence = publicationAnchor(profile.publishedAt);
  const schedule = options.now === undefined ? evidence : nowAnchor(options.now);
  return html`
    <div class="card table">
      <table>
        <caption
          class="vh">Every control of version ${profile
            .version}, with its state and evidence times</caption>
        <thead>
          <tr>
            <th scope="col">Control</th>
            <th scope="col">State</th>
            <th scope="col">Confidence</th>
            <th scope="col">Latest evidence</th>
            <th scope="col">Fresh until</th>
            <th scope="col">Next check</th>
          </tr>
        </thead>
        <tbody>${profile.controls.map((c) => controlRow(c, evidence, schedule))}</tbody>
      </table>
    </div>
  `;
}

const COUNTED: readonly [ControlState, keyof PublishedTrustProfile["summary"]][] = [
  ["pass", "passCount"],
  ["fail", "failCount"],
  ["degraded", "degradedCount"],
  ["stale", "staleCount"],
  ["unknown", "unknownCount"],
];

function counts(profile: PublishedTrustProfile): Html {
  return html`<ul class="counts">${
    COUNTED.map(([state, field]) =>
      html`
        <li
          class="s-${state}"><span class="n">${profile
            .summary[field]}</span><span class="what">${icon(state)}${stateLabel(
              state,
            )}</span><span class="rel">${STATE_MEANING[state]}</span></li>
      `
    )
  }</ul>`;
}

function verifyLinks(links: TrustPageLinks): Html {
  const items: [string, string, string][] = [
    [
      links.trustJson,
      "trust.json",
      "The machine-readable profile: the exact bytes that are signed",
    ],
    [
      links.signature,
      "Signature (JWS)",
      "Compact JWS (EdDSA) over trust.json, chained to the previous version",
    ],
    [
      links.versions,
      "Version history",
      "Every version with its digest and the controls that changed",
    ],
    [links.feed, "Atom feed", "Subscribe to new versions and state changes"],
    [links.evaluationRules, "Evaluation rules", "How every state and confidence is computed"],
    [links.badge, "Status badge", "An SVG badge of the overall state for READMEs and websites"],
  ];
  return html`<ul class="links">${
    items.map(([href, label, about]) =>
      html`<li><a href="${href}">${label}</a><p>${about}</p></li>`
    )
  }</ul>`;
}

function topBar(title: string, nav: Html): Html {
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <div class="wrap"><p class="brand">${icon("shield")}${title}</p>${nav}</div>
    </header>
  `;
}

function document(title: string, head: Html, body: Html): string {
  return "<!doctype html>\n" + html`
    <html lang="en">
      <head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <meta name="referrer" content="no-referrer">
    <title>${title}</title>
    ${head}<style>${new Html(TRUST_PAGE_STYLE)}</style></head>
      <body>${body}</body>
    </html>
  `.value;
}

/**
 * Renders a published trust profile as a complete HTML document: the project name, the
 * overall state (word and icon, never colour alone), the summary counts, version and
 * publication time, a table of every control (state, confidence, evidence age measured
 * from the publication, freshness and next check) and links to trust.json, its
 * signature, the versions, the Atom feed, the evaluation rules and the badge. The only
 * style is TRUST_PAGE_STYLE, so serve it with `trustPageCsp()`. Pure: the same arguments
 * always give the same string.
 */
export function renderTrustPageHtml(
  profile: PublishedTrustProfile,
  links: TrustPageLinks,
  options: TrustPageOptions = {},
): string {
  const { name } = profile.project;
  const overall = profile.summary.overallState;
  const head = html`
    <meta name="description"
      content="${name} trust profile, version ${profile.version}: overall ${overall}">
    <link rel="alternate" type="application/json" href="${links.trustJson}" title="trust.json">
    <link rel="alternate" type="application/atom+xml" href="${links.feed}"
      title="${name} trust profile versions">
  `;
  const nav = html`
    <nav aria-label="Page">
      <ul>
        <li><a href="#controls-title">Controls</a></li>
        <li><a href="#verify-title">Verify</a></li>
        <li><a href="${links.trustJson}">trust.json</a></li>
      </ul>
    </nav>
  `;
  const body = html`
    ${topBar("Trust profile", nav)}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Published trust profile</p>
          <h1 id="title">${name}</h1>
          <p
            class="lede">Security controls evaluated from live evidence by deterministic, published rules, and signed at every publication.</p>
          <dl class="facts">
            <div>
              <dt>Version</dt>
              <dd>${profile.version}</dd>
            </div>
            <div>
              <dt>Published</dt>
              <dd><time datetime="${utc(profile.publishedAt)}">${humanUtc(
                profile.publishedAt,
              )}</time></dd>
            </div>
            <div>
              <dt>Controls</dt>
              <dd>${profile.summary.totalControls}</dd>
            </div>
          </dl>
        </div>
        <div
          class="overall s-${overall}">${icon(
            overall,
          )}<div><p class="label">Overall state</p><p class="state">${stateLabel(
            overall,
          )}</p><p class="why">${summaryLine(profile.summary)}</p></div></div>
      </section>
      <section aria-labelledby="summary-title"><h2 id="summary-title">Summary</h2>${counts(
        profile,
      )}</section>
      <section aria-labelledby="controls-title"><h2 id="controls-title">Controls</h2>
    <p class="note">Evidence ages are measured from the publication time${options.now === undefined
      ? ", as are freshness and next checks"
      : ""}; the overall state is the worst state of any control.</p>
    ${controlsTable(profile, options)}</section>
      <section
        aria-labelledby="verify-title"><h2 id="verify-title">Verify this profile</h2>${verifyLinks(
          links,
        )}</section>
    </main>
    <footer class="wrap">
      <p>Version ${profile
        .version} is immutable: its trust.json, signature and this page never change once published. States follow the <a href="${links
        .evaluationRules}">evaluation rules</a>.</p>
    </footer>
  `;
  return document(`${name}: trust profile`, head, body);
}

/**
 * Renders an organization's trust center as a complete HTML document: the organization
 * name and one entry per published project with its overall state (word and icon), how
 * many controls pass, its version and publication time, linking to `links(slug)`. Same
 * stylesheet and CSP as the trust page.
 */
export function renderOrgTrustCenterHtml(
  center: OrganizationTrustCenter,
  links: (slug: string) => string,
): string {
  const { name } = center.organization;
  const count = center.projects.length;
  const list = count === 0
    ? html`<p class="card hero">No project of ${name} has published a trust profile yet.</p>`
    : html`<ul class="projects">${
      center.projects.map((p) =>
        html`
          <li
            class="card"><div><h3><a href="${links(p.slug)}">${p.name}</a></h3><p>${summaryLine(
              p.summary,
            )} · Version ${p.version} · Published <time datetime="${utc(p.publishedAt)}">${humanUtc(
              p.publishedAt,
            )}</time></p></div>${pill(p.summary.overallState)}</li>
        `
      )
    }</ul>`;
  const body = html`
    ${topBar("Trust center", html``)}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Trust center</p>
          <h1 id="title">${name}</h1>
          <p
            class="lede">${count} ${count === 1
              ? "project publishes"
              : "projects publish"} live, signed trust profiles. Each links to its controls, evidence times and machine-readable trust.json.</p>
        </div>
      </section>
      <section
        aria-labelledby="projects-title"><h2 id="projects-title">Projects</h2>${list}</section>
    </main>
  `;
  return document(`${name}: trust center`, html``, body);
}
