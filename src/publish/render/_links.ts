/**
 * Links from a trust page to its companion documents. A person clicking one lands on a page
 * (version history, evaluation rules), a feed or image a browser shows, or a download:
 * the machine formats (trust.json, its JWS) carry `download`, never shown as raw text.
 */
import { type Html, html } from "../../lib/html.ts";
import type { TrustPageLinks } from "./html.ts";

/** A link to a companion document; machine formats are downloaded, never shown as text. */
export interface CompanionLink {
  href: string;
  label: string;
  about: string;
  /** Set for documents a browser would otherwise display raw: save under this name. */
  download?: string;
  type?: string;
}

export function companion(link: CompanionLink): Html {
  const attributes = link.download === undefined ? html`` : html`
    download="${link.download}" type="${link.type}"
  `;
  return html`
    <a href="${link.href}" ${attributes}>${link.label}</a>
  `;
}

/** The keys the verifier kit's command pins: publication key ids and the log's verifier key. */
export interface KitPins {
  jwks: string[];
  log: string;
}

/** Where the exports of a version, the verifier kit and the publication log are. */
export interface VerifyLinks {
  verifyKit: string;
  /** The keys at publication, pinned in the command the page shows. */
  pins?: KitPins;
  log: string;
  logCheckpoint: string;
  oscal: string;
  oscalSignature: string;
  attestation: string;
  securityInsights: string;
  securityInsightsSignature: string;
}

/**
 * The command that verifies a project's every version with the kit at `verifyKit`, trusting
 * only the pinned keys when `pins` are given.
 */
export function verifyCommand(verifyKit: string, slug: string, pins?: KitPins): string {
  const pinned = pins ? ` --pin jwks=${pins.jwks.join(",")} --pin log=${pins.log}` : "";
  return `deno run --allow-net ${verifyKit} ${slug}${pinned}`;
}

/** The exports and the log, after the page's own companions. */
export function exportItems(verify: VerifyLinks, slug: string): CompanionLink[] {
  return [
    {
      href: verify.oscal,
      label: "OSCAL Assessment Results",
      about: "NIST OSCAL 1.0.6 JSON: each control an observation and a finding, signed (JWS)",
      download: `${slug}-oscal-assessment-results.json`,
      type: "application/json",
    },
    {
      href: verify.attestation,
      label: "SLSA Verification Summary (in-toto, DSSE)",
      about: "An in-toto Statement about trust.json's digest, DSSE-signed with the publication key",
      download: `${slug}-vsa.intoto.json`,
      type: "application/json",
    },
    {
      href: verify.securityInsights,
      label: "OpenSSF Security Insights",
      about: "Security Insights v2 (JSON form) with what the signals show, signed (JWS)",
      download: `${slug}-security-insights.json`,
      type: "application/json",
    },
    {
      href: verify.log,
      label: "Publication log",
      about: "Every publication in an append-only Merkle tree (RFC 6962) with signed checkpoints",
    },
    {
      href: verify.logCheckpoint,
      label: "Latest log checkpoint",
      about: "A signed note to pin: the verifier kit proves the log only grew since",
    },
  ];
}

/** One group of the downloads card: a heading and its links, each with a short line. */
interface LinkGroup {
  id: string;
  title: string;
  items: CompanionLink[];
}

/** The page's companions in three groups: this profile, the standard exports, the history. */
function linkGroups(links: TrustPageLinks, slug: string): LinkGroup[] {
  const profile: CompanionLink[] = [
    {
      href: links.trustJson,
      label: "trust.json",
      about: "the machine-readable profile: the exact bytes that are signed",
      download: `${slug}-trust.json`,
      type: "application/json",
    },
    {
      href: links.signature,
      label: "Signature (JWS)",
      about: "EdDSA over trust.json, chained to the previous version",
      download: `${slug}-trust.json.jws`,
      type: "application/jose",
    },
    {
      href: links.evaluationRules,
      label: "Evaluation rules",
      about: "how every state and confidence is computed",
    },
    { href: links.badge, label: "Status badge", about: "SVG of the overall state" },
  ];
  if (links.trustCenter) {
    profile.push({
      href: links.trustCenter,
      label: "Trust center",
      about: "every published project of this vendor",
    });
  }
  const history: CompanionLink[] = [
    {
      href: links.versions,
      label: "Version history",
      about: "every version, its digest and what changed",
    },
    { href: links.feed, label: "Atom feed", about: "new versions and state changes" },
  ];
  const groups: LinkGroup[] = [{ id: "profile", title: "This profile", items: profile }];
  if (links.verify) {
    const [oscal, vsa, insights, log, checkpoint] = exportItems(links.verify, slug);
    groups.push({ id: "exports", title: "Standard exports", items: [oscal, vsa, insights] });
    history.push(log, checkpoint);
  }
  groups.push({ id: "history", title: "History and log", items: history });
  return groups;
}

/** A group's links; a long description stays a hover title, a short one shows. */
function groupHtml(group: LinkGroup): Html {
  const items = group.items.map((item) =>
    html`<li>${companion(item)}<span class="about">${item.about}</span></li>`
  );
  return html`
    <div class="dlg">
      <h3 id="dl-${group.id}">${group.title}</h3>
      <ul aria-labelledby="dl-${group.id}">${items}</ul>
    </div>
  `;
}

/**
 * The downloads and verification card: the verifier kit's command (selected whole with one
 * click, since the page runs no script to copy it), what the kit checks, and every companion
 * document in three groups instead of a card each.
 */
export function verifyLinks(links: TrustPageLinks, slug: string): Html {
  const groups = html`<div class="card downloads">${linkGroups(links, slug).map(groupHtml)}</div>`;
  if (!links.verify) return groups;
  const command = verifyCommand(links.verify.verifyKit, slug, links.verify.pins);
  return html`
    <p>
      Check every version yourself, without trusting this site. With
      <a href="https://deno.com">Deno</a> installed, run this command (one click selects all
      of it; without Deno, <code>npx --yes deno@2.9.6 run</code> in place of
      <code>deno run</code> does the same):
    </p>
    <p class="cmd"><code>${command}</code></p>
    <p>
      The <a href="${links.verify.verifyKit}">verifier kit</a> checks each version's signature
      against the published keys, the hash chain between versions and each version's inclusion
      in the publication log, and exits non-zero on any failure.
    </p>
    ${groups}
  `;
}
