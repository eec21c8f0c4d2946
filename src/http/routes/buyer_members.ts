/**
 * The buyer organization's people, mounted at /public/trust: list them with what they can
 * read, and (admins) add a colleague at the organization's own domain or remove one, whose
 * sessions end at once. Each call takes a buyer token (`tpb_…`).
 */
import { createRoute } from "@hono/zod-openapi";
import {
  AddBuyerMemberRequest,
  BuyerMembersResponse,
  BuyerMemberView,
  Email,
} from "../../domain/buyers.ts";
import { notFound, validationFailed } from "../../domain/errors.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import { addBuyerMember, liveGrants, requireBuyerAdmin } from "../../serve/buyers.ts";
import { listBuyerMembers, removeBuyerMember } from "../../store/buyers.ts";
import { BUYER, caller, requireBuyerBearer, tags } from "../buyer_caller.ts";
import { createRouter } from "../env.ts";
import { errors, json, jsonBody } from "../openapi.ts";

/** Mounted at /public/trust. */
export const buyerMemberRoutes = createRouter();

buyerMemberRoutes.openapi(
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

buyerMemberRoutes.openapi(
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

buyerMemberRoutes.openapi(
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
