/**
 * The page a person sees for a trust page that does not exist (or is private, or has not
 * published yet): the same shell, stylesheet and CSP as a trust page, never raw JSON.
 */
import { html } from "../../lib/html.ts";
import { page, topBar } from "./_page.ts";

/** Where the 404 page sends a reader, and what it says went wrong. */
export interface NotFoundPage {
  /** The one-line reason, as the JSON envelope gives it (vendor input is escaped). */
  message: string;
  /** The evaluation rules page, so a reader can still learn what a trust profile is. */
  rulesUrl: string;
}

/** A complete HTML document for a 404; serve it with `trustPageCsp()`. Pure. */
export function renderNotFoundHtml(input: NotFoundPage): string {
  const body = html`
    ${topBar("Trust profile")}
    <main id="main" class="wrap">
      <section class="card hero" aria-labelledby="title">
        <div>
          <p class="eyebrow">Error 404</p>
          <h1 id="title">No trust page here</h1>
          <p class="lede">${input.message}.</p>
          <p>
            A trust page exists only once a public project has published a version. If a vendor
            sent you this link, the project may be private, renamed or not published yet: ask
            them for its current address.
          </p>
          <p><a href="${input.rulesUrl}">How trust profiles are evaluated</a></p>
        </div>
      </section>
    </main>
  `;
  return page("Not found: trust profile", html`<meta name="robots" content="noindex">`, body);
}
