/**
 * Organizations, members and invitations.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { forbidden, notFound } from "../../domain/errors.ts";
import {
  CreateInvitationRequest,
  CreateOrganizationRequest,
  InvitationResponse,
  MembershipResponse,
  OrganizationMembersResponse,
  OrganizationResponse,
  ProjectListResponse,
} from "../../domain/workspace.ts";
import { randomToken } from "../../lib/encoding.ts";
import { sha256Hex } from "../../lib/hash.ts";
import { acceptInvitation, createInvitation, getInvitation } from "../../store/invitations.ts";
import {
  createOrganization,
  getMembership,
  getOrganization,
  listMembershipsPage,
  newMembership,
  removeMember,
} from "../../store/organizations.ts";
import { listProjectsPage } from "../../store/projects.ts";
import { projectDeletionsDue } from "../../store/deletions.ts";
import { getUsers } from "../../store/users.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";
import { LIST_PAGE_NOTE, listPageQuery } from "../../domain/list_page.ts";
import { linkNext, pageOf } from "../list_pages.ts";

const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export const organizationRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const tags = ["Organizations"];

organizationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations",
    operationId: "createOrganization",
    tags,
    summary: "Create an organization owned by the caller",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { body: jsonBody(CreateOrganizationRequest) },
    responses: {
      201: json(OrganizationResponse, "The new organization"),
      ...errors(400, 401, 409, 413, 415),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const { kv, clock } = c.var.services;
    const organization = await createOrganization(
      kv,
      { name: body.name, slug: body.slug, ownerUserId: c.var.user.id },
      clock.now(),
    );
    return c.json({ organization }, 201);
  },
);

organizationRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}",
    operationId: "getOrganization",
    tags,
    summary: "An organization the caller belongs to",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      200: json(OrganizationResponse, "The organization"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const organization = await getOrganization(c.var.services.kv, organizationId);
    if (!organization) throw forbidden();
    return c.json({ organization }, 200);
  },
);

organizationRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/projects",
    operationId: "listOrganizationProjects",
    tags,
    summary: "Projects of an organization",
    description: `Oldest first (then by slug). ${LIST_PAGE_NOTE}`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: listPageQuery("Projects") },
    responses: {
      200: json(ProjectListResponse, "Projects, oldest first"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const page = pageOf("projects", c.req.valid("query"));
    const { values, nextCursor } = await listProjectsPage(c.var.services.kv, organizationId, page);
    linkNext(c, nextCursor);
    const deletionsDue = await projectDeletionsDue(
      c.var.services.kv,
      values.map((p) => p.id),
    );
    return c.json({ projects: values, nextCursor, deletionsDue }, 200);
  },
);

organizationRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/members",
    operationId: "listOrganizationMembers",
    tags,
    summary: "Members of an organization (members only)",
    description: `Oldest first. ${LIST_PAGE_NOTE}`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: listPageQuery("Members") },
    responses: {
      200: json(OrganizationMembersResponse, "The organization and its members"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const { kv } = c.var.services;
    const organization = await getOrganization(kv, organizationId);
    if (!organization) throw forbidden();
    const page = pageOf("members", c.req.valid("query"));
    const { values, nextCursor } = await listMembershipsPage(kv, organizationId, page);
    const users = await getUsers(kv, values.map((membership) => membership.userId));
    const members = values.flatMap((membership, i) => {
      const user = users[i];
      return user ? [{ membership, user }] : [];
    });
    linkNext(c, nextCursor);
    return c.json({ organization, members, nextCursor }, 200);
  },
);

organizationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/invitations",
    operationId: "inviteMember",
    tags,
    summary: "Invite someone by email (owners only)",
    description:
      "The accept URL is shown once; the invitation expires after 7 days and works once, for the invited email only.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(CreateInvitationRequest) },
    responses: {
      201: json(InvitationResponse, "The invitation and its one-time accept URL"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId, "owner");
    const body = c.req.valid("json");
    const { kv, clock, config } = c.var.services;
    const now = clock.now();
    const token = randomToken();
    const invitation = {
      id: crypto.randomUUID(),
      organizationId,
      email: body.email.toLowerCase(),
      role: body.role,
      invitedByUserId: c.var.user.id,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    };
    await createInvitation(kv, await sha256Hex(token), invitation);
    const acceptUrl = `${config.baseUrl}/dashboard/#invitation=${token}`;
    return c.json({ invitation, acceptUrl }, 201);
  },
);

organizationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/invitations/{token}/accept",
    operationId: "acceptInvitation",
    tags,
    summary: "Accept an invitation as the invited user",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: z.object({
        token: z.string().min(16).max(128).regex(/^[A-Za-z0-9_-]+$/).openapi({
          param: { name: "token", in: "path" },
        }),
      }),
    },
    responses: {
      200: json(MembershipResponse, "The membership (existing members get theirs unchanged)"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { token } = c.req.valid("param");
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const entry = await getInvitation(kv, await sha256Hex(token));
    if (
      !entry || entry.value.acceptedAt || Date.parse(entry.value.expiresAt) <= now.getTime()
    ) {
      throw notFound("The invitation does not exist, has expired or was already used");
    }
    const invitation = entry.value;
    const user = c.var.user;
    if (invitation.email !== user.email.toLowerCase()) {
      throw forbidden("The invitation was sent to a different email address");
    }
    const existing = await getMembership(kv, invitation.organizationId, user.id);
    if (existing) return c.json({ membership: existing }, 200);
    const membership = newMembership(invitation.organizationId, user.id, invitation.role, now);
    if (!(await acceptInvitation(kv, entry, { membership, now }))) {
      throw notFound("The invitation does not exist, has expired or was already used");
    }
    return c.json({ membership }, 200);
  },
);

organizationRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/members/{userId}",
    operationId: "removeMember",
    tags,
    summary: "Remove a member (owners; any member may remove themselves)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams.extend({ userId: uuidParam("userId") }) },
    responses: {
      204: { description: "Removed" },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, userId } = c.req.valid("param");
    await requireMembership(c, organizationId, userId === c.var.user.id ? undefined : "owner");
    if (!(await removeMember(c.var.services.kv, organizationId, userId))) {
      throw notFound("That user is not a member of this organization");
    }
    return c.body(null, 204);
  },
);
