/**
 * The cloud service offering (FRR-ADS-01, docs/ads.md) as a trust center section, in HTML and
 * Markdown, from one list of facts (`offeringFacts`), the services table and the texts. Every
 * value the HTML shows is in an element marked `data-ads="<field>"`, so a reader (and the
 * contract test) can take the page's values back and compare them with the JSON.
 */
import {
  IMPACT_LEVEL_LABELS,
  type Offering,
  offeringFacts,
  type SupportContact,
} from "../../domain/offering.ts";
import type { AccessGuide } from "../../domain/ads.ts";
import { availabilityText, type PublicStatus } from "../../domain/public_status.ts";
import { type Html, Html as RawHtml, html } from "../../lib/html.ts";
import { utc } from "./_format.ts";
import { page, time, topBar } from "./_page.ts";
import { trustPageCsp } from "./_style.ts";
import { escapeMarkdown, link, row } from "./markdown.ts";

/** The section's own stylesheet (allowed by hash beside the page's). */
export const OFFERING_STYLE = `
.offering dl{display:grid;grid-template-columns:minmax(8rem,max-content) 1fr;gap:.35rem 1rem;
margin:0;padding:1rem 1.25rem}
.offering dt{font-weight:600}
.offering dd{margin:0;overflow-wrap:anywhere}
.offering table{width:100%;border-collapse:collapse}
.offering th,.offering td{text-align:left;padding:.5rem 1.25rem;border-top:1px solid var(--border);
vertical-align:top}
.offering .prose{padding:0 1.25rem 1rem;white-space:pre-line}
.offering h3{margin:1rem 1.25rem .5rem;font-size:1rem}
`;

const isUrl = (text: string) => /^https:\/\//.test(text);

/** A support contact in words: its label and each way to reach it. */
export function contactParts(contact: SupportContact): string[] {
  return [contact.email, contact.url, contact.phone].filter((v): v is string => v !== null);
}

function contactHtml(contact: SupportContact): Html {
  return html`
    <li
      data-ads="supportContact"><strong data-ads="supportContact.label">${contact
        .label}</strong>${contact.email
        ? html`
          · <a data-ads="supportContact.email" href="mailto:${contact.email}">${contact.email}</a>
        `
        : ""}${contact.url
        ? html`
          · <a data-ads="supportContact.url" href="${contact
            .url}" rel="noopener noreferrer">${contact.url}</a>
        `
        : ""}${contact.phone
        ? html`
          · <span data-ads="supportContact.phone">${contact.phone}</span>
        `
        : ""}</li>
  `;
}

/** The section's HTML; `accessUrl` is the "How to get access" page. */
export function offeringHtml(offering: Offering, accessUrl: string, statusUrl: string): Html {
  const facts = offeringFacts(offering);
  return html`
    <section class="offering" aria-labelledby="offering-title">
      <h2 id="offering-title">The service offering</h2>
      ${facts.length
        ? html`<dl class="card">${
          facts.map(([field, label, text]) =>
            html`
              <dt>${label}</dt>
              <dd data-ads="${field}">${isUrl(text)
                ? html`<a href="${text}" rel="noopener noreferrer">${text}</a>`
                : text}</dd>
            `
          )
        }</dl>`
        : ""}
      ${offering.services.length
        ? html`
          <div class="card table">
            <table>
              <caption class="note">Services and their FedRAMP impact levels</caption>
              <thead>
                <tr>
                  <th scope="col">Service</th>
                  <th scope="col">Impact level</th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody>${offering.services.map((s) =>
                html`
                  <tr data-ads="service">
                    <th scope="row" data-ads="service.name">${s.name}</th>
                    <td data-ads="service.impactLevel">${s.impactLevel
                      ? IMPACT_LEVEL_LABELS[s.impactLevel]
                      : "Not stated"}</td>
                    <td data-ads="service.description">${s.description ?? ""}</td>
                  </tr>
                `
              )}</tbody>
            </table>
          </div>
        `
        : ""}
      ${offering.customerResponsibilities
        ? html`
          <div class="card">
            <h3>Customer responsibilities</h3>
            <p class="prose" data-ads="customerResponsibilities">${offering
              .customerResponsibilities}</p>
          </div>
        `
        : ""}
      ${offering.supportContacts.length
        ? html`
          <div class="card">
            <h3>Support</h3>
            <ul>${offering.supportContacts.map(contactHtml)}</ul>
          </div>
        `
        : ""}
      <p><a href="${accessUrl}">How to get access</a> · <a href="${statusUrl}">Trust center status</a></p>
    </section>
  `;
}

