/**
 * The operator's side of access requests for restricted documents: members read requests,
 * links and the download log; owners approve (a link, emailed), deny and revoke links.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  AccessLinkListResponse,
  AccessLinkResponse,
  AccessRequestListResponse,
  AccessRequestResponse,
  ApprovalResponse,
  ApproveRequest,
  DownloadLogResponse,
} from "../../domain/access_requests.ts";
import { uuidParam } from "../../domain/common.ts";
import { forbidden } from "../../domain/errors.ts";
import { approveAccessRequest, denyAccessRequest } from "../../serve/access_requests.ts";
import { grantApprovedToBuyer } from "../../serve/buyers.ts";
import {
  listAccessLinks,
  listAccessRequests,
  listDownloads,
  revokeAccessLink,
} from "../../store/access_requests.ts";
import { getOrganization } from "../../store/organizations.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors, HUMAN, json, optionalJsonBody } from "../openapi.ts";

export const accessRequestRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const RequestParams = OrgParams.extend({ requestId: uuidParam("requestId") });
const LinkParams = OrgParams.extend({ linkId: uuidParam("linkId") });
const tags = ["Documents"];

/** The caller as an owner of an existing organization, with the organization. */
async function owner(c: Context<AppEnv>, organizationId: string) {
  await requireMembership(c, organizationId, "owner");
  const org = await getOrganization(c.var.services.kv, organizationId);
  if (!org) throw forbidden();
  return { org, actor: { userId: c.var.user.id, email: c.var.user.email ?? null } };
}

const read = (
  path: string,
  operationId: string,
  summary: string,
  schema: z.ZodType,
) =>
  createRoute({
    method: "get",
    path,
    operationId,
    tags,
    summary,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(schema, summary), ...errors(400, 401, 403) },
  });

accessRequestRoutes.openapi(
  read(
    "/organizations/{organizationId}/access-requests",
    "listAccessRequests",
    "Access requests for restricted documents, newest first (members)",
    AccessRequestListResponse,
  ),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    return c.json({ requests: await listAccessRequests(c.var.services.kv, organizationId) }, 200);
  },
);

accessRequestRoutes.openapi(
  read(
    "/organizations/{organizationId}/access-links",
    "listAccessLinks",
    "Access links granted, newest first (members)",
    AccessLinkListResponse,
  ),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    return c.json({ links: await listAccessLinks(c.var.services.kv, organizationId) }, 200);
  },
);

accessRequestRoutes.openapi(
  read(
    "/organizations/{organizationId}/document-downloads",
    "listDocumentDownloads",
    "Every download through an access link, newest first (members)",
    DownloadLogResponse,
  ),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    return c.json({ downloads: await listDownloads(c.var.services.kv, organizationId) }, 200);
  },
);

accessRequestRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/access-requests/{requestId}/approve",
    operationId: "approveAccessRequest",
    tags,
    summary: "Approve a pending request: a link, emailed to the requester (owners)",
    description:
      "Creates a link to the requested documents, valid for expiresInDays (7 when left out, at most 90), and emails it. The body is optional: without one the link lasts 7 days. The link's URL is in the answer once (its token is stored only as a hash). Without SMTP the approval still stands and email.sent is false: copy the URL to the requester. A request already decided is 409.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: RequestParams, body: optionalJsonBody(ApproveRequest) },
    responses: {
      200: json(ApprovalResponse, "The approved request, its link and whether it was emailed"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId, requestId } = c.req.valid("param");
    const { org, actor } = await owner(c, organizationId);
    const { kv, config, mailer, clock } = c.var.services;
    const approved = await approveAccessRequest({ kv, config, mailer }, {
      org,
      id: requestId,
      days: c.req.valid("json")?.expiresInDays,
      actor,
      now: clock.now(),
    });
    // A person of a buyer organization asked: the whole organization reads it from now on.
    await grantApprovedToBuyer(kv, {
      org,
      request: approved.request,
      expiresAt: approved.link.expiresAt,
      now: clock.now(),
    });
    return c.json(approved, 200);
  },
);

accessRequestRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/access-requests/{requestId}/deny",
    operationId: "denyAccessRequest",
    tags,
    summary: "Deny a pending request (owners)",
    description: "Nothing is sent to the requester. A request already decided is 409.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: RequestParams },
    responses: {
      200: json(AccessRequestResponse, "The denied request"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, requestId } = c.req.valid("param");
    const { org, actor } = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const request = await denyAccessRequest(kv, { org, id: requestId, actor, now: clock.now() });
    return c.json({ request }, 200);
  },
);

accessRequestRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/access-links/{linkId}/revoke",
    operationId: "revokeAccessLink",
    tags,
    summary: "Revoke an access link (owners)",
    description: "The link answers 410 from now on. Revoking a revoked link changes nothing.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: LinkParams },
    responses: {
      200: json(AccessLinkResponse, "The revoked link"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, linkId } = c.req.valid("param");
    await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const link = await revokeAccessLink(kv, organizationId, { id: linkId, now: clock.now() });
    return c.json({ link }, 200);
  },
);
