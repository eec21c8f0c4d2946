/**
 * Serving restricted documents through an access link: the link's page lists what it
 * grants; each download is logged (who, when, which document, from where) and a PDF is
 * stamped with the recipient's email. An unknown token is 404, an expired or revoked link
 * 410, a document removed since the approval is no longer offered. A PDF is stamped once
 * per recipient and the stamped copy kept (content-addressed) for later downloads; stamping
 * runs under the instance's limiter, and a download that finds it full is told to retry.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { AccessLink } from "../domain/access_requests.ts";
import type { TrustDocument } from "../domain/documents.ts";
import type { Organization } from "../domain/workspace.ts";
import { sha256Hex } from "../lib/hash.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import type { Limiter } from "../lib/limiter.ts";
import type { Logger } from "../lib/log.ts";
import { getAccessLinkByToken, logDownload } from "../store/access_requests.ts";
import {
  getDocument,
  getDocumentStamp,
  setDocumentStamp,
  type StampOwner,
} from "../store/documents.ts";
import { getOrganization } from "../store/organizations.ts";
import { wasDocumentDeleted, withdrawnProjectIds } from "../store/deletions.ts";
import { type GoneState, projectIdGoneState } from "./public_read.ts";
import { accessTokenHash } from "./access_requests.ts";
import { readDocumentBytes } from "./documents.ts";
import { recordRead } from "./buyers.ts";
import { domainOf } from "../domain/buyers.ts";
import { watermarkPdf } from "./watermark.ts";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What a link's token opens: a usable link, or why not. */
export type OpenedLink =
  | {
    state: "ok";
    org: Organization;
    link: AccessLink;
    /** The granted documents still offered. */
    documents: TrustDocument[];
    /** Granted documents of a project whose deletion is scheduled or under way: not offered. */
    withdrawn: TrustDocument[];
  }
  | { state: "unknown" }
  | { state: "expired" | "revoked"; org: Organization; link: AccessLink };

/** Looks a token up and checks its link is still valid at `now`. */
export async function openAccessLink(kv: Deno.Kv, token: string, now: Date): Promise<OpenedLink> {
  const found = TOKEN.test(token) ? await getAccessLinkByToken(kv, accessTokenHash(token)) : null;
  const org = found ? await getOrganization(kv, found.organizationId) : null;
  if (!found || !org) return { state: "unknown" };
  const { link } = found;
  if (link.revokedAt) return { state: "revoked", org, link };
  if (Date.parse(link.expiresAt) <= now.getTime()) return { state: "expired", org, link };
  const granted = (await Promise.all(link.documentIds.map((id) => getDocument(kv, org.id, id))))
    .filter((d): d is TrustDocument => d !== null);
  // A project's withdrawal (docs/lifecycle.md) takes its documents off every link at once.
  const gone = await withdrawnProjectIds(
    kv,
    granted.flatMap((d) => d.projectId ? [d.projectId] : []),
  );
  const offered = (d: TrustDocument) => !d.projectId || !gone.has(d.projectId);
  return {
    state: "ok",
    org,
    link,
    documents: granted.filter(offered),
    withdrawn: granted.filter((d) => !offered(d)),
  };
}

/** Seconds a download turned away by a full stamping queue is told to wait. */
export const STAMPING_RETRY_AFTER_SECONDS = 5;

type StampDeps = { kv: Deno.Kv; blobs: BlobStore; log: Logger; stamping: Limiter };

/** What a download through a link found. */
export type LinkDownload =
  | { state: "ok"; document: TrustDocument; bytes: Uint8Array }
  | { state: "missing" }
  /** A document of a withdrawn project: its deletion scheduled, under way or done. */
  | { state: "gone"; gone: GoneState }
  | { state: "busy"; retryAfterSeconds: number };

/**
 * One document through an open link, logged. A PDF is served as stamped for the link's
 * recipient: the copy stamped at their first download is reused; the first one is made
 * under the stamping limiter (busy when its queue is full). When stamping fails the
 * original is served and the log entry says it was not watermarked.
 */
