/**
 * Who the vendor is, on the public pages: a card with the logo, name, description, website
 * and security contact (HTML), the same as a Markdown section, and what the page's CSP must
 * allow for them: the brand colour as a hashed `<style>` (inline style attributes stay
 * blocked) and, only when a logo is shown, `img-src 'self'`. Every value is escaped and
 * re-checked here, so a stored value that slipped past validation still renders inert.
 */
import type { Vendor } from "../../domain/vendor.ts";
import { HEX_COLOR } from "../../lib/contrast.ts";
import { type Html, html } from "../../lib/html.ts";
import type { CspOptions } from "./_style.ts";

const LOGO_PATH = /^\/public\/logos\/[0-9a-f]{64}\.(png|jpg|webp)$/;

function httpsUrl(value: string | null): string | null {
  return value !== null && /^https:\/\/[^\s]+$/i.test(value) ? value : null;
}

/**
 * The logo's root-relative path, so the image loads from whichever host serves the page
 * (the service, a custom domain or a hosted subdomain) under `img-src 'self'`.
 */
export function logoSrc(vendor: Vendor | null | undefined): string | null {
  if (!vendor?.logoUrl) return null;
  try {
    const path = new URL(vendor.logoUrl).pathname;
    return LOGO_PATH.test(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * The `<style>` text that sets the brand colour, or null without one. It comes before the
 * shared stylesheet, whose `:root` default it outranks by specificity (`html:root`).
 */
export function brandCss(vendor: Vendor | null | undefined): string | null {
  const color = vendor?.brandColor;
  return color && HEX_COLOR.test(color) ? `html:root{--brand:${color.toLowerCase()}}` : null;
}

/** What the CSP of a page showing `vendor` allows beyond the shared stylesheet. */
export function vendorCsp(vendor: Vendor | null | undefined): CspOptions {
  const css = brandCss(vendor);
  return { styles: css ? [css] : [], images: logoSrc(vendor) !== null };
}

/** The brand colour's `<style>` element for the page head (nothing without a colour). */
export function vendorHead(vendor: Vendor | null | undefined): Html {
  const css = brandCss(vendor);
  return css ? html`<style>${css}</style>` : html``;
}

function contactItems(vendor: Vendor): Html[] {
  const items: Html[] = [];
  const website = httpsUrl(vendor.website);
  if (website) items.push(html`<li><a href="${website}" rel="noopener">Website</a></li>`);
  const { email, url } = vendor.securityContact;
  if (email) {
    items.push(html`<li>Security contact: <a href="mailto:${email}">${email}</a></li>`);
  }
  const policy = httpsUrl(url);
  if (policy) items.push(html`<li><a href="${policy}" rel="noopener">Security policy</a></li>`);
  return items;
}

/**
 * The vendor card: logo (decorative: the name is beside it), "Published by" the name,
 * with a "Vendor" tag in the brand colour (white text on it, which validation keeps at
 * ≥ 4.5:1), the description and the website and security contact links. Empty without a
 * vendor.
 */
export function vendorCard(vendor: Vendor | null | undefined, label = "Published by"): Html {
  if (!vendor) return html``;
  const src = logoSrc(vendor);
  const logo = src ? html`<img src="${src}" alt="" width="56" height="56">` : html``;
  const tag = brandCss(vendor) ? html`<span class="tag">Vendor</span>` : html``;
  const items = contactItems(vendor);
  return html`
    <section class="card vendor" aria-label="Vendor">
      ${logo}
      <div>
        <p class="who">${label} ${vendor.name ?? "an unnamed vendor"}${tag}</p>
        ${vendor.description ? html`<p>${vendor.description}</p>` : html``}
        ${items.length > 0 ? html`<ul>${items}</ul>` : html``}
      </div>
    </section>
  `;
}

/** The vendor as Markdown lines (a "Vendor" section), escaped with `escape`. */
export function vendorMarkdown(
  vendor: Vendor | null | undefined,
  format: { escape: (text: string) => string; link: (label: string, url: string) => string },
): string[] {
  if (!vendor) return [];
  const { escape, link } = format;
  const lines = ["## Vendor", "", `**${escape(vendor.name ?? "Unnamed vendor")}**`];
  if (vendor.description) lines.push("", escape(vendor.description));
  const facts: string[] = [];
  const website = httpsUrl(vendor.website);
  if (website) facts.push(`- Website: ${link(website, website)}`);
  if (vendor.securityContact.email) {
    const email = vendor.securityContact.email;
    facts.push(`- Security contact: ${link(email, `mailto:${email}`)}`);
  }
  const policy = httpsUrl(vendor.securityContact.url);
  if (policy) facts.push(`- Security policy: ${link(policy, policy)}`);
  if (vendor.logoUrl && logoSrc(vendor)) facts.push(`- Logo: ${link("image", vendor.logoUrl)}`);
  if (facts.length > 0) lines.push("", ...facts);
  return [...lines, ""];
}