/** The section as Markdown: the same facts, services, texts and contacts. */
export function offeringMarkdown(offering: Offering, accessUrl: string, statusUrl: string): string {
  const lines = ["## The service offering", ""];
  const facts = offeringFacts(offering);
  for (const [, label, text] of facts) {
    lines.push(
      `- **${escapeMarkdown(label)}**: ${isUrl(text) ? link(text, text) : escapeMarkdown(text)}`,
    );
  }
  if (facts.length) lines.push("");
  if (offering.services.length) {
    lines.push("### Services and their FedRAMP impact levels", "");
    lines.push("| Service | Impact level | Description |", "|---|---|---|");
    for (const s of offering.services) {
      lines.push(row([
        escapeMarkdown(s.name),
        s.impactLevel ? IMPACT_LEVEL_LABELS[s.impactLevel] : "Not stated",
        escapeMarkdown(s.description ?? ""),
      ]));
    }
    lines.push("");
  }
  if (offering.customerResponsibilities) {
    lines.push("### Customer responsibilities", "");
    for (const paragraph of offering.customerResponsibilities.split(/\n\s*\n/)) {
      lines.push(escapeMarkdown(paragraph), "");
    }
  }
  if (offering.supportContacts.length) {
    lines.push("### Support", "");
    for (const c of offering.supportContacts) {
      const ways = contactParts(c).map((v) => isUrl(v) ? link(v, v) : escapeMarkdown(v));
      lines.push(`- **${escapeMarkdown(c.label)}**: ${ways.join(" · ")}`);
    }
    lines.push("");
  }
  lines.push(`${link("How to get access", accessUrl)} · ${link("Trust center status", statusUrl)}`);
  return lines.join("\n");
}

