/**
 * Stored evaluations and on-demand recompute.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { ControlEvaluationListResponse } from "../../domain/publish.ts";
import { listEvaluations } from "../../live/recompute.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";

export const evaluationRoutes = createRouter();

const tags = ["Evaluations"];
const ProjectParams = z.object({ id: uuidParam("id") });

evaluationRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/evaluations",
    operationId: "listEvaluations",
    tags,
    summary: "Stored evaluations of the project's enabled controls",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(ControlEvaluationListResponse, "Evaluations in catalog order"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const evaluations = await listEvaluations(c.var.services.kv, project.id);
    return c.json({ evaluations }, 200);
  },
);

evaluationRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/evaluations/recompute",
    operationId: "recomputeEvaluations",
    tags,
    summary: "Evaluate every enabled control now and persist the results",
    description:
      "Deterministic: the same evidence at the same instant gives the same evaluations. The next recompute is scheduled at the earliest nextCheckAt. The rules are at /docs/evaluation.md.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(ControlEvaluationListResponse, "The new evaluations"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const result = await c.var.services.scheduler.recompute(project.id);
    return c.json({ evaluations: result?.evaluations ?? [] }, 200);
  },
);
