/**
 * An organization's subprocessors: members read the list with its full history (who changed
 * what), owners add, change and remove them. The public list is in public_org.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { forbidden } from "../../domain/errors.ts";
import {
  CreateSubprocessorRequest,
  SubprocessorListResponse,
  SubprocessorResponse,
  UpdateSubprocessorRequest,
} from "../../domain/subprocessors.ts";
import { getOrganization } from "../../store/organizations.ts";
import {
  addSubprocessor,
  listSubprocessorHistory,
  listSubprocessors,
  removeSubprocessor,
  updateSubprocessor,
} from "../../store/subprocessors.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";
import type { Context } from "hono";

export const subprocessorRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const ItemParams = OrgParams.extend({ subprocessorId: uuidParam("subprocessorId") });
const tags = ["Subprocessors"];

/** The caller as an owner of an existing organization; who the history records. */
async function owner(c: Context<AppEnv>, organizationId: string) {
  await requireMembership(c, organizationId, "owner");
  if (!(await getOrganization(c.var.services.kv, organizationId))) throw forbidden();
  return { userId: c.var.user.id, email: c.var.user.email ?? null };
}

subprocessorRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/subprocessors",
    operationId: "listSubprocessors",
    tags,
    summary: "The organization's subprocessors and their history (members)",
    description:
      "Current subprocessors by name, and every addition, change and removal, newest first, with who made it. The public list (without who) is GET /public/trust/{orgSlug}/subprocessors.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      200: json(SubprocessorListResponse, "The list and its history"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const { kv } = c.var.services;
    const [subprocessors, history] = await Promise.all([
      listSubprocessors(kv, organizationId),
      listSubprocessorHistory(kv, organizationId),
    ]);
    return c.json({ subprocessors, history }, 200);
  },
);

subprocessorRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/subprocessors",
    operationId: "addSubprocessor",
    tags,
    summary: "Add a subprocessor (owners)",
    description:
      "Name, purpose, location (country or region) and an https website; plain text without control characters. Shown at once on the public list, and recorded in its history.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(CreateSubprocessorRequest) },
    responses: {
      201: json(SubprocessorResponse, "The subprocessor as stored"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const subprocessor = await addSubprocessor(kv, organizationId, {
      request: c.req.valid("json"),
      actor,
      now: clock.now(),
    });
    return c.json({ subprocessor }, 201);
  },
);

subprocessorRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/organizations/{organizationId}/subprocessors/{subprocessorId}",
    operationId: "updateSubprocessor",
    tags,
    summary: "Change a subprocessor (owners)",
    description:
      "Fields left out are kept. A change is recorded in the history with the fields before and after; a request that changes nothing records nothing.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams, body: jsonBody(UpdateSubprocessorRequest) },
    responses: {
      200: json(SubprocessorResponse, "The subprocessor as stored"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId, subprocessorId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const subprocessor = await updateSubprocessor(kv, organizationId, {
      id: subprocessorId,
      change: c.req.valid("json"),
      actor,
      now: clock.now(),
    });
    return c.json({ subprocessor }, 200);
  },
);

subprocessorRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/subprocessors/{subprocessorId}",
    operationId: "removeSubprocessor",
    tags,
    summary: "Remove a subprocessor (owners)",
    description: "It leaves the current list; the history keeps its removal with its last fields.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(SubprocessorResponse, "The subprocessor that was removed"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, subprocessorId } = c.req.valid("param");
    const actor = await owner(c, organizationId);
    const { kv, clock } = c.var.services;
    const subprocessor = await removeSubprocessor(kv, organizationId, {
      id: subprocessorId,
      actor,
      now: clock.now(),
    });
    return c.json({ subprocessor }, 200);
  },
);
