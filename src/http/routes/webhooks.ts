/**
 * Webhook endpoints of a project: members manage every endpoint; other signed-in users
 * register and manage their own on public projects (src/http/webhook_access.ts). Deliveries
 * and redelivery are in webhook_deliveries.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import {
  CreatedWebhookResponse,
  CreateWebhookRequest,
  DISABLE_AFTER_FAILED_DELIVERIES,
  MAX_WEBHOOKS_PER_PROJECT,
  MAX_WEBHOOKS_PER_USER,
  RotatedSecretResponse,
  UpdateWebhookRequest,
  WebhookListResponse,
  WebhookResponse,
} from "../../domain/webhooks.ts";
import {
  changeWebhook,
  registerWebhook,
  rotateWebhookSecret,
  secretOf,
  webhookView,
} from "../../push/webhooks.ts";
import { deleteWebhook, listWebhooks } from "../../store/webhooks.ts";
import { requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";
import { canManage, requireWebhook, requireWebhookAccess } from "../webhook_access.ts";

export const webhookRoutes = createRouter();

const ProjectParams = z.object({ projectId: uuidParam("projectId") });
const ItemParams = ProjectParams.extend({ webhookId: uuidParam("webhookId") });
const tags = ["Webhooks"];
const WHO =
  "Members of the project's organization manage every endpoint of the project; any other signed-in user may register endpoints on a public project and sees and manages only their own (others' answer 404). A private project answers 403 to non-members.";

webhookRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{projectId}/webhooks",
    operationId: "listWebhooks",
    tags,
    summary: "The project's webhook endpoints (members: all; other users: their own)",
    description: WHO,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(WebhookListResponse, "The endpoints, oldest first"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const access = await requireWebhookAccess(c, c.req.valid("param").projectId);
    const { kv, keys } = c.var.services;
    const webhooks = (await listWebhooks(kv, access.project.id))
      .filter((webhook) => canManage(access, webhook))
      .map((webhook) => webhookView(webhook, access.userId, keys.webhooks));
    return c.json({ webhooks }, 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{projectId}/webhooks",
    operationId: "createWebhook",
    tags,
    summary: "Register a webhook endpoint",
    description:
      `${WHO} Deliveries follow the Standard Webhooks specification (see the \`webhooks\` section of this document). The URL must be https and its host must resolve only to public addresses (no loopback, private, link-local, CGNAT, multicast or metadata addresses) unless the service runs with WEBHOOK_ALLOW_PRIVATE=true, which also allows http to loopback; a refused URL answers 400 and stores nothing. With \`signing: "hmac"\` the response carries the endpoint's \`whsec_…\` secret, shown only there. At most ${MAX_WEBHOOKS_PER_PROJECT} endpoints per project and ${MAX_WEBHOOKS_PER_USER} per user.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(CreateWebhookRequest) },
    responses: {
      201: json(CreatedWebhookResponse, "The endpoint, and its secret for hmac signing"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const access = await requireWebhookAccess(c, c.req.valid("param").projectId);
    const { kv, clock, keys, hostResolver, config } = c.var.services;
    const webhook = await registerWebhook(kv, c.req.valid("json"), {
      project: access.project,
      userId: access.userId,
      now: clock.now(),
      resolver: hostResolver,
      allowPrivate: config.webhookAllowPrivate,
    });
    const secret = webhook.secret ? secretOf(webhook.secret) : null;
    return c.json({ webhook: webhookView(webhook, access.userId, keys.webhooks), secret }, 201);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{projectId}/webhooks/{webhookId}",
    operationId: "getWebhook",
    tags,
    summary: "One webhook endpoint",
    description: WHO,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(WebhookResponse, "The endpoint"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { projectId, webhookId } = c.req.valid("param");
    const access = await requireWebhookAccess(c, projectId);
    const webhook = await requireWebhook(c, access, webhookId);
    return c.json(
      { webhook: webhookView(webhook, access.userId, c.var.services.keys.webhooks) },
      200,
    );
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/projects/{projectId}/webhooks/{webhookId}",
    operationId: "updateWebhook",
    tags,
    summary: "Change a webhook's URL, events, description or enabled state",
    description:
      `Fields left out are kept. A new URL is checked as at registration and starts a new count of failed deliveries. A disabled endpoint receives nothing, and its pending deliveries fail at their next attempt. The service itself disables an endpoint after ${DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row ended \`failed\` (\`disabled.reason: "failing"\`); \`enabled: true\` turns it back on and resets \`consecutiveFailures\`. The signing method is fixed at registration.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams, body: jsonBody(UpdateWebhookRequest) },
    responses: {
      200: json(WebhookResponse, "The endpoint as stored"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { projectId, webhookId } = c.req.valid("param");
    const access = await requireWebhookAccess(c, projectId);
    const current = await requireWebhook(c, access, webhookId);
    const { kv, clock, keys, hostResolver, config } = c.var.services;
    const webhook = await changeWebhook(kv, current, c.req.valid("json"), {
      now: clock.now(),
      resolver: hostResolver,
      allowPrivate: config.webhookAllowPrivate,
    });
    return c.json({ webhook: webhookView(webhook, access.userId, keys.webhooks) }, 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/projects/{projectId}/webhooks/{webhookId}",
    operationId: "deleteWebhook",
    tags,
    summary: "Remove a webhook endpoint",
    description:
      "It receives nothing more; a delivery waiting for a retry stops. Its delivery log expires with the log's 30-day retention.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(WebhookResponse, "The endpoint that was removed"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { projectId, webhookId } = c.req.valid("param");
    const access = await requireWebhookAccess(c, projectId);
    await requireWebhook(c, access, webhookId);
    const { kv, keys } = c.var.services;
    const removed = await deleteWebhook(kv, projectId, webhookId);
    return c.json({ webhook: webhookView(removed, access.userId, keys.webhooks) }, 200);
  },
);

webhookRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{projectId}/webhooks/{webhookId}/rotate-secret",
    operationId: "rotateWebhookSecret",
    tags,
    summary: "A new HMAC secret for an hmac endpoint",
    description:
      "The new `whsec_…` secret is shown only in this response. For 24 hours deliveries carry two `v1` signatures, one with each secret, so the receiver can switch without losing deliveries. An ed25519 endpoint has no secret (400).",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      200: json(RotatedSecretResponse, "The endpoint and its new secret"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { projectId, webhookId } = c.req.valid("param");
    const access = await requireWebhookAccess(c, projectId);
    const current = await requireWebhook(c, access, webhookId);
    const { kv, clock, keys } = c.var.services;
    const webhook = await rotateWebhookSecret(kv, current, clock.now());
    return c.json({
      webhook: webhookView(webhook, access.userId, keys.webhooks),
      secret: secretOf(webhook.secret!),
    }, 200);
  },
);
