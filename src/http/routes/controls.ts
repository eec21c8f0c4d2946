/**
 * The control catalog of a project: list, add custom controls, change
 * policies, names, rules, whether a control is enabled and whether it is
 * required. Every change schedules a recompute.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import {
  CreateControlRequest,
  MAX_CONTROLS_PER_PROJECT,
  TrustControlListResponse,
  TrustControlResponse,
  UpdateControlRequest,
} from "../../domain/control.ts";
import { notFound } from "../../domain/errors.ts";
import { inCatalogOrder } from "../../evaluate/catalog.ts";
import {
  createControl,
  getControl,
  listControlsByProject,
  updateControl,
} from "../../store/controls.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const controlRoutes = createRouter();

const tags = ["Controls"];
const ProjectParams = z.object({ id: uuidParam("id") });

/** Defaults for a custom control: fresh for 7 days, degraded after, stale after 30 days. */
const CUSTOM_DEFAULTS = {
  freshnessPolicyJson: { kind: "time_window" as const, windowSeconds: 7 * 86400 },
  degradationPolicyJson: { staleAfterSeconds: 30 * 86400, degradedAfterSeconds: null },
};

controlRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/controls",
    operationId: "listProjectControls",
    tags,
    summary: "Controls configured for the project",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(TrustControlListResponse, "The project's controls, default catalog first"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const controls = inCatalogOrder(await listControlsByProject(c.var.services.kv, project.id));
    return c.json({ controls }, 200);
  },
);

controlRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/controls",
    operationId: "createProjectControl",
    tags,
    summary: "Add a custom control reading one evidence type",
    description:
      "With a rule `{ path, op, value }` the control passes when the rule holds on the latest payload of its evidence type; without one, the evidence type's default probe judges it. Keys start with `custom.`. " +
      `A project has at most ${MAX_CONTROLS_PER_PROJECT} controls, the default catalog and disabled ones included; adding one more is 409.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(CreateControlRequest) },
    responses: {
      201: json(TrustControlResponse, "The new control"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const body = c.req.valid("json");
    const { kv, clock, notifyActivity } = c.var.services;
    const control = await createControl(kv, project.id, {
      id: crypto.randomUUID(),
      key: body.key,
      category: "evidence",
      publicName: body.publicName,
      freshnessPolicyJson: body.freshnessPolicyJson ?? CUSTOM_DEFAULTS.freshnessPolicyJson,
      degradationPolicyJson: body.degradationPolicyJson ?? CUSTOM_DEFAULTS.degradationPolicyJson,
      enabled: body.enabled ?? true,
      createdAt: clock.now().toISOString(),
      evidenceType: body.evidenceType,
      rule: body.rule ?? null,
      required: body.required ?? false,
    });
    await notifyActivity(project.id);
    return c.json({ control }, 201);
  },
);

controlRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/projects/{id}/controls/{controlId}",
    operationId: "updateProjectControl",
    tags,
    summary: "Enable, rename, mark required, or change a control's policies or rule",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: ProjectParams.extend({ controlId: uuidParam("controlId") }),
      body: jsonBody(UpdateControlRequest),
    },
    responses: {
      200: json(TrustControlResponse, "The updated control"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { id, controlId } = c.req.valid("param");
    const project = await requireProjectAccess(c, id);
    const { kv, notifyActivity } = c.var.services;
    if (!(await getControl(kv, project.id, controlId))) throw notFound("No such control");
    const control = await updateControl(kv, project.id, controlId, c.req.valid("json"));
    if (!control) throw notFound("No such control");
    await notifyActivity(project.id);
    return c.json({ control }, 200);
  },
);
