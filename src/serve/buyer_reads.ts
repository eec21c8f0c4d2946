/**
 * A buyer's reads of what its organization is granted, shared by the REST routes
 * (/public/trust/{orgSlug}/buyer/documents…) and the MCP server's buyer tools, so both answer
 * the same documents and record every read the same way in the inventory and its summaries.
 */
import type { z } from "@hono/zod-openapi";
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import type { BuyerDocument, BuyerGrant } from "../domain/buyers.ts";
import type { TrustDocument } from "../domain/documents.ts";
import { notFound, unauthorized, unavailable } from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { getBuyerTokenOrganization, listBuyerGrants } from "../store/buyers.ts";
import { ensureBuyerTokenIndex } from "../store/buyer_tokens.ts";
import { getDocument } from "../store/documents.ts";
import { goneError, projectIdGoneState } from "./public_read.ts";
import { getOrganization } from "../store/organizations.ts";
import type { Limiter } from "../lib/limiter.ts";
import type { Logger } from "../lib/log.ts";
import { stampedFor, STAMPING_RETRY_AFTER_SECONDS } from "./access_links.ts";
import {
  authenticateBuyer,
  type BuyerCaller,
  liveGrants,
  personOf,
  recordRead,
  tokenHash,
} from "./buyers.ts";
import { readDocumentBytes } from "./documents.ts";

type StampDeps = { kv: Deno.Kv; blobs: BlobStore; log: Logger; stamping: Limiter };

const BUYER_BEARER = /^Bearer\s+(tpb_[A-Za-z0-9_-]{43})$/;

/**
 * Checks a buyer token presented without naming its trust center (the MCP endpoint): the
 * vendor organization comes from the token's hash. 401, as the REST routes answer, when the
 * token is unknown, revoked or expired, or its buyer organization's access was revoked.
 */
export async function authenticateBuyerToken(
  kv: Deno.Kv,
  options: { authorization: string | undefined; now: Date },
): Promise<{ org: Organization; who: BuyerCaller }> {
  const match = options.authorization?.match(BUYER_BEARER);
  if (match) await ensureBuyerTokenIndex(kv, options.now);
  const orgId = match ? await getBuyerTokenOrganization(kv, tokenHash(match[1])) : null;
  const org = orgId ? await getOrganization(kv, orgId) : null;
  if (!org) throw unauthorized("A buyer token (tpb_...) of a trust center is required");
  const who = await authenticateBuyer(kv, {
    org,
    authorization: options.authorization,
    now: options.now,
  });
  return { org, who };
}

/** The REST route a granted document downloads from (the same bearer token reads it). */
export function buyerDownloadUrl(
  config: Pick<Config, "baseUrl">,
  org: Pick<Organization, "slug">,
  documentId: string,
): string {
  return `${config.baseUrl}/public/trust/${org.slug}/buyer/documents/${documentId}`;
}

/** What the caller may read now, by title, each recorded as a view. */
export async function listGrantedDocuments(
  deps: { kv: Deno.Kv; config: Pick<Config, "baseUrl"> },
  org: Organization,
  who: BuyerCaller,
  now: Date,
): Promise<{ documents: z.infer<typeof BuyerDocument>[] }> {
  const granted = await liveGrants(deps.kv, org, who, now);
  for (const { document } of granted) {
    await recordRead(deps.kv, org, {
      kind: "view",
      domain: who.buyer.domain,
      person: personOf(who),
      document,
      via: who.token.kind,
      now,
    });
  }
  return {
    documents: granted.map(({ grant, document }) => ({
      id: document.id,
      title: document.title,
      description: document.description,
      type: document.type,
      size: document.size,
      sha256: document.sha256,
      updatedAt: document.updatedAt,
      expiresAt: grant.expiresAt,
      downloadUrl: buyerDownloadUrl(deps.config, org, document.id),
    })),
  };
}

/** A document the caller may read now; 404 when not (not granted, expired, out of scope). */
export async function findGrantedDocument(
  kv: Deno.Kv,
  org: Organization,
  who: BuyerCaller,
  documentId: string,
  now: Date,
): Promise<{ grant: BuyerGrant; document: TrustDocument }> {
  const found = (await liveGrants(kv, org, who, now)).find((g) => g.document.id === documentId);
  if (!found) {
    // Granted, but its project's deletion is scheduled or done: 410 as the project's pages.
    const granted = (await listBuyerGrants(kv, org.id, who.buyer.domain))
      .some((g) => g.documentId === documentId && Date.parse(g.expiresAt) > now.getTime());
    const document = granted ? await getDocument(kv, org.id, documentId) : null;
    const gone = document?.projectId ? await projectIdGoneState(kv, document.projectId) : null;
    if (gone) throw goneError("project", gone);
    throw notFound("Your organization may not read this document now");
  }
  return found;
}

/**
 * The bytes of a granted document, recorded as a download: a PDF stamped with the person's
 * email, or the service token's name and domain; 503 while stamping is busy.
 */
export async function downloadGrantedDocument(
  deps: StampDeps,
  org: Organization,
  who: BuyerCaller,
  document: TrustDocument,
  now: Date,
): Promise<Uint8Array> {
  let bytes: Uint8Array;
  if (document.type === "pdf") {
    const stampFor = who.member ? who.member.email : `${who.token.name} (${who.buyer.domain})`;
    const stamped = await stampedFor(deps, org.id, document, stampFor, now);
    if (stamped === "busy") {
      throw unavailable(
        "Too many documents are being prepared; retry",
        STAMPING_RETRY_AFTER_SECONDS,
      );
    }
    bytes = stamped.bytes;
  } else {
    bytes = await readDocumentBytes(deps.blobs, document);
  }
  await recordRead(deps.kv, org, {
    kind: "download",
    domain: who.buyer.domain,
    person: personOf(who),
    document,
    via: who.token.kind,
    now,
  });
  return bytes;
}
