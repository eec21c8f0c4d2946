/**
 * The pages of email subscriptions: the subscribe form (in the trust page's live block and
 * on the organization's trust center), "check your inbox", and the confirm and unsubscribe
 * pages. Links in emails open a page with a button, and only the button's POST changes
 * anything: mail scanners that fetch every link must not confirm or unsubscribe anyone.
 * Same shell, stylesheet and strict CSP as the trust pages; `form-action` allows only the
 * service itself, and only on pages with a form.
 */
import { Html, html } from "../lib/html.ts";
import { page, topBar } from "../publish/render/_page.ts";
import { cssHash, trustPageCsp } from "../publish/render/_style.ts";

/** The form's stylesheet, allowed by hash wherever the form appears. */
export const SUBSCRIBE_STYLE = `.subscribe{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;
margin-top:.75rem}
.subscribe label{display:block;width:100%;font-weight:600}
.subscribe input{flex:1 1 14rem;min-width:0;font:inherit;padding:.5rem .75rem;
border:1px solid var(--muted);border-radius:8px;background:var(--surface);color:var(--fg)}
.subscribe button,.action button{font:inherit;font-weight:600;padding:.5rem 1rem;
border:1px solid var(--accent);border-radius:8px;background:var(--accent);color:var(--on-accent);
cursor:pointer}
.subscribe :focus-visible,.action :focus-visible{outline:2px solid var(--focus);
outline-offset:2px}`;

/** The subscribe form posting to `action`; `id` keeps labels unique on the page. */
export function subscribeForm(action: string, id: string): Html {
  return html`
    <form class="subscribe" method="post" action="${action}">
      <label for="${id}">Email address</label>
      <input id="${id}" name="email" type="email" required maxlength="254" autocomplete="email">
      <button type="submit">Subscribe</button>
    </form>
  `;
}

/** The CSP of a subscription page; with a form, it may post to `formOrigin` only. */
export function subscriptionPageCsp(formOrigin?: string): string {
  const csp = trustPageCsp({ styles: [SUBSCRIBE_STYLE] });
  return formOrigin ? csp.replace("form-action 'none'", `form-action ${formOrigin}`) : csp;
}

/** Extra CSP source for `SUBSCRIBE_STYLE`, for pages that embed the form. */
export const subscribeStyleHash = () => cssHash(SUBSCRIBE_STYLE);

function shell(title: string, eyebrow: string, content: Html): string {
  const body = html`
    ${topBar("Trust updates by email")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">${eyebrow}</p>
          <h1 id="title">${title}</h1>
          ${content}
        </div>
      </section>
    </main>
    <style>${new Html(SUBSCRIBE_STYLE)}</style>
  `;
  return page(title, html`<meta name="robots" content="noindex">`, body);
}

/** After a subscribe request: the same words whatever the address's state. */
export function checkInboxPage(scopeName: string, backUrl: string): string {
  return shell(
    "Check your inbox",
    "Subscription",
    html`
      <p class="lede">
        If this address is not subscribed to ${scopeName} yet, a confirmation link is on its way.
        Nothing is sent until you open it and confirm.
      </p>
      <p><a href="${backUrl}">Back to ${scopeName}</a></p>
    `,
  );
}

/** The page a confirmation link opens: one button confirms. */
export function confirmPage(scopeName: string, action: string): string {
  return shell(
    `Confirm email updates from ${scopeName}`,
    "Subscription",
    html`
      <p class="lede">
        You will get an email when a control regresses, an update is posted or a subprocessor
        changes. Every email has a one-click unsubscribe link.
      </p>
      <form class="action" method="post" action="${action}">
        <button type="submit">Confirm the subscription</button>
      </form>
    `,
  );
}

export function confirmedPage(scopeName: string, backUrl: string): string {
  return shell(
    "Subscription confirmed",
    "Subscription",
    html`
      <p class="lede">You will get email about ${scopeName}.</p>
      <p><a href="${backUrl}">Back to ${scopeName}</a></p>
    `,
  );
}

/** The page an unsubscribe link opens (a GET); the button, or a mail client's POST, acts. */
export function unsubscribePage(scopeName: string, action: string): string {
  return shell(
    `Unsubscribe from ${scopeName}`,
    "Subscription",
    html`
      <p class="lede">You will get no more email about ${scopeName}.</p>
      <form class="action" method="post" action="${action}">
        <button type="submit">Unsubscribe</button>
      </form>
      <h2>Erase my data</h2>
      <p>Ends every subscription of this address, on every trust center of this service, and
      removes the address and the record of the emails sent to it.</p>
      <form class="action" method="post" action="${action}/erase">
        <button type="submit">Erase my data</button>
      </form>
    `,
  );
}

/** After a subscriber erased their data. */
export function erasedPage(): string {
  return shell(
    "Your data was erased",
    "Subscription",
    html`
      <p class="lede">This address is no longer subscribed to anything here, and no record of it
      or of the emails sent to it remains.</p>
    `,
  );
}

/** After unsubscribing, and for every later use of the same link (nothing left to change). */
export function unsubscribedPage(): string {
  return shell(
    "You are unsubscribed",
    "Subscription",
    html`
      <p class="lede">This address gets no more email from this subscription.</p>
    `,
  );
}

/** A link that is malformed, forged, expired or already used up, or a refused form. */
export function subscriptionProblemPage(status: number, message: string): string {
  return shell(
    status === 404 ? "This link does not work" : "Not subscribed",
    `Error ${status}`,
    html`
      <p class="lede">${message}.</p>
    `,
  );
}
