/**
 * Certification cards (HTML) and their Markdown: each claim's framework, status (word and
 * icon, never colour alone), auditor, dates, scope, the report (a download, or the access
 * request form) and the registry entry, under a heading that says they are declared by the
 * vendor. Every vendor string is escaped; links are only the service's own URLs and https
 * registry URLs, re-checked here.
 */
import type {
  CertificationStatus,
  FrameworkId,
  PublicCertification,
} from "../../domain/certifications.ts";
import { frameworkOf } from "../../domain/certifications.ts";
import { type Html, html } from "../../lib/html.ts";
import { humanUtc, utc } from "./_format.ts";
import { icon } from "./_page.ts";
import { escapeMarkdown, link } from "./markdown.ts";

/** What the cards need beyond the trust page's stylesheet (ASCII, allowed by hash). */
export const CERTIFICATIONS_STYLE = `
.certs{display:grid;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr));gap:.75rem;
margin:0;padding:0;list-style:none}
.cert{background:var(--surface);border:1px solid var(--border);border-radius:10px;
padding:.75rem 1rem;min-width:0}
.chead{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;
gap:.35rem .75rem}
.cert h3{font-size:1.0625rem;margin:0}
.cert .proj{display:block;color:var(--muted);font-size:.8125rem;font-weight:400;margin-top:.1rem}
.cert p{margin:.4rem 0 0;font-size:.875rem}
.cert time{display:inline}
.cert details{margin-top:.35rem;font-size:.875rem}
.cert summary{cursor:pointer;color:var(--muted)}
.cert dl{display:grid;gap:.3rem;margin:.4rem 0 0}
.cert dt{color:var(--muted);font-size:.75rem;font-weight:650;letter-spacing:.04em;
text-transform:uppercase}
.cert dd{margin:0}
.cert ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.4rem 0 0;padding:0;
list-style:none;font-size:.875rem}
.cert .muted{color:var(--muted)}
`;

const STATUS: Readonly<
  Record<CertificationStatus, { label: string; word: string; look: "pass" | "unknown" | "fail" }>
> = {
  achieved: { label: "Achieved", word: "achieved", look: "pass" },
  in_progress: { label: "In progress", word: "in progress", look: "unknown" },
  expired: { label: "Expired", word: "expired", look: "fail" },
};

/** What the card calls the one who vouches, by how the framework is met. */
function auditorLabel(framework: FrameworkId): string {
  const kind = frameworkOf(framework).kind;
  return kind === "attestation"
    ? "Audited by"
    : kind === "certification"
    ? "Certified by"
    : "Assessed by";
}

function httpsUrl(value: string | null): string | null {
  return value !== null && /^https:\/\/[^\s]+$/i.test(value) ? value : null;
}

/** A day ("15 Oct 2027"), with the time of day only when it is not midnight UTC. */
function day(value: string): string {
  const text = humanUtc(value);
  return text.endsWith(", 00:00 UTC") ? text.slice(0, -", 00:00 UTC".length) : text;
}

function when(value: string): Html {
  return html`<time datetime="${utc(value)}">${day(value)}</time>`;
}

function statusPill(status: CertificationStatus): Html {
  const { label, look } = STATUS[status];
  const shape = status === "in_progress" ? "stale" : look;
  return html`<span class="pill s-${look}">${icon(shape)}${label}</span>`;
}

/**
 * The line every card shows: who vouches and until when (or since when it expired), the
 * parts separated by a middle dot.
 */
function summary(c: PublicCertification): (Html | string)[] {
  const parts: Html[] = [];
  if (c.auditor) parts.push(html`${auditorLabel(c.framework)} ${c.auditor}`);
  if (c.expiresAt) {
    parts.push(html`${c.status === "expired" ? "Expired on" : "Valid until"} ${when(c.expiresAt)}`);
  }
  return parts.flatMap((part, i) => (i === 0 ? [part] : [" · ", part]));
}

/** The rest, one click away: audit period, issue date and scope. */
function details(c: PublicCertification): Html[] {
  const items: Html[] = [];
  const fact = (term: string, value: Html | string) =>
    items.push(html`
      <div>
        <dt>${term}</dt>
        <dd>${value}</dd>
      </div>
    `);
  if (c.auditPeriod) {
    fact("Audit period", html`${when(c.auditPeriod.start)} to ${when(c.auditPeriod.end)}`);
  }
  if (c.issuedAt) fact("Issued", when(c.issuedAt));
  if (c.scope) fact("Scope", c.scope);
  return items;
}