export async function downloadThroughLink(
  deps: StampDeps,
  options: {
    opened: Extract<OpenedLink, { state: "ok" }>;
    documentId: string;
    ip: string;
    now: Date;
  },
): Promise<LinkDownload> {
  const { opened, now } = options;
  const document = opened.documents.find((d) => d.id === options.documentId);
  if (!document) {
    // Granted, but its project withdrawn (or deleted with it): 410 as the project's pages.
    const withdrawn = opened.withdrawn.find((d) => d.id === options.documentId);
    if (withdrawn?.projectId) {
      const gone = await projectIdGoneState(deps.kv, withdrawn.projectId);
      if (gone) return { state: "gone", gone };
    }
    if (
      opened.link.documentIds.includes(options.documentId) &&
      await wasDocumentDeleted(deps.kv, options.documentId)
    ) {
      return { state: "gone", gone: { scheduled: false } };
    }
    return { state: "missing" };
  }
  let served: { bytes: Uint8Array; watermarked: boolean };
  if (document.type === "pdf") {
    const stamped = await stampedFor(deps, opened.org.id, document, opened.link.email, now);
    if (stamped === "busy") {
      return { state: "busy", retryAfterSeconds: STAMPING_RETRY_AFTER_SECONDS };
    }
    served = stamped;
  } else {
    served = { bytes: await readDocumentBytes(deps.blobs, document), watermarked: false };
  }
  await logDownload(deps.kv, opened.org.id, {
    id: timeOrderedUuid(now),
    at: now.toISOString(),
    linkId: opened.link.id,
    email: opened.link.email,
    documentId: document.id,
    title: document.title,
    ip: options.ip,
    watermarked: served.watermarked,
  });
  // The access inventory and its summaries count it under the recipient and their domain.
  await recordRead(deps.kv, opened.org, {
    kind: "download",
    domain: domainOf(opened.link.email),
    person: opened.link.email,
    document,
    via: "link",
    now,
  });
  return { state: "ok", document, bytes: served.bytes };
}

/**
 * The PDF as stamped for `email`: the copy kept from an earlier download, or a new one made
 * (and kept) under the limiter; "busy" when the limiter turned it away.
 */
export async function stampedFor(
  deps: StampDeps,
  organizationId: string,
  document: TrustDocument,
  email: string,
  now: Date,
): Promise<{ bytes: Uint8Array; watermarked: boolean } | "busy"> {
  const owner: StampOwner = {
    organizationId,
    documentSha256: document.sha256,
    recipientHash: await sha256Hex(email.toLowerCase()),
  };
  const kept = await keptStamp(deps, document, owner);
  if (kept) return kept;
  const outcome = await deps.stamping.run(async () => {
    // Another download of the same recipient may have stamped it while this one waited.
    const meanwhile = await keptStamp(deps, document, owner);
    if (meanwhile) return meanwhile;
    const original = await readDocumentBytes(deps.blobs, document);
    const stamped = await watermarkPdf(original, { email, at: now });
    if (stamped) {
      await deps.blobs.put("document", stamped);
    } else {
      deps.log.warn("document.watermark_failed", { documentId: document.id });
    }
    await setDocumentStamp(deps.kv, owner, {
      stampedSha256: stamped ? await sha256Hex(stamped) : null,
      at: now.toISOString(),
    });
    return { bytes: stamped ?? original, watermarked: stamped !== null };
  });
  return outcome.ran ? outcome.value : "busy";
}

/** The kept stamp of (document, recipient) with its bytes, or null to stamp anew. */
async function keptStamp(
  deps: StampDeps,
  document: TrustDocument,
  owner: StampOwner,
): Promise<{ bytes: Uint8Array; watermarked: boolean } | null> {
  const stamp = await getDocumentStamp(deps.kv, owner);
  if (!stamp) return null;
  if (stamp.stampedSha256 === null) {
    return { bytes: await readDocumentBytes(deps.blobs, document), watermarked: false };
  }
  const bytes = await deps.blobs.get(`document/${stamp.stampedSha256}`);
  return bytes ? { bytes, watermarked: true } : null;
}
