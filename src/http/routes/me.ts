/**
 * The caller and onboarding: GET /me, POST /onboarding/bootstrap.
 */
import { createRoute } from "@hono/zod-openapi";
import {
  BootstrapWorkspaceRequest,
  BootstrapWorkspaceResponse,
  MeResponse,
} from "../../domain/workspace.ts";
import { listOrganizationSummariesByUser } from "../../store/organizations.ts";
import { catalogControls } from "../../evaluate/catalog.ts";
import { bootstrapWorkspace } from "../../store/projects.ts";
import { requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const meRoutes = createRouter();

meRoutes.openapi(
  createRoute({
    method: "get",
    path: "/me",
    operationId: "getMe",
    tags: ["Identity"],
    summary: "The authenticated user and their organizations",
    security: HUMAN,
    middleware: [requireHuman] as const,
    responses: {
      200: json(MeResponse, "The user with an OrganizationSummary per membership"),
      ...errors(401),
    },
  }),
  async (c) => {
    const user = c.var.user;
    const organizations = await listOrganizationSummariesByUser(c.var.services.kv, user.id);
    return c.json({ user, organizations }, 200);
  },
);

meRoutes.openapi(
  createRoute({
    method: "post",
    path: "/onboarding/bootstrap",
    operationId: "bootstrapWorkspace",
    tags: ["Identity"],
    summary: "Create the caller's first organization and project in one step",
    description:
      "Once per user. The project starts private with the default control catalog; a second call answers 409.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { body: jsonBody(BootstrapWorkspaceRequest) },
    responses: {
      201: json(
        BootstrapWorkspaceResponse,
        "The new organization (owned by the caller) and project",
      ),
      ...errors(400, 401, 409, 413, 415),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const { kv, clock } = c.var.services;
    const result = await bootstrapWorkspace(kv, {
      userId: c.var.user.id,
      workspaceName: body.workspaceName,
      workspaceSlug: body.workspaceSlug,
      project: {
        name: body.projectName,
        slug: body.projectSlug,
        hostedSubdomain: body.projectHostedSubdomain,
        visibility: body.projectVisibility,
      },
    }, { now: clock.now(), controls: catalogControls(clock.now()) });
    return c.json(result, 201);
  },
);
