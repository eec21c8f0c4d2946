/**
 * Pure renderers of a publication: trust.json (the signed bytes), the HTML and Markdown
 * trust pages, the organization trust center, the Atom feed and the badges. No I/O and no
 * clock: everything a renderer shows is an argument, so a version renders the same forever.
 */
export { type BadgeJson, badgeJson, badgeTextWidth, renderBadgeSvg } from "./badge.ts";
export { type AtomFeedInput, renderAtomFeed, renderAtomFeedParts } from "./feed.ts";
export {
  renderTrustPageHtml,
  styleHash,
  TRUST_PAGE_STYLE,
  trustPageCsp,
  type TrustPageLinks,
  type TrustPageOptions,
} from "./html.ts";
export { escapeMarkdown, renderTrustPageMarkdown } from "./markdown.ts";
export {
  displayName as trustCenterName,
  orgTrustCenterCsp,
  renderOrgTrustCenterHtml,
  renderOrgTrustCenterMarkdown,
} from "./org_center.ts";
export { type CspOptions } from "./_style.ts";
export { vendorCsp } from "./vendor.ts";
export { type NotFoundPage, renderNotFoundHtml } from "./not_found.ts";
export { buildTrustProfile, serializeTrustJson, type TrustProfileInput } from "./trust_json.ts";
export {
  renderSubprocessorsHtml,
  renderSubprocessorsMarkdown,
  subprocessorsCsp,
} from "./subprocessors.ts";
