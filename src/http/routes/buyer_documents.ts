/**
 * A buyer's documents, mounted at /public/trust: asking for documents (decided by their rules
 * at once, or filed for an owner), reading what the organization is granted (list and
 * downloads, each read recorded), its own access summary, and the buyer's self-service page
 * that calls these routes. Every call but the page takes a buyer token (`tpb_…`).
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  BuyerAccessRequest,
  BuyerAccessResponse,
  BuyerDocumentsResponse,
} from "../../domain/buyers.ts";
import { uuidParam } from "../../domain/common.ts";
import { DOCUMENT_DOWNLOAD_CONTENT } from "../../domain/documents.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import { requestAsBuyer } from "../../serve/buyers.ts";
import {
  downloadGrantedDocument,
  findGrantedDocument,
  listGrantedDocuments,
} from "../../serve/buyer_reads.ts";
import {
  buyerSummary,
  SUMMARY_CONTENT,
  summaryAnswer,
  SummaryQuery,
} from "../../serve/buyer_summaries.ts";
import { downloadHeaders } from "../../serve/documents.ts";
import { buyerPageCsp, renderBuyerPageHtml } from "../../publish/render/buyer_page.ts";
import { trustPageHeaders } from "../../serve/headers.ts";
import { BUYER, caller, orgOf, requireBuyerBearer, tags } from "../buyer_caller.ts";
import { clientIp } from "../client_ip.ts";
import { createRouter } from "../env.ts";
import { errors, json, jsonBody } from "../openapi.ts";

/** Mounted at /public/trust. */
export const buyerDocumentRoutes = createRouter();

buyerDocumentRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/buyer/access",
    operationId: "requestBuyerAccess",
    tags,
    summary: "Ask for documents: each decided by its rule at once, explained in plain words",
    description:
      "For a signed-in person (not a service token), who accepts the current NDA. Each document's rule decides at once: granted (the whole buyer organization reads it from now until expiresAt; asking again renews), denied (the deny list; nothing is filed) or pending (filed as one access request an owner decides; an approval then grants the organization).",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams, body: jsonBody(BuyerAccessRequest) },
    responses: {
      200: json(BuyerAccessResponse, "The decisions"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { org, who, now } = await caller(c, c.req.valid("param").orgSlug);
    const body = c.req.valid("json");
    const result = await requestAsBuyer(c.var.services.kv, {
      org,
      caller: who,
      documentIds: body.documentIds,
      ndaVersion: body.ndaVersion,
      name: body.name,
      company: body.company,
      ip: clientIp(c),
      now,
    });
    return c.json(result, 200);
  },
);

buyerDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/buyer/documents",
    operationId: "listBuyerDocuments",
    tags,
    summary: "The documents the caller may read now (recorded as a view of each)",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams },
    responses: { 200: json(BuyerDocumentsResponse, "The documents"), ...errors(401, 404) },
  }),
  async (c) => {
    const { org, who, now } = await caller(c, c.req.valid("param").orgSlug);
    return c.json(await listGrantedDocuments(c.var.services, org, who, now), 200);
  },
);

buyerDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/buyer/documents/{documentId}",
    operationId: "downloadBuyerDocument",
    tags,
    summary: "Download a granted document (recorded); a PDF is stamped with the reader",
    description:
      "404 for a document the caller may not read now (not granted, expired, outside a service token's scope); 410 (`no-store`) for a granted document whose project is scheduled for deletion or was deleted, as the project's own routes answer. A PDF is stamped with the person's email, or the service token's name and domain.",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams.extend({ documentId: uuidParam("documentId") }) },
    responses: {
      200: { content: DOCUMENT_DOWNLOAD_CONTENT, description: "The document" },
      ...errors(400, 401, 404, 410, 503),
    },
  }),
  async (c) => {
    const { orgSlug, documentId } = c.req.valid("param");
    const { org, who, now } = await caller(c, orgSlug);
    const { kv } = c.var.services;
    const { document } = await findGrantedDocument(kv, org, who, documentId, now);
    const bytes = await downloadGrantedDocument(c.var.services, org, who, document, now);
    return c.body(
      bytes as Uint8Array<ArrayBuffer>,
      200,
      downloadHeaders(document, "private, no-store"),
    );
  },
);

buyerDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/buyer/summary",
    operationId: "getBuyerAccessSummary",
    tags,
    summary: "The buyer organization's own access summary: its reads by month, person, document",
    description:
      "JSON, or CSV with format=csv. Only the caller's own organization's rows; kept as long as the vendor keeps summaries (at least six months).",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams, query: SummaryQuery },
    responses: {
      200: {
        content: SUMMARY_CONTENT,
        description: "The summary",
      },
      ...errors(400, 401, 404),
    },
  }),
  async (c) => {
    const { org, who, now } = await caller(c, c.req.valid("param").orgSlug);
    const query = c.req.valid("query");
    const summary = await buyerSummary(c.var.services.kv, org, {
      now,
      months: query.months,
      domain: who.buyer.domain,
    });
    return summaryAnswer(c, summary, query.format, `${org.slug}-${who.buyer.domain}`);
  },
);

buyerDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/buyer",
    operationId: "buyerPage",
    tags,
    summary: "The buyer's self-service page (HTML): sign in, documents, people, tokens, summary",
    description:
      "A page whose script calls the buyer routes above with the session token (kept in the tab's session storage): what it shows, a buyer's tool gets from the same routes. The emailed sign-in link opens it with `#sign-in=<token>`.",
    request: { params: OrgSlugParams },
    responses: {
      200: { content: { "text/html": { schema: z.string() } }, description: "The page" },
      ...errors(404),
    },
  }),
  async (c) => {
    const org = await orgOf(c, c.req.valid("param").orgSlug);
    const center = `${c.var.services.config.baseUrl}/public/trust/${org.slug}`;
    return c.body(
      renderBuyerPageHtml({ organization: { name: org.name, slug: org.slug }, center }),
      200,
      {
        ...trustPageHeaders(buyerPageCsp()),
        "cache-control": "no-store",
      },
    );
  },
);