/** The "How to get access" page as a complete HTML document. */
export function renderAccessHtml(guide: AccessGuide): string {
  const name = guide.organization.name;
  const body = html`
    ${topBar("Trust center")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Trust center</p>
          <h1 id="title">How to get access to ${name}'s documents</h1>
          <p class="lede">What you can read at once, and how to ask for the rest. <a href="${guide
            .trustCenterUrl}">Back to the trust center</a>.</p>
        </div>
      </section>
      <section aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        <ol class="card steps">${guide.steps.map((step) =>
          html`<li data-ads="step">${step}</li>`
        )}</ol>
        <p>
          <a href="${guide.documentsUrl}">The documents and the NDA</a>${guide.requestFormUrl
            ? html`
              · <a href="${guide.requestFormUrl}">Request restricted documents</a>
            `
            : ""}${guide.buyerPageUrl
            ? html`
              · <a href="${guide.buyerPageUrl}">Sign in for your organization</a>
            `
            : ""}
        </p>
      </section>
      ${guide.vendorNote
        ? html`
          <section aria-labelledby="note-title">
            <h2 id="note-title">In ${name}'s words</h2>
            <p class="card prose" data-ads="accessProcess">${guide.vendorNote}</p>
          </section>
        `
        : ""}
      ${guide.supportContacts.length
        ? html`
          <section aria-labelledby="support-title">
            <h2 id="support-title">Support</h2>
            <ul class="card steps">${guide.supportContacts.map(contactHtml)}</ul>
          </section>
        `
        : ""}
    </main>
  `;
  const head = html`
    <meta name="description" content="${`How to get access to ${name}'s documents`}">
    <style>${new RawHtml(ACCESS_STYLE)}</style>
  `;
  return page(`${name}: how to get access`, head, body);
}

/** The "How to get access" page as Markdown. */
export function renderAccessMarkdown(guide: AccessGuide): string {
  const name = escapeMarkdown(guide.organization.name);
  const lines = [
    `# How to get access to ${name}'s documents`,
    "",
    `What you can read at once, and how to ask for the rest. ${
      link("Trust center", guide.trustCenterUrl)
    }`,
    "",
    "## Steps",
    "",
    ...guide.steps.map((step, i) => `${i + 1}. ${escapeMarkdown(step)}`),
    "",
    link("The documents and the NDA", guide.documentsUrl) +
    (guide.requestFormUrl
      ? ` · ${link("Request restricted documents", guide.requestFormUrl)}`
      : "") +
    (guide.buyerPageUrl ? ` · ${link("Sign in for your organization", guide.buyerPageUrl)}` : ""),
    "",
  ];
  if (guide.vendorNote) {
    lines.push(`## In ${name}'s words`, "");
    for (const paragraph of guide.vendorNote.split(/\n\s*\n/)) {
      lines.push(escapeMarkdown(paragraph), "");
    }
  }
  if (guide.supportContacts.length) {
    lines.push("## Support", "");
    for (const c of guide.supportContacts) {
      const ways = contactParts(c).map((v) => isUrl(v) ? link(v, v) : escapeMarkdown(v));
      lines.push(`- **${escapeMarkdown(c.label)}**: ${ways.join(" · ")}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

const ACCESS_STYLE = `
.steps{margin:0;padding:1rem 1.25rem 1rem 2.5rem}
.steps li{margin:.35rem 0}
.prose{white-space:pre-line;padding:1rem 1.25rem;margin:0}
.status{width:100%;border-collapse:collapse}
.status th,.status td{text-align:left;padding:.5rem 1.25rem;border-top:1px solid var(--border)}
`;

/** The CSP of the access and status pages. */
export function accessPageCsp(): string {
  return trustPageCsp({ styles: [ACCESS_STYLE] });
}

function windowRow(label: string, w: PublicStatus["last24Hours"]): Html {
  return html`
    <tr>
      <th scope="row">${label}</th>
      <td>${availabilityText(w.availability)}</td>
      <td>${w.answers}</td>
      <td>${w.failed}</td>
    </tr>
  `;
}

/** The trust center's status page as a complete HTML document. */
export function renderStatusHtml(
  status: PublicStatus,
  org: { name: string },
  trustCenterUrl: string,
): string {
  const name = org.name;
  const body = html`
    ${topBar("Trust center")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Trust center</p>
          <h1 id="title">${name}: trust center status</h1>
          <p
            class="lede">How the trust center's public pages answered, as this service measured every answer it gave (a failure is a server error, 5xx), per hour; failures in front of the service (network, DNS) and time it answered nothing are not seen here. As of ${time(
              status.measuredAt,
            )}. <a href="${trustCenterUrl}">Back to the trust center</a>.</p>
        </div>
      </section>
      <section aria-labelledby="availability-title">
        <h2 id="availability-title">Availability</h2>
        <div class="card table">
          <table class="status">
            <thead>
              <tr>
                <th scope="col">Period</th>
                <th scope="col">Available</th>
                <th scope="col">Answers</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              ${windowRow("Last 24 hours", status.last24Hours)}
              ${windowRow("Last 7 days", status.last7Days)}
              ${windowRow("Last 30 days", status.last30Days)}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="disruptions-title">
        <h2 id="disruptions-title">Recent disruptions</h2>
        ${status.disruptions.length === 0
          ? html`<p class="card prose">No answer failed in the last 30 days.</p>`
          : html`<ul class="card steps">${
            status.disruptions.map((d) =>
              html`<li>${time(d.start)} to ${
                time(d.end)
              }: ${d.failed} of ${d.answers} answers failed</li>`
            )
          }</ul>`}
      </section>
    </main>
  `;
  const head = html`
    <meta name="description" content="${`Status of ${name}'s trust center`}">
    <style>${new RawHtml(ACCESS_STYLE)}</style>
  `;
  return page(`${name}: trust center status`, head, body);
}

/** The status page as Markdown. */
export function renderStatusMarkdown(
  status: PublicStatus,
  org: { name: string },
  trustCenterUrl: string,
): string {
  const w = (label: string, x: PublicStatus["last24Hours"]) =>
    row([label, availabilityText(x.availability), String(x.answers), String(x.failed)]);
  return [
    `# ${escapeMarkdown(org.name)}: trust center status`,
    "",
    `How the trust center's public pages answered, as this service measured every answer it gave (a failure is a server error, 5xx), per hour; failures in front of the service (network, DNS) and time it answered nothing are not seen here. As of ${
      utc(status.measuredAt)
    }. ${link("Trust center", trustCenterUrl)}`,
    "",
    "## Availability",
    "",
    "| Period | Available | Answers | Failed |",
    "|---|---|---|---|",
    w("Last 24 hours", status.last24Hours),
    w("Last 7 days", status.last7Days),
    w("Last 30 days", status.last30Days),
    "",
    "## Recent disruptions",
    "",
    ...(status.disruptions.length === 0
      ? ["No answer failed in the last 30 days."]
      : status.disruptions.map((d) =>
        `- ${utc(d.start)} to ${utc(d.end)}: ${d.failed} of ${d.answers} answers failed`
      )),
    "",
  ].join("\n");
}
