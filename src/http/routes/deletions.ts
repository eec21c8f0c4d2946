/**
 * Deleting a project or an organization (owners, typed confirmation of the slug, 7-day grace
 * with undo) and one's own account (at once). See docs/lifecycle.md.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import {
  AccountDeletedResponse,
  DeleteAccountRequest,
  type DeletionKind,
  DeletionResponse,
  DeletionStatusResponse,
  ScheduleDeletionRequest,
  toDeletion,
} from "../../domain/deletion.ts";
import { forbidden, notFound, validationFailed } from "../../domain/errors.ts";
import { deleteAccount } from "../../lifecycle/account_deletion.ts";
import { cancelDeletion, getDeletion, scheduleDeletion } from "../../store/deletions.ts";
import { getOrganization } from "../../store/organizations.ts";
import { requireHuman, requireMembership, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const deletionRoutes = createRouter();

const tags = ["Deletion"];
const ProjectParams = z.object({ id: uuidParam("id") });
const OrgParams = z.object({ organizationId: uuidParam("organizationId") });

const GRACE =
  "The data is removed 7 days later by a job; until then an owner can undo it (DELETE). From now on the public routes answer 410 Gone and search no longer lists it.";

function confirmed(typed: string, slug: string, kind: DeletionKind) {
  if (typed !== slug) {
    throw validationFailed(`Type the ${kind}'s slug "${slug}" to confirm its deletion`);
  }
}

deletionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/deletion",
    operationId: "scheduleProjectDeletion",
    tags,
    summary: "Schedule a project's deletion (owners; confirm with its slug)",
    description: GRACE,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(ScheduleDeletionRequest) },
    responses: {
      202: json(DeletionResponse, "Scheduled"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    await requireMembership(c, project.organizationId, "owner");
    confirmed(c.req.valid("json").confirm, project.slug, "project");
    const { kv, clock } = c.var.services;
    const record = await scheduleDeletion(kv, {
      kind: "project",
      targetId: project.id,
      organizationId: project.organizationId,
      userId: c.var.user.id,
    }, clock.now());
    return c.json({ deletion: toDeletion(record) }, 202);
  },
);

deletionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/deletion",
    operationId: "getProjectDeletion",
    tags,
    summary: "A project's scheduled deletion (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(DeletionStatusResponse, "Its scheduled deletion, or null"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const record = await getDeletion(c.var.services.kv, "project", project.id);
    return c.json({ deletion: record ? toDeletion(record) : null }, 200);
  },
);

deletionRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/projects/{id}/deletion",
    operationId: "cancelProjectDeletion",
    tags,
    summary: "Undo a project's scheduled deletion (owners, during the grace)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      204: { description: "Undone: the project is back as it was" },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    await requireMembership(c, project.organizationId, "owner");
    const { kv } = c.var.services;
    if (!(await cancelDeletion(kv, "project", project.id))) {
      throw notFound("No deletion of this project is scheduled (or it has started)");
    }
    return c.body(null, 204);
  },
);

deletionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/deletion",
    operationId: "scheduleOrganizationDeletion",
    tags,
    summary:
      "Schedule an organization's deletion with all its projects (owners; confirm with its slug)",
    description: GRACE,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(ScheduleDeletionRequest) },
    responses: {
      202: json(DeletionResponse, "Scheduled"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId, "owner");
    const { kv, clock } = c.var.services;
    const organization = await getOrganization(kv, organizationId);
    if (!organization) throw forbidden();
    confirmed(c.req.valid("json").confirm, organization.slug, "organization");
    const record = await scheduleDeletion(kv, {
      kind: "organization",
      targetId: organizationId,
      organizationId,
      userId: c.var.user.id,
    }, clock.now());
    return c.json({ deletion: toDeletion(record) }, 202);
  },
);

deletionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/deletion",
    operationId: "getOrganizationDeletion",
    tags,
    summary: "An organization's scheduled deletion (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      200: json(DeletionStatusResponse, "Its scheduled deletion, or null"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const record = await getDeletion(c.var.services.kv, "organization", organizationId);
    return c.json({ deletion: record ? toDeletion(record) : null }, 200);
  },
);

deletionRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/deletion",
    operationId: "cancelOrganizationDeletion",
    tags,
    summary: "Undo an organization's scheduled deletion (owners, during the grace)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      204: { description: "Undone: the organization and its projects are back as they were" },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId, "owner");
    const { kv } = c.var.services;
    if (!(await cancelDeletion(kv, "organization", organizationId))) {
      throw notFound("No deletion of this organization is scheduled (or it has started)");
    }
    return c.body(null, 204);
  },
);

deletionRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/me",
    operationId: "deleteMyAccount",
    tags,
    summary: "Delete your own account at once (confirm with your email address)",
    description:
      "Removes your user record, memberships, sessions, sign-in links, login counters and built-in account. Records you wrote keep your opaque user id, and no longer your email. An owner with no other owner must first make another member an owner, or delete the organization (409).",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { body: jsonBody(DeleteAccountRequest) },
    responses: {
      200: json(AccountDeletedResponse, "Deleted; the token in use no longer works"),
      ...errors(400, 401, 409, 413, 415),
    },
  }),
  async (c) => {
    const user = c.var.user;
    if (c.req.valid("json").confirm.trim().toLowerCase() !== user.email.toLowerCase()) {
      throw validationFailed(`Type your email address "${user.email}" to confirm`);
    }
    await deleteAccount(c.var.services, user);
    return c.json({ deleted: true as const, message: "Your account was deleted" }, 200);
  },
);
