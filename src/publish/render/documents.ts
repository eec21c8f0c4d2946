/**
 * The public pages of trust center documents: the parts of the lists (document_lists.ts),
 * the access request form with the NDA, the answer to a request, and an access link's page. No
 * scripts; every vendor- or visitor-given text is escaped; forms post to the service
 * itself, which each page's CSP allows in `form-action` and nothing else.
 */
import type { AccessLink, NdaVersion } from "../../domain/access_requests.ts";
import type { PublicDocument } from "../../domain/documents.ts";
import { type Html, Html as RawHtml, html } from "../../lib/html.ts";
import { page, time, topBar } from "./_page.ts";
import { trustPageCsp } from "./_style.ts";

/** The extra stylesheet of the document pages (forms, document rows). */
export const DOCUMENTS_STYLE = `
.docs{list-style:none;margin:0;padding:0}
.docs li{padding:1rem 1.25rem;border-top:1px solid var(--border)}
.docs li:first-child{border-top:0}
.docs p{margin:.25rem 0 0}
.kind{color:var(--muted);font-size:.875rem}
.form{padding:1.25rem;display:grid;gap:1rem;max-width:44rem}
.form label{display:block;font-weight:600}
.form input[type=text],.form input[type=email]{display:block;width:100%;margin-top:.25rem;
padding:.5rem .625rem;font:inherit;color:var(--fg);background:var(--bg);
border:1px solid var(--muted);border-radius:8px}
.form fieldset{border:1px solid var(--border);border-radius:8px;padding:.75rem 1rem}
.form legend{font-weight:600;padding:0 .25rem}
.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
.check input{margin-top:.3rem}
.nda{white-space:pre-wrap;max-height:20rem;overflow:auto;padding:.75rem 1rem;margin:0;
background:var(--bg);border:1px solid var(--border);border-radius:8px;font:inherit}
.hp{position:absolute;left:-100vw}
.form button{justify-self:start;font:inherit;font-weight:600;padding:.55rem 1.1rem;
border:0;border-radius:8px;background:var(--accent);color:var(--on-accent);cursor:pointer}
.error{color:var(--fail);font-weight:600}
`;

/** The CSP of the document pages; `formOrigin` when the page has a form. */
export function documentsCsp(formOrigin?: string): string {
  const csp = trustPageCsp({ styles: [DOCUMENTS_STYLE] });
  return formOrigin ? csp.replace("form-action 'none'", `form-action ${formOrigin}`) : csp;
}

const TYPE_LABELS: Record<PublicDocument["type"], string> = {
  pdf: "PDF",
  docx: "Word",
  xlsx: "Excel",
  pptx: "PowerPoint",
  odt: "OpenDocument text",
  ods: "OpenDocument spreadsheet",
  odp: "OpenDocument presentation",
  csv: "CSV",
  jws: "Signed manifest (JWS)",
};

function sizeLabel(size: number): string {
  return size >= 1024 * 1024
    ? `${(size / 1024 / 1024).toFixed(1)} MB`
    : `${Math.max(1, Math.round(size / 1024))} KB`;
}

/** One line saying what a document is and how to get it. */
export function documentKind(d: PublicDocument): string {
  const project = d.project ? `${d.project.name} · ` : "";
  const size = d.size === null ? "restricted" : sizeLabel(d.size);
  return `${project}${TYPE_LABELS[d.type]} · ${size}`;
}

/** A document row: a download for public ones, the title and a request link otherwise. */
export function documentItem(d: PublicDocument, acceptingRequests: boolean): Html {
  const action = d.downloadUrl
    ? html`<a href="${d.downloadUrl}">Download<span class="vh"> ${d.title}</span></a>`
    : acceptingRequests && d.requestAccessUrl
    ? html`<a href="${d.requestAccessUrl}">Request access<span class="vh"> to ${d.title}</span></a>`
    : html`<span class="kind">Available on request (requests are not open yet)</span>`;
  return html`
    <li>
      <strong>${d.title}</strong>
      <p class="kind">${documentKind(d)}</p>
      ${d.description ? html`<p>${d.description}</p>` : ""}
      <p>${action}</p>
    </li>
  `;
}

/** A document page: the trust center bar, then `body`. */
export function shell(title: string, body: Html): string {
  const head = html`<style>${new RawHtml(DOCUMENTS_STYLE)}</style>`;
  return page(
    title,
    head,
    html`${topBar("Trust center")}<main id="main" class="wrap">${body}</main>`,
  );
}

/** The card at the top of a document page. */
export function hero(eyebrow: string, title: string, lede: Html | string): Html {
  return html`
    <section class="card hero" aria-labelledby="title">
      <div>
        <p class="eyebrow">${eyebrow}</p>
        <h1 id="title">${title}</h1>
        <p class="lede">${lede}</p>
      </div>
    </section>
  `;
}

