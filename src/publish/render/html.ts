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
import { type Html, html } from "../../lib/html.ts";
import {
  type Anchor,
  nowAnchor,
  percent,
  publicationAnchor,
  STATE_MEANING,
  stateLabel,
  summaryLine,
} from "./_format.ts";
import { icon, moment, page, pill, time, topBar } from "./_page.ts";
import { type ChangeList, changesSectionHtml } from "./history.ts";

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
  /** The controls that changed since the previous version, shown in their own section. */
  changes?: ChangeList;
}

function controlRow(control: PublishedTrustControl, evidence: Anchor, schedule: Anchor): Html {
  // Long keys may wrap after a dot rather than anywhere inside a word.
  const code = control.key.split(".").map((part, i) =>
    i === 0 ? html`${part}` : html`.<wbr>${part}`
  );
  const key = html`<span class="key"><code>${code}</code> · ${control.category}</span>`;
  const observed = control.latestEvidenceAt !== null;
  const latest = moment(control.latestEvidenceAt, evidence, "No evidence yet");
  const fresh = moment(
    control.freshUntil,
    schedule,
    observed ? "No freshness window" : "Awaiting evidence",
  );
  const next = moment(control.nextCheckAt, schedule, "When new evidence arrives");
  return html`
    <tr>
      <th scope="row">${control.name}${key}</th>
      <td data-label="State">${pill(control.state)}</td>
      <td data-label="Confidence">${percent(control.confidence)}</td>
      <td data-label="Latest evidence">${latest}</td>
      <td data-label="Fresh until">${fresh}</td>
      <td data-label="Next check">${next}</td>
    </tr>
  `;
}

function controlsTable(profile: PublishedTrustProfile, options: TrustPageOptions): Html {
  if (profile.controls.length === 0) {
    const why = "No control is enabled for this project yet, so its overall state is unknown.";
    return html`<p class="card hero">${why}</p>`;
  }
  const evidence = publicationAnchor(profile.publishedAt);
  const schedule = options.now === undefined ? evidence : nowAnchor(options.now);
  const caption = `Every control of version ${profile.version}, with its state and evidence times`;
  return html`
    <div class="card table">
      <table>
        <caption class="vh">${caption}</caption>
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
  const items = COUNTED.map(([state, field]) => {
    const what = html`<span class="what">${icon(state)}${stateLabel(state)}</span>`;
    return html`
      <li class="s-${state}">
        <span class="n">${profile.summary[field]}</span>${what}
        <span class="rel">${STATE_MEANING[state]}</span>
      </li>
    `;
  });
  return html`<ul class="counts">${items}</ul>`;
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
    [links.versions, "Version history", "Every version, its digest and the controls that changed"],
    [links.feed, "Atom feed", "Subscribe to new versions and state changes"],
    [links.evaluationRules, "Evaluation rules", "How every state and confidence is computed"],
    [links.badge, "Status badge", "An SVG badge of the overall state for READMEs and websites"],
  ];
  const list = items.map(([href, label, about]) =>
    html`<li><a href="${href}">${label}</a><p>${about}</p></li>`
  );
  return html`<ul class="links">${list}</ul>`;
}

function hero(profile: PublishedTrustProfile): Html {
  const { summary } = profile;
  const overall = summary.overallState;
  const lede = "Security controls evaluated from live evidence by deterministic, published " +
    "rules, and signed at every publication.";
  return html`
    <section class="card hero" aria-labelledby="title">
      <div>
        <p class="eyebrow">Published trust profile</p>
        <h1 id="title">${profile.project.name}</h1>
        <p class="lede">${lede}</p>
        <dl class="facts">
          <div>
            <dt>Version</dt>
            <dd>${profile.version}</dd>
          </div>
          <div>
            <dt>Controls</dt>
            <dd>${summary.totalControls}</dd>
          </div>
          <div>
            <dt>Published</dt>
            <dd>${time(profile.publishedAt)}</dd>
          </div>
        </dl>
      </div>
      <div class="overall s-${overall}">
        ${icon(overall)}
        <div>
          <p class="label">Overall state</p>
          <p class="state">${stateLabel(overall)}</p>
          <p class="why">${summaryLine(summary)}</p>
        </div>
      </div>
    </section>
  `;
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
  const description = `${name} trust profile, version ${profile.version}: overall ${overall}`;
  const head = html`
    <meta name="description" content="${description}">
    <link rel="alternate" type="application/json" href="${links.trustJson}" title="trust.json">
    <link rel="alternate" type="application/atom+xml" href="${links.feed}" title="Versions">
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
  const measured = options.now === undefined
    ? "Evidence ages, freshness and next checks are measured from the publication time"
    : "Evidence ages are measured from the publication time";
  const rules = html`<a href="${links.evaluationRules}">evaluation rules</a>`;
  const body = html`
    ${topBar("Trust profile", nav)}
    <main id="main" class="wrap">
      ${hero(profile)}
      <section aria-labelledby="summary-title">
        <h2 id="summary-title">Summary</h2>
        ${counts(profile)}
      </section>
      ${options.changes ? changesSectionHtml(options.changes) : ""}
      <section aria-labelledby="controls-title">
        <h2 id="controls-title">Controls</h2>
        <p class="note">${measured}; the overall state is the worst state of any control.</p>
        ${controlsTable(profile, options)}
      </section>
      <section aria-labelledby="verify-title">
        <h2 id="verify-title">Verify this profile</h2>
        ${verifyLinks(links)}
      </section>
    </main>
    <footer class="wrap">
      <p>
        Version ${profile.version} is immutable: its trust.json, signature and this page never
        change once published. States follow the ${rules}.
      </p>
    </footer>
  `;
  return page(`${name}: trust profile`, head, body);
}

function projectItem(
  project: OrganizationTrustCenter["projects"][number],
  href: string,
): Html {
  return html`
    <li class="card">
      <div>
        <h3><a href="${href}">${project.name}</a></h3>
        <p>
          ${summaryLine(project.summary)} · Version ${project.version} · Published ${time(
            project.publishedAt,
          )}
        </p>
      </div>
      ${pill(project.summary.overallState)}
    </li>
  `;
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
    : html`<ul class="projects">${center.projects.map((p) => projectItem(p, links(p.slug)))}</ul>`;
  const lede = `${count} ${count === 1 ? "project publishes" : "projects publish"} live, ` +
    "signed trust profiles. Each links to its controls, evidence times and trust.json.";
  const body = html`
    ${topBar("Trust center")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Trust center</p>
          <h1 id="title">${name}</h1>
          <p class="lede">${lede}</p>
        </div>
      </section>
      <section aria-labelledby="projects-title">
        <h2 id="projects-title">Projects</h2>
        ${list}
      </section>
    </main>
  `;
  return page(`${name}: trust center`, html``, body);
}
