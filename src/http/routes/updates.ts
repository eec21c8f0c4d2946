/**
 * A project's updates (incidents, advisories, changes): members of its organization list,
 * post, edit, resolve, reopen and delete them, as they do every other part of a project.
 * Posting one stages the `update.posted` trust event with it. The public reads are in
 * trust_updates.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { uuidParam } from "../../domain/common.ts";
import {
  CreateUpdateRequest,
  EditUpdateRequest,
  TrustUpdateListResponse,
  TrustUpdateResponse,
  UpdatePageQuery,
} from "../../domain/updates.ts";
import { updatePostedEvent } from "../../serve/updates.ts";
import { deleteUpdate, editUpdate, listUpdates, postUpdate } from "../../store/updates.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const updateRoutes = createRouter();

const ProjectParams = z.object({ id: uuidParam("id") });
const ItemParams = z.object({
  projectId: uuidParam("projectId"),
  updateId: uuidParam("updateId"),
});
const tags = ["Updates"];

function actor(c: Context<AppEnv>) {
  return { userId: c.var.user.id, email: c.var.user.email ?? null };
}

updateRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/updates",
    operationId: "listProjectUpdates",
    tags,
    summary: "The project's updates, newest first (members)",
    description:
      "With who posted and last edited each. Pages: pass nextCursor as cursor. The public list is GET /trust/{projectSlug}/updates.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, query: UpdatePageQuery },
    responses: {
      200: json(TrustUpdateListResponse, "A page of updates"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const page = await listUpdates(c.var.services.kv, project.id, c.req.valid("query"));
    return c.json(page, 200);
  },
);

updateRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/updates",
    operationId: "postProjectUpdate",
    tags,
    summary: "Post an update (members)",
    description:
      "Kind, a one-line title and a Markdown body. Shown at once on the public trust page, the updates pages and the Atom feed (even while the project is private, it is kept for when it turns public), and announced to subscribers and webhooks as `update.posted`.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(CreateUpdateRequest) },
    responses: {
      201: json(TrustUpdateResponse, "The update as stored"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const { kv, clock, config } = c.var.services;
    const update = await postUpdate(kv, project.id, {
      request: c.req.valid("json"),
      actor: actor(c),
      now: clock.now(),
      event: (u) => updatePostedEvent(config, project, u),
    });
    return c.json({ update }, 201);
  },
);

updateRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/projects/{projectId}/updates/{updateId}",
    operationId: "editProjectUpdate",
    tags,
    summary: "Edit, resolve or reopen an update (members)",
    description:
      "Fields left out are kept; `resolved: true` marks it resolved now (kept if it already was), `false` reopens it. The posting time and author stay; updatedAt and updatedBy record the edit. No new `update.posted` event is raised.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams, body: jsonBody(EditUpdateRequest) },
    responses: {
      200: json(TrustUpdateResponse, "The update as stored"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { projectId, updateId } = c.req.valid("param");
    const project = await requireProjectAccess(c, projectId);
    const { kv, clock } = c.var.services;
    const update = await editUpdate(kv, project.id, {
      id: updateId,
      change: c.req.valid("json"),
      actor: actor(c),
      now: clock.now(),
    });
    return c.json({ update }, 200);
  },
);

updateRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/projects/{projectId}/updates/{updateId}",
    operationId: "deleteProjectUpdate",
    tags,
    summary: "Delete an update (members)",
    description: "It leaves the trust page, the updates pages and the feed.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(TrustUpdateResponse, "The update that was deleted"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { projectId, updateId } = c.req.valid("param");
    const project = await requireProjectAccess(c, projectId);
    const update = await deleteUpdate(c.var.services.kv, project.id, updateId);
    return c.json({ update }, 200);
  },
);
