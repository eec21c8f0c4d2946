/**
 * The buyer's sign-in routes of a trust center, mounted at /public/trust: sign in with an
 * emailed link (verifying the address's domain), trade it for a session token, and who the
 * caller is (`me`). The buyer organization's people are in buyer_members.ts, its service tokens
 * in buyer_tokens.ts, asking for and reading documents, the summary and the page in
 * buyer_documents.ts; what they share is in src/http/buyer_caller.ts. Every call but the
 * sign-in takes a buyer token (`tpb_…`): the browser page uses the same routes as a buyer's
 * tools.
 */
import { createRoute } from "@hono/zod-openapi";
import {
  BuyerContext,
  BuyerSessionRequest,
  BuyerSessionResponse,
  BuyerSignInReceipt,
  BuyerSignInRequest,
} from "../../domain/buyers.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import { requestBuyerSignIn, startBuyerSession } from "../../serve/buyers.ts";
import { BUYER, caller, context, orgOf, requireBuyerBearer, tags } from "../buyer_caller.ts";
import { clientIp } from "../client_ip.ts";
import { createRouter } from "../env.ts";
import { errors, json, jsonBody } from "../openapi.ts";

/** Mounted at /public/trust. */
export const buyerRoutes = createRouter();

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