/** What the request form shows and, after an error, the values to keep. */
export interface RequestFormInput {
  organization: { name: string };
  action: string;
  documents: PublicDocument[];
  selected: string[];
  nda: NdaVersion;
  error?: string;
  values?: { name?: string; email?: string; company?: string };
  /** How many restricted answers the organization keeps; the form offers them when any. */
  restrictedAnswers?: number;
}

/** The value `selected` holds when the restricted answers are chosen. */
export const ANSWERS_CHOICE = "answers";

/** The access request form: the restricted documents, the NDA and who is asking. */
export function renderRequestFormHtml(input: RequestFormInput): string {
  const { organization, nda, values = {} } = input;
  const field = (id: string, label: string, type: string, value = "", auto = "") =>
    html`
      <label
        for="${id}">${label}<input id="${id}" name="${id}" type="${type}" value="${value}" autocomplete="${auto}" required maxlength="200"></label>
    `;
  const body = html`
    ${hero(
      "Trust center",
      `Request documents from ${organization.name}`,
      "Restricted documents are sent by email once the request is approved.",
    )}
    <section aria-labelledby="form-title">
      <h2 id="form-title">Your request</h2>
      <form class="card form" method="post" action="${input.action}">
        ${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ""}
        <fieldset>
          <legend>Documents</legend>
          ${input.documents.map((d) =>
            html`
              <label
                class="check"><input type="checkbox" name="documentIds" value="${d
                  .id}"${new RawHtml(input.selected.includes(d.id) ? " checked" : "")}> ${d
                  .title}</label>
            `
          )}
          ${input.restrictedAnswers
            ? html`
              <label
                class="check"><input type="checkbox" name="answers" value="true"${new RawHtml(
                  input.selected.includes(ANSWERS_CHOICE) ? " checked" : "",
                )}> Restricted answers to security questions (${String(
                  input.restrictedAnswers,
                )})</label>
            `
            : ""}
        </fieldset>
        ${field("name", "Name", "text", values.name, "name")}
        ${field("email", "Work email", "email", values.email, "email")}
        ${field("company", "Company", "text", values.company, "organization")}
        <div class="hp" aria-hidden="true">
          <label for="website">Leave this empty<input id="website" name="website" type="text" tabindex="-1" autocomplete="off"></label>
        </div>
        <div>
          <h3 id="nda-title">Non-disclosure agreement (version ${String(nda.version)})</h3>
          <pre class="nda" tabindex="0" aria-labelledby="nda-title">${nda.text}</pre>
        </div>
        <input type="hidden" name="ndaVersion" value="${String(nda.version)}">
        <label class="check"><input type="checkbox" name="acceptNda" value="true" required> I accept the non-disclosure agreement above</label>
        <button type="submit">Request access</button>
      </form>
    </section>
  `;
  return shell(`Request documents from ${organization.name}`, body);
}

/** A short page: the answer to a request, or why a link does not work. */
export function renderMessageHtml(title: string, message: string, back?: string): string {
  return shell(
    title,
    html`${hero("Trust center", title, message)}${
      back ? html`<p><a href="${back}">Back to the trust center</a></p>` : ""
    }`,
  );
}

/** An access link's page: the granted documents, each a download. */
export function renderAccessPageHtml(input: {
  organization: { name: string };
  link: AccessLink;
  documents: { id: string; title: string; url: string; kind: string }[];
  /** The restricted answers section, when the link opens them. */
  answers?: Html;
  /** Where the "erase my data" form posts (the link's own address + /erase). */
  eraseAction?: string;
}): string {
  const items = input.link.documentIds.length === 0
    ? ""
    : input.documents.length === 0
    ? html`<p class="card hero">The documents of this link were withdrawn.</p>`
    : html`<ul class="card docs">${
      input.documents.map((d) =>
        html`<li><strong>${d.title}</strong><p class="kind">${d.kind}</p><p><a href="${d.url}">Download<span class="vh"> ${d.title}</span></a></p></li>`
      )
    }</ul>`;
  return shell(
    `Documents from ${input.organization.name}`,
    html`
      ${hero(
        "Trust center",
        `Documents from ${input.organization.name}`,
        html`Shared with ${input.link.email} until ${
          time(input.link.expiresAt)
        }. Every download is logged; PDFs are stamped with your email.`,
      )}
      ${items
        ? html`<section aria-labelledby="granted-title">
        <h2 id="granted-title">Your documents</h2>
        ${items}
      </section>`
        : ""}
      ${input.answers ?? ""}
      ${input.eraseAction
        ? html`
          <section aria-labelledby="erase-title">
            <h2 id="erase-title">Erase my data</h2>
            <p>Removes your requests, this link and the log of your downloads from ${input
              .organization.name}'s records. The link stops working.</p>
            <form method="post" action="${input.eraseAction}">
              <button type="submit">Erase my data</button>
            </form>
          </section>
        `
        : ""}
    `,
  );
}
