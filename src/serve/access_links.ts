/**
 * Serving restricted documents through an access link: the link's page lists what it
 * grants; each download is logged (who, when, which document, from where) and a PDF is
 * stamped with the recipient's email. An unknown token is 404, an expired or revoked link
 * 410, a document removed since the approval is no longer offered.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { AccessLink } from "../domain/access_requests.ts";
import type { TrustDocument } from "../domain/documents.ts";
import type { Organization } from "../domain/workspace.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import type { Logger } from "../lib/log.ts";
import { getAccessLinkByToken, logDownload } from "../store/access_requests.ts";
import { getDocument } from "../store/documents.ts";
import { getOrganization } from "../store/organizations.ts";
import { accessTokenHash } from "./access_requests.ts";
import { readDocumentBytes } from "./documents.ts";
import { watermarkPdf } from "./watermark.ts";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What a link's token opens: a usable link, or why not. */
export type OpenedLink =
  | { state: "ok"; org: Organization; link: AccessLink; documents: TrustDocument[] }
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
  const documents = (await Promise.all(link.documentIds.map((id) => getDocument(kv, org.id, id))))
    .filter((d): d is TrustDocument => d !== null);
  return { state: "ok", org, link, documents };
}

/**
 * One document through an open link, logged. PDFs are stamped with the recipient's email;
 * when stamping fails the original is served and the log entry says it was not watermarked.
 */
export async function downloadThroughLink(
  deps: { kv: Deno.Kv; blobs: BlobStore; log: Logger },
  options: {
    opened: Extract<OpenedLink, { state: "ok" }>;
    documentId: string;
    ip: string;
    now: Date;
  },
): Promise<{ document: TrustDocument; bytes: Uint8Array } | null> {
  const { opened, now } = options;
  const document = opened.documents.find((d) => d.id === options.documentId);
  if (!document) return null;
  const original = await readDocumentBytes(deps.blobs, document);
  const stamped = document.type === "pdf"
    ? await watermarkPdf(original, { email: opened.link.email, at: now })
    : null;
  if (document.type === "pdf" && !stamped) {
    deps.log.warn("document.watermark_failed", { documentId: document.id });
  }
  await logDownload(deps.kv, opened.org.id, {
    id: timeOrderedUuid(now),
    at: now.toISOString(),
    linkId: opened.link.id,
    email: opened.link.email,
    documentId: document.id,
    title: document.title,
    ip: options.ip,
    watermarked: stamped !== null,
  });
  return { document, bytes: stamped ?? original };
}