function links(c: PublicCertification): Html[] {
  const items: Html[] = [];
  const d = c.document;
  if (d?.downloadUrl) {
    items.push(
      html`<li><a href="${d.downloadUrl}">Download the report<span class="vh">: ${d.title}</span></a></li>`,
    );
  } else if (d?.requestAccessUrl) {
    items.push(
      html`<li><a href="${d.requestAccessUrl}">Request the report<span class="vh">: ${d.title}</span></a></li>`,
    );
  } else if (d) {
    items.push(html`<li class="muted">Report available on request</li>`);
  }
  const registry = httpsUrl(c.registryUrl);
  if (registry) {
    const what = html`<span class="vh"> for ${c.frameworkName}</span>`;
    items.push(
      html`<li><a href="${registry}" rel="noopener nofollow">Registry entry${what}</a></li>`,
    );
  }
  return items;
}

function card(c: PublicCertification, showProject: boolean): Html {
  const project = showProject && c.project
    ? html`<span class="proj">${c.project.name}</span>`
    : html``;
  const line = summary(c);
  const more = details(c);
  const actions = links(c);
  return html`
    <li class="cert">
      <div class="chead"><h3>${c.frameworkName}${project}</h3>${statusPill(c.status)}</div>
      ${line.length > 0 ? html`<p>${line}</p>` : html``}
      ${more.length > 0
        ? html`
          <details>
            <summary>Details<span class="vh"> of ${c.frameworkName}</span></summary>
            <dl>${more}</dl>
          </details>
        `
        : html``}
      ${actions.length > 0 ? html`<ul>${actions}</ul>` : html``}
    </li>
  `;
}

/**
 * The certifications section: a heading, the "declared by the vendor" note and one card per
 * claim (`showProject` names the project of a project's own claim, for the organization's
 * pages). `idPrefix` keeps the heading's id unique on the page.
 */
export function certificationsSection(
  certifications: readonly PublicCertification[],
  options: { idPrefix: string; showProject: boolean },
): Html {
  const id = `${options.idPrefix}-title`;
  return html`
    <section aria-labelledby="${id}">
      <h2 id="${id}">Certifications and attestations</h2>
      <p class="note">
        Declared by the vendor, not verified by this service; each version's trust.json signs
        them.
      </p>
      <ul class="certs">${certifications.map((c) => card(c, options.showProject))}</ul>
    </section>
  `;
}

function markdownLine(c: PublicCertification): string {
  const project = c.project ? ` (${escapeMarkdown(c.project.name)})` : "";
  const parts: string[] = [];
  if (c.auditor) parts.push(`${auditorLabel(c.framework)} ${escapeMarkdown(c.auditor)}`);
  if (c.auditPeriod) {
    parts.push(`audit period ${utc(c.auditPeriod.start)} to ${utc(c.auditPeriod.end)}`);
  }
  if (c.issuedAt) parts.push(`issued ${utc(c.issuedAt)}`);
  if (c.expiresAt) {
    parts.push(`${c.status === "expired" ? "expired on" : "valid until"} ${utc(c.expiresAt)}`);
  }
  const facts = parts.length > 0 ? ` ${parts.join("; ")}.` : "";
  const scope = c.scope ? ` Scope: ${escapeMarkdown(c.scope)}.` : "";
  const d = c.document;
  const report = !d
    ? ""
    : d.downloadUrl
    ? ` Report: ${link(d.title, d.downloadUrl)} (\`${d.digest}\`).`
    : d.requestAccessUrl
    ? ` Report: ${escapeMarkdown(d.title)}, ${
      link("request access", d.requestAccessUrl)
    } (\`${d.digest}\`).`
    : ` Report: ${escapeMarkdown(d.title)}, available on request (\`${d.digest}\`).`;
  const registry = httpsUrl(c.registryUrl);
  const entry = registry ? ` ${link("Registry entry", registry)}.` : "";
  return `- **${escapeMarkdown(c.frameworkName)}**${project}: ${
    STATUS[c.status].word
  }.${facts}${scope}${report}${entry}`;
}

/** The certifications section as Markdown. */
export function certificationsMarkdown(certifications: readonly PublicCertification[]): string {
  return [
    "## Certifications and attestations",
    "",
    "Declared by the vendor, not verified by this service.",
    "",
    ...certifications.map(markdownLine),
  ].join("\n");
}
