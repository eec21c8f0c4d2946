/**
 * The buyer's routes of a trust center, mounted at /public/trust: sign in with an emailed
 * link (verifying the address's domain), the buyer organization's people and service tokens
 * (admins), asking for documents (decided by their rules at once, or filed for an owner),
 * and reading what the organization is granted (list and downloads, each read recorded) and
 * its own access summary. Every call but the sign-in takes a buyer token (`tpb_…`): the
 * browser page uses the same routes as a buyer's tools.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import {
  AddBuyerMemberRequest,
  BuyerAccessRequest,
  BuyerAccessResponse,
  BuyerContext,
  BuyerDocumentsResponse,
  BuyerMembersResponse,
  BuyerMemberView,
  BuyerSessionRequest,
  BuyerSessionResponse,
  BuyerSignInReceipt,
  BuyerSignInRequest,
  BuyerTokensResponse,
  CreateServiceTokenRequest,
  Email,
  ServiceTokenCreated,
} from "../../domain/buyers.ts";
import { uuidParam } from "../../domain/common.ts";
import { DOCUMENT_DOWNLOAD_CONTENT } from "../../domain/documents.ts";
import { notFound, unauthorized, validationFailed } from "../../domain/errors.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import type { Organization } from "../../domain/workspace.ts";
import {
  addBuyerMember,
  authenticateBuyer,
  type BuyerCaller,
  createServiceToken,
  liveGrants,
  requestAsBuyer,
  requestBuyerSignIn,
  requireBuyerAdmin,
  startBuyerSession,
} from "../../serve/buyers.ts";
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
import {
  listBuyerMembers,
  listServiceTokens,
  removeBuyerMember,
  revokeBuyerToken,
} from "../../store/buyers.ts";
import { getOrganizationBySlug } from "../../store/organizations.ts";
import { buyerPageCsp, renderBuyerPageHtml } from "../../publish/render/buyer_page.ts";
import { trustPageHeaders } from "../../serve/headers.ts";
import { clientIp } from "../client_ip.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors, json, jsonBody } from "../openapi.ts";

/** Mounted at /public/trust. */
export const buyerRoutes = createRouter();

const tags = ["Buyers"];
const BUYER = [{ buyerBearer: [] }];
const BEARER = /^Bearer\s+tpb_[A-Za-z0-9_-]{43}$/;

async function orgOf(c: Context<AppEnv>, slug: string): Promise<Organization> {
  const org = await getOrganizationBySlug(c.var.services.kv, slug);
  if (!org) throw notFound("No trust center with this address");
  return org;
}

/** The trust center and the buyer calling it (401 without a valid buyer token). */
/**
 * Refuses a call without a bearer token before its body is read (401, not 400); the token
 * itself is checked by the handler, after the body's validation, as human routes do.
 */
const requireBuyerBearer: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!/^Bearer\s+\S+$/.test(c.req.header("authorization") ?? "")) {
    throw unauthorized("A buyer token (tpb_...) of this trust center is required");
  }
  await next();
};

async function caller(c: Context<AppEnv>, slug: string) {
  if (!BEARER.test(c.req.header("authorization") ?? "")) {
    throw unauthorized("A buyer token (tpb_...) of this trust center is required");
  }
  const org = await orgOf(c, slug);
  const { kv, clock } = c.var.services;
  const now = clock.now();
  const who = await authenticateBuyer(kv, {
    org,
    authorization: c.req.header("authorization"),
    now,
  });
  c.header("Cache-Control", "private, no-store");
  return { org, who, now };
}

async function context(c: Context<AppEnv>, org: Organization, who: BuyerCaller, now: Date) {
  const grants = await liveGrants(c.var.services.kv, org, who, now);
  return {
    buyerOrganization: who.buyer,
    member: who.member,
    token: who.token,
    grants: grants.map((g) => g.grant),
  };
}

buyerRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/buyer/sign-in",
    operationId: "buyerSignIn",
    tags,
    summary: "Email a one-time sign-in link that verifies a work address",
    description:
      "Emails a link (30 minutes, once) to the address. Opening it proves the address, and so its domain: the first person of a domain to sign in founds the domain's buyer organization as its admin; others of the domain sign in once an admin added them. Shared mail domains (gmail.com …) are refused. Throttled per address and email like access requests; 409 when the trust center cannot send email.",
    request: { params: OrgSlugParams, body: jsonBody(BuyerSignInRequest) },
    responses: {
      202: json(BuyerSignInReceipt, "The link was emailed"),
      ...errors(400, 404, 409, 413, 415, 429, 503),
    },
  }),
  async (c) => {
    const org = await orgOf(c, c.req.valid("param").orgSlug);
    const { kv, config, mailer, clock } = c.var.services;
    const message = await requestBuyerSignIn({ kv, config, mailer }, {
      org,
      email: c.req.valid("json").email,
      ip: clientIp(c),
      now: clock.now(),
    });
    return c.json({ message }, 202);
  },
);

buyerRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/buyer/sessions",
    operationId: "startBuyerSession",
    tags,
    summary: "Trade an emailed sign-in token for a session token (12 hours)",
    description:
      "The token is the part after `#sign-in=` of the emailed link; it works once. The answer's sessionToken (shown once) is the bearer token of the other buyer routes. 403 when the domain's buyer organization exists and the address is not in it, or when the vendor revoked the organization's access.",
    request: { params: OrgSlugParams, body: jsonBody(BuyerSessionRequest) },
    responses: {
      201: json(BuyerSessionResponse, "Signed in"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const org = await orgOf(c, c.req.valid("param").orgSlug);
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const started = await startBuyerSession(kv, { org, token: c.req.valid("json").token, now });
    const who = { buyer: started.buyer, member: started.member, token: started.token };
    c.header("Cache-Control", "no-store");
    return c.json({
      ...(await context(c, org, who, now)),
      sessionToken: started.secret,
      created: started.created,
    }, 201);
  },
);

buyerRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/buyer/me",
    operationId: "getBuyerContext",
    tags,
    summary: "The caller's buyer organization, person, token and what it may read now",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams },
    responses: { 200: json(BuyerContext, "The caller"), ...errors(401, 404) },
  }),
  async (c) => {
    const { org, who, now } = await caller(c, c.req.valid("param").orgSlug);
    return c.json(await context(c, org, who, now), 200);
  },
);

buyerRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/buyer/members",
    operationId: "listBuyerMembers",
    tags,
    summary: "The buyer organization's people, each with what they can read and until when",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams },
    responses: { 200: json(BuyerMembersResponse, "The people"), ...errors(401, 403, 404) },
  }),
  async (c) => {
    const { org, who, now } = await caller(c, c.req.valid("param").orgSlug);
    requireBuyerAdmin(who);
    const { kv } = c.var.services;
    const grants = (await liveGrants(kv, org, { buyer: who.buyer, token: null }, now))
      .map(({ grant }) => ({
        documentId: grant.documentId,
        title: grant.title,
        expiresAt: grant.expiresAt,
      }));
    const members = (await listBuyerMembers(kv, org.id, who.buyer.domain))
      .map((m) => ({ ...m, canRead: grants }));
    return c.json({ members }, 200);
  },
);

buyerRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/buyer/members",
    operationId: "addBuyerMember",
    tags,
    summary: "Add a colleague (admins): an address at the organization's own domain",
    description:
      "The colleague then signs in with an emailed link and reads what the organization is granted, without asking again. Adding someone already in changes their role.",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams, body: jsonBody(AddBuyerMemberRequest) },
    responses: {
      201: json(BuyerMemberView, "Added"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { org, who, now } = await caller(c, c.req.valid("param").orgSlug);
    const body = c.req.valid("json");
    const { kv } = c.var.services;
    const member = await addBuyerMember(kv, {
      org,
      caller: who,
      email: body.email,
      role: body.role,
      now,
    });
    const grants = (await liveGrants(kv, org, { buyer: who.buyer, token: null }, now))
      .map(({ grant }) => ({
        documentId: grant.documentId,
        title: grant.title,
        expiresAt: grant.expiresAt,
      }));
    return c.json({ ...member, canRead: grants }, 201);
  },
);

const MemberParams = OrgSlugParams.extend({
  email: Email.openapi({ param: { name: "email", in: "path" } }),
});

buyerRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/{orgSlug}/buyer/members/{email}",
    operationId: "removeBuyerMember",
    tags,
    summary: "Remove a colleague (admins): their sessions end at once",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: MemberParams },
    responses: { 204: { description: "Removed" }, ...errors(400, 401, 403, 404) },
  }),
  async (c) => {
    const { orgSlug, email } = c.req.valid("param");
    const { org, who, now } = await caller(c, orgSlug);
    const admin = requireBuyerAdmin(who);
    if (email === admin.email) throw validationFailed("You cannot remove yourself");
    if (!(await removeBuyerMember(c.var.services.kv, org.id, who.buyer.domain, email, now))) {
      throw notFound("No such person in your organization");
    }
    return c.body(null, 204);
  },
);

buyerRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/buyer/tokens",
    operationId: "listBuyerServiceTokens",
    tags,
    summary: "The buyer organization's service tokens (admins); never their secrets",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams },
    responses: { 200: json(BuyerTokensResponse, "The tokens"), ...errors(401, 403, 404) },
  }),
  async (c) => {
    const { org, who } = await caller(c, c.req.valid("param").orgSlug);
    requireBuyerAdmin(who);
    return c.json(
      { tokens: await listServiceTokens(c.var.services.kv, org.id, who.buyer.domain) },
      200,
    );
  },
);

buyerRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/buyer/tokens",
    operationId: "createBuyerServiceToken",
    tags,
    summary: "Create a read-only service token for the organization's tools (admins)",
    description:
      "The secret is in this answer only (stored as a hash). The token reads the document list and downloads, within documentIds when given (documents granted now), and only while the organization's grants last; it cannot ask for access or manage people. It expires after expiresInDays (90 when left out, at most 365); revoke it sooner with DELETE.",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams, body: jsonBody(CreateServiceTokenRequest) },
    responses: {
      201: json(ServiceTokenCreated, "Created; the secret is shown once"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { org, who, now } = await caller(c, c.req.valid("param").orgSlug);
    const body = c.req.valid("json");
    const created = await createServiceToken(c.var.services.kv, {
      org,
      caller: who,
      name: body.name,
      documentIds: body.documentIds,
      expiresInDays: body.expiresInDays,
      now,
    });
    return c.json(created, 201);
  },
);

buyerRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/{orgSlug}/buyer/tokens/{tokenId}",
    operationId: "revokeBuyerServiceToken",
    tags,
    summary: "Revoke a service token (admins): it stops working at once",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams.extend({ tokenId: uuidParam("tokenId") }) },
    responses: { 204: { description: "Revoked" }, ...errors(400, 401, 403, 404) },
  }),
  async (c) => {
    const { orgSlug, tokenId } = c.req.valid("param");
    const { org, who, now } = await caller(c, orgSlug);
    requireBuyerAdmin(who);
    if (!(await revokeBuyerToken(c.var.services.kv, org.id, who.buyer.domain, tokenId, now))) {
      throw notFound("No such token in your organization");
    }
    return c.body(null, 204);
  },
);

buyerRoutes.openapi(
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

buyerRoutes.openapi(
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

buyerRoutes.openapi(
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

buyerRoutes.openapi(
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

buyerRoutes.openapi(
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
