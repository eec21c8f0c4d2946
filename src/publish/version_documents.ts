/**
 * What one version is made of, rendered at publish time from the same data: trust.json and
 * its signature, the HTML and Markdown pages, the Atom feed, the badges and the standard
 * exports. Pure rendering apart from the reads of the vendor, signals and earlier versions.
 */
import type { SigningKey } from "../auth/keys.ts";
import type { ControlState } from "../domain/control.ts";
import { logOriginOf } from "../domain/log.ts";
import type { PublishedTrustControl, PublishedVersion } from "../domain/publish.ts";
import type { Publication } from "../domain/publication.ts";
import type { Project } from "../domain/workspace.ts";
import { decodeBase64Url } from "../lib/encoding.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { noteVerifierKey } from "../lib/signed_note.ts";
import { getPublication, listPublications } from "../store/publications.ts";
import {
  badgeJson,
  buildTrustProfile,
  renderAtomFeedParts,
  renderBadgeSvg,
  renderTrustPageHtml,
  renderTrustPageMarkdown,
  serializeTrustJson,
} from "./render/mod.ts";
import type { KitPins } from "./render/_links.ts";
import { getLatestSignals } from "../store/signals.ts";
import { listPublicKeys } from "../store/signing_keys.ts";
import { getOrganization } from "../store/organizations.ts";
import { getVendor } from "../store/org_profiles.ts";
import { customCriteria } from "../store/control_criteria.ts";
import { renderExports, verifyLinksOf } from "./exports.ts";
import { signTrustJson } from "./sign.ts";
import { declaredSection } from "./certifications.ts";
import type { DeclaredCertification } from "../domain/certifications.ts";
import { publicUrls, trustCenterUrl } from "./urls.ts";
import type { PublishDeps } from "./publish.ts";

/** Entries kept in the Atom feed. */
const FEED_ENTRIES = 50;

const encoder = new TextEncoder();

/** The controls whose state differs from `previous`, each with the reason of its new state. */
function changesBetween(
  previous: Record<string, ControlState> | null,
  controls: PublishedTrustControl[],
  reasons: ReadonlyMap<string, string>,
): PublishedVersion["changes"] {
  return controls
    .filter((c) => previous?.[c.key] !== c.state)
    .map((c) => ({
      key: c.key,
      name: c.name,
      from: previous?.[c.key] ?? null,
      to: c.state,
      reason: reasons.get(c.key) ?? null,
    }));
}

export interface RenderInput {
  project: Project;
  controls: PublishedTrustControl[];
  /** The evaluation reason of each control, by key. */
  reasons: ReadonlyMap<string, string>;
  version: number;
  publishedAt: string;
  previous: Publication | null;
  /** The certifications the vendor declares at the publication instant. */
  declared: readonly DeclaredCertification[];
}

/** The feed's versions: this one, the newest before it, and always the first. */
async function feedHistory(
  kv: Deno.Kv,
  projectId: string,
  entry: PublishedVersion,
): Promise<PublishedVersion[]> {
  const history = [entry, ...(await listPublications(kv, projectId, FEED_ENTRIES))];
  if (entry.version > 1 && history[history.length - 1].version !== 1) {
    const first = await getPublication(kv, projectId, 1);
    if (first) history.push(first);
  }
  return history;
}

/**
 * The keys the verifier kit's command on the page pins: every publication key the service
 * has signed with (current first), and the log key's verifier key.
 */
async function kitPins(deps: Pick<PublishDeps, "kv" | "config" | "signingKey" | "logKey">) {
  const earlier = (await listPublicKeys<SigningKey["publicJwk"]>(deps.kv, "publications"))
    .map((known) => known.jwk.kid).filter((kid) => kid !== deps.signingKey.kid).reverse();
  return {
    jwks: [deps.signingKey.kid, ...earlier],
    log: noteVerifierKey(
      logOriginOf(deps.config.baseUrl),
      decodeBase64Url(deps.logKey.publicJwk.x),
    ),
  };
}

/** The links a version's pages show (the unversioned addresses of the latest version). */
function pageLinks(
  urls: ReturnType<typeof publicUrls>,
  trustCenter: string | undefined,
  pins: KitPins,
) {
  return {
    trustJson: urls.trustJson,
    signature: urls.jws,
    feed: urls.feed,
    evaluationRules: urls.evaluationRules,
    versions: urls.versions,
    badge: urls.badgeSvg,
    trustCenter,
    verify: { ...verifyLinksOf(urls), pins },
  };
}

/** Renders every document of one version, with its history entry. */
export async function renderVersion(
  deps: Pick<PublishDeps, "kv" | "config" | "signingKey" | "logKey">,
  input: RenderInput,
) {
  const { project, controls, reasons, version, publishedAt, previous } = input;
  const urls = publicUrls(deps.config, project.slug);
  const [organization, vendor, mapped] = await Promise.all([
    getOrganization(deps.kv, project.organizationId),
    getVendor(deps.kv, project.organizationId, { baseUrl: deps.config.baseUrl }),
    customCriteria(deps.kv, project.id),
  ]);
  const profile = buildTrustProfile({
    project: { slug: project.slug, name: project.name, hostedSubdomain: project.hostedSubdomain },
    version,
    publishedAt,
    controls,
    vendor,
    declaredByVendor: declaredSection(input.declared),
  });
  const trustJson = serializeTrustJson(profile);
  const digest = `sha256:${sha256HexSync(trustJson)}`;
  const previousDigest = previous?.digest ?? null;
  const jws = await signTrustJson(deps.signingKey, trustJson, { version, previousDigest });
  const entry: PublishedVersion = {
    version,
    publishedAt,
    digest,
    previousDigest,
    overallState: profile.summary.overallState,
    changes: changesBetween(previous?.states ?? null, profile.controls, reasons),
  };
  const history = await feedHistory(deps.kv, project.id, entry);
  const links = pageLinks(
    urls,
    organization ? trustCenterUrl(deps.config, organization.slug) : undefined,
    await kitPins(deps),
  );
  const feedParts = renderAtomFeedParts({
    project: { slug: project.slug, name: project.name },
    feedUrl: urls.feed,
    pageUrl: urls.page,
    versions: history,
    versionUrl: urls.versionTrustJson,
    versionPageUrl: urls.versionPage,
    maxEntries: FEED_ENTRIES,
  }).map((part) => encoder.encode(part));
  // The page shows the signals known at publication, dated: it never changes afterwards.
  const signals = await getLatestSignals(deps.kv, project.id);
  const documents = {
    trustJson,
    jws: encoder.encode(jws),
    html: encoder.encode(renderTrustPageHtml(profile, { ...links, versions: urls.versionsHtml }, {
      changes: { previousVersion: previous?.version ?? null, items: entry.changes },
      signals,
      organization,
    })),
    markdown: encoder.encode(renderTrustPageMarkdown(profile, {
      ...links,
      versions: urls.versionsMarkdown,
    }, { changes: { previousVersion: previous?.version ?? null, items: entry.changes }, signals })),
    feed: concatBytes(feedParts),
    badgeSvg: encoder.encode(renderBadgeSvg(profile.summary.overallState)),
    badgeJson: encoder.encode(JSON.stringify(badgeJson(profile.summary.overallState))),
    ...await renderExports(deps.signingKey, {
      profile,
      trustJsonDigest: digest,
      signals,
      config: deps.config,
      customCriteria: mapped,
    }),
  };
  return { profile, entry, documents, feedParts };
}

/** `parts` joined into one array. */
function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
