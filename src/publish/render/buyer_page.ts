/**
 * The buyer's self-service page of a trust center (`/public/trust/{orgSlug}/buyer`): sign in
 * with an emailed link, then the buyer organization's documents, asking for more (each
 * decision explained), its people and service tokens (admins) and its own access summary.
 * The page is a shell; its script (`/static/buyer.js`) calls the documented buyer routes with
 * the session token, kept in the tab's session storage only, so everything it shows is what a
 * buyer's tool gets from the same routes.
 */
import { Html, html } from "../../lib/html.ts";
import { page, topBar } from "./_page.ts";
import { DOCUMENTS_STYLE } from "./documents.ts";
import { trustPageCsp } from "./_style.ts";

/** The page's own stylesheet, beside the document pages'. */
export const BUYER_STYLE = `
.panel{padding:1.25rem;display:grid;gap:.75rem}
.panel h2{margin:0;font-size:1.125rem}
.rows{list-style:none;margin:0;padding:0}
.rows li{padding:.625rem 0;border-top:1px solid var(--border);display:flex;flex-wrap:wrap;
gap:.5rem 1rem;align-items:baseline;justify-content:space-between}
.rows li:first-child{border-top:0}
.rows .what{overflow-wrap:anywhere;min-width:0}
.panel button,.rows button{font:inherit;font-weight:600;padding:.4rem .9rem;border-radius:8px;
border:1px solid var(--accent);background:var(--bg);color:var(--fg);cursor:pointer}
.panel button.primary{background:var(--accent);color:var(--on-accent);border-color:var(--accent)}
.secret{font-family:ui-monospace,monospace;overflow-wrap:anywhere;padding:.5rem;
border:1px solid var(--border);border-radius:8px}
.granted{color:var(--pass)}
.denied{color:var(--fail)}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.375rem .5rem;border-top:1px solid var(--border);
overflow-wrap:anywhere}
.table-wrap{overflow-x:auto}
[hidden]{display:none!important}
`;

/** The page's CSP: its own script and API calls to its own origin, nothing else. */
export function buyerPageCsp(): string {
  return trustPageCsp({ styles: [DOCUMENTS_STYLE, BUYER_STYLE] })
    .replace("default-src 'none'", "default-src 'none'; script-src 'self'; connect-src 'self'");
}

/** The page for `organization` (its NDA and restricted documents are loaded by the script). */
export function renderBuyerPageHtml(input: {
  organization: { name: string; slug: string };
  center: string;
}): string {
  const { organization } = input;
  const styles = new Html(`<style>${DOCUMENTS_STYLE}</style><style>${BUYER_STYLE}</style>`);
  const body = html`
    ${topBar(
      organization.name,
      html`<a href="${input.center}">Trust center</a>`,
    )}
    <main id="main" class="wrap" data-slug="${organization.slug}">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Buyer access</p>
          <h1 id="title">Your organization's access to ${organization.name}</h1>
          <p class="lede">Sign in with your work email. The first person of your company to sign
          in manages its buyer organization: colleagues, tokens for your tools, and what you
          read.</p>
        </div>
      </section>
      <p id="status" role="status" aria-live="polite"></p>
      <section id="sign-in" class="card panel" aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">Sign in</h2>
        <form id="sign-in-form" class="form">
          <label for="email">Work email
            <input id="email" name="email" type="email" autocomplete="email" required>
          </label>
          <button type="submit">Email me a sign-in link</button>
        </form>
      </section>
      <div id="signed-in" hidden>
        <section class="card panel" aria-labelledby="who-title">
          <h2 id="who-title">Signed in</h2>
          <p id="who"></p>
          <p><button id="sign-out" type="button">Sign out</button></p>
        </section>
        <section class="card panel" aria-labelledby="docs-title">
          <h2 id="docs-title">Documents you can read</h2>
          <ul id="documents" class="rows"></ul>
        </section>
        <section class="card panel" aria-labelledby="ask-title">
          <h2 id="ask-title">Ask for documents</h2>
          <form id="ask-form" class="form">
            <fieldset id="ask-documents">
              <legend>Documents</legend>
            </fieldset>
            <pre id="nda" class="nda" tabindex="0" aria-label="Non-disclosure agreement"></pre>
            <label class="check"><input id="accept" type="checkbox" required> I accept the NDA
              above on behalf of my organization</label>
            <button type="submit">Ask for access</button>
          </form>
          <ul id="decisions" class="rows" aria-label="Decisions"></ul>
        </section>
        <section id="admin" class="card panel" aria-labelledby="people-title" hidden>
          <h2 id="people-title">People</h2>
          <ul id="people" class="rows"></ul>
          <form id="add-form" class="form">
            <label for="colleague">Colleague's email
              <input id="colleague" type="email" required>
            </label>
            <button type="submit">Add colleague</button>
          </form>
          <h2 id="tokens-title">Service tokens</h2>
          <p>Read-only tokens for your tools: the same document list and downloads through the
          API, only while your organization is granted them.</p>
          <ul id="tokens" class="rows" aria-labelledby="tokens-title"></ul>
          <form id="token-form" class="form">
            <label for="token-name">Token name
              <input id="token-name" type="text" maxlength="100" required>
            </label>
            <label for="token-days">Days it lasts
              <input id="token-days" type="text" inputmode="numeric" value="90" required>
            </label>
            <button type="submit">Create token</button>
          </form>
          <p id="secret" class="secret" hidden></p>
        </section>
        <section class="card panel" aria-labelledby="summary-title">
          <h2 id="summary-title">What your organization read</h2>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Month</th>
                  <th scope="col">Person</th>
                  <th scope="col">Document</th>
                  <th scope="col">Views</th>
                  <th scope="col">Downloads</th>
                </tr>
              </thead>
              <tbody id="summary"></tbody>
            </table>
          </div>
        </section>
      </div>
    </main>
    <script src="/static/buyer.js" defer></script>
  `;
  return page(`Buyer access · ${organization.name}`, styles, body);
}
