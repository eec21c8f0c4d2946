/**
 * Projects: create, read, update metadata, and the control catalog.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { forbidden } from "../../domain/errors.ts";
import {
  CreateProjectRequest,
  ProjectResponse,
  UpdateProjectRequest,
} from "../../domain/workspace.ts";
import { catalogControls } from "../../evaluate/catalog.ts";
import { createProject, updateProject } from "../../store/projects.ts";
import { requireHuman, requireMembership, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const projectRoutes = createRouter();

export const ProjectParams = z.object({ id: uuidParam("id") });
const tags = ["Projects"];

projectRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects",
    operationId: "createProject",
    tags,
    summary: "Create a project in an organization the caller belongs to",
    description:
      "The project starts with the default control catalog; visibility defaults to private.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { body: jsonBody(CreateProjectRequest) },
    responses: {
      201: json(ProjectResponse, "The new project"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    await requireMembership(c, body.organizationId);
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const project = await createProject(kv, body, { now, controls: catalogControls(now) });
    return c.json({ project }, 201);
  },
);

projectRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}",
    operationId: "getProject",
    tags,
    summary: "A project of one of the caller's organizations",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(ProjectResponse, "The project"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    return c.json({ project }, 200);
  },
);

projectRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/projects/{id}",
    operationId: "updateProject",
    tags,
    summary: "Change a project's name, hosted subdomain, visibility or autoPublish",
    description: "The slug is fixed at creation: a body naming `slug` is refused with 400.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(UpdateProjectRequest) },
    responses: {
      200: json(ProjectResponse, "The updated project"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    await requireProjectAccess(c, id);
    const { kv, clock } = c.var.services;
    const project = await updateProject(kv, id, c.req.valid("json"), clock.now());
    if (!project) throw forbidden();
    return c.json({ project }, 200);
  },
);
