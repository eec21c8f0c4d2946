/**
 * The public trust page and organization trust center as HTML: one self-contained document
 * each, no script, no external resource, styled by one inline stylesheet that the CSP
 * allows by hash. Every vendor string goes through the escaping `html` template.
 */
import type { ControlState } from "../../domain/control.ts";
import type { PublishedTrustProfile } from "../../domain/publish.ts";
import type { TrustSignalDetection } from "../../domain/collector.ts";
import { type Html, html } from "../../lib/html.ts";
import { headline, STATE_MEANING, stateLabel } from "./_format.ts";
import { controlGroupsHtml } from "./_controls.ts";
import { companion, type VerifyLinks, verifyLinks } from "./_links.ts";
import { icon, page, time, topBar } from "./_page.ts";
import { shortCommit, signalLines } from "./_signals.ts";
import { type ChangeList, changesSectionHtml } from "./history.ts";
import { vendorCard, vendorHead } from "./vendor.ts";

export { styleHash, TRUST_PAGE_STYLE, trustPageCsp } from "./_style.ts";

/** Where a trust page points its readers; every URL is the caller's, used verbatim. */
export interface TrustPageLinks {
  trustJson: string;
  signature: string;
  feed: string;
  evaluationRules: string;
  versions: string;
  badge: string;
  /** The organization's trust center, when the project is linked to one. */
  trustCenter?: string;
  /** The standard exports, the verifier kit and the publication log (absent: not shown). */
  verify?: VerifyLinks;
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
  /** The project's latest repository signal detection at publication, if it sent one. */
  signals?: TrustSignalDetection | null;
  /** The organization that publishes the project (its profile's name is preferred). */
  organization?: { name: string } | null;
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

function signalsSection(signals: TrustSignalDetection): Html {
  const items = signalLines(signals).map((line) => {
    const value = line.email
      ? html`<a href="mailto:${line.email}">${line.email}</a>`
      : line.detected
      ? html`${line.found}`
      : html`<span class="none">${line.found}</span>`;
    return html`
      <div>
        <dt>${line.label}</dt>
        <dd>${value}</dd>
      </div>
    `;
  });
  const commit = html`<code>${shortCommit(signals.commitSha)}</code>`;
  return html`
    <section aria-labelledby="signals-title">
      <h2 id="signals-title">Signals</h2>
      <p class="note">
        As detected on ${time(signals.detectedAt)} from commit ${commit} of the
        vendor's repository, and reported by its collector; not verified by this service.
      </p>
      <dl class="card signals">${items}</dl>
    </section>
  `;
}

/** Who publishes the profile: the vendor profile's name, else the organization's. */
function publisherName(profile: PublishedTrustProfile, options: TrustPageOptions): string | null {
  return profile.vendor?.name ?? options.organization?.name ?? null;
}

function hero(profile: PublishedTrustProfile, options: TrustPageOptions): Html {
  const { summary } = profile;
  const lead = headline(summary, profile.controls);
  const lede = "Security controls evaluated from live evidence by deterministic, published " +
    "rules, and signed at every publication.";
  const publisher = publisherName(profile, options);
  return html`
    <section class="card hero" aria-labelledby="title">
      <div>
        <p class="eyebrow">Published trust profile</p>
        <h1 id="title">${profile.project.name}</h1>
        ${publisher ? html`<p class="org">by <strong>${publisher}</strong></p>` : html``}
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
      <div class="overall s-${lead.state}">
        ${icon(lead.state)}
        <div>
          <p class="label">${lead.label}</p>
          <p class="state">${lead.title}</p>
          <p class="why">${lead.detail}</p>
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
  const publisher = publisherName(profile, options);
  const description = `${name}${
    publisher ? ` by ${publisher}` : ""
  } trust profile, version ${profile.version}: overall ${overall}`;
  const head = html`
    <meta name="description" content="${description}">
    <link rel="alternate" type="application/json" href="${links.trustJson}" title="trust.json">
    <link rel="alternate" type="application/atom+xml" href="${links.feed}" title="Versions">
    ${vendorHead(profile.vendor)}
  `;
  const nav = html`
    <nav aria-label="Page">
      <ul>
        <li><a href="#controls-title">Controls</a></li>
        ${options.signals ? html`<li><a href="#signals-title">Signals</a></li>` : html``}
        <li><a href="#verify-title">Verify</a></li>
        <li>${companion({
          href: links.trustJson,
          label: "trust.json",
          about: "",
          download: `${profile.project.slug}-trust.json`,
          type: "application/json",
        })}</li>
        ${links.trustCenter ? html`<li><a href="${links.trustCenter}">Trust center</a></li>` : ""}
      </ul>
    </nav>
  `;
  const measured = options.now === undefined
    ? "Evidence ages and freshness are measured from the publication time"
    : "Evidence ages are measured from the publication time";
  const signals = options.signals ? signalsSection(options.signals) : html``;
  const rules = html`<a href="${links.evaluationRules}">evaluation rules</a>`;
  const body = html`
    ${topBar("Trust profile", nav)}
    <main id="main" class="wrap">
      ${vendorCard(profile.vendor)}
      ${hero(profile, options)}
      <section aria-labelledby="summary-title">
        <h2 id="summary-title">Summary</h2>
        ${counts(profile)}
      </section>
      ${options.changes ? changesSectionHtml(options.changes) : ""}
      <section aria-labelledby="controls-title">
        <h2 id="controls-title">Controls</h2>
        <p class="note">
          Grouped by what they cover. ${measured}; the overall state is the worst state of any
          control.
        </p>
        ${controlGroupsHtml(profile, options.now)}
      </section>
      ${signals}
      <section aria-labelledby="verify-title">
        <h2 id="verify-title">Downloads and verification</h2>
        ${verifyLinks(links, profile.project.slug)}
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
