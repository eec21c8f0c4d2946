/**
 * The delivery log of a webhook endpoint, manual redelivery and the test ping, for whoever
 * may manage the endpoint (src/http/webhook_access.ts).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import {
  CIRCUIT_COOLDOWN_MS,
  CIRCUIT_MAX_COOLDOWN_MS,
  CIRCUIT_OPEN_AFTER,
  DeliveryListResponse,
  type DeliveryRecord,
  DeliveryResponse,
  MAX_IN_FLIGHT_PER_SUBSCRIBER,
  TEST_EVENT_TYPE,
  TEST_PING_WINDOW_MS,
  TEST_PINGS_PER_PROJECT,
  TEST_PINGS_PER_WEBHOOK,
} from "../../domain/webhooks.ts";
import { redeliver } from "../../push/webhook_delivery.ts";
import { sendTestPing } from "../../push/webhooks.ts";
import { listDeliveries } from "../../store/webhook_deliveries.ts";
import { requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";
import { requireWebhook, requireWebhookAccess } from "../webhook_access.ts";

export const webhookDeliveryRoutes = createRouter();

const ItemParams = z.object({
  projectId: uuidParam("projectId"),
  webhookId: uuidParam("webhookId"),
});
const DeliveryParams = ItemParams.extend({ deliveryId: uuidParam("deliveryId") });
const tags = ["Webhooks"];

/** A delivery as shown: without the handler's bookkeeping. */
function deliveryView(delivery: DeliveryRecord) {
  const {
    projectId: _p,
    sequence: _s,
    round: _r,
    automaticAttempts: _a,
    claim: _c,
    subscriberId: _u,
    ...shown
  } = delivery;
  return shown;
}

webhookDeliveryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{projectId}/webhooks/{webhookId}/deliveries",
    operationId: "listWebhookDeliveries",
    tags,
    summary: "The endpoint's deliveries, newest first, with every attempt",
    description:
      "Each delivery is one event sent to this endpoint: its status (`pending` while attempts remain, `delivered` after a 2xx answer, `failed` when the retries ran out), and each attempt's time, HTTP status, duration and error. Deliveries are kept 30 days.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: ItemParams,
      query: z.object({
        limit: z.coerce.number().int().min(1).max(100).default(20),
        cursor: z.uuid().max(36).optional().openapi({
          description: "`cursor` of the previous page",
        }),
      }),
    },
    responses: {
      200: json(DeliveryListResponse, "A page of deliveries and the cursor of the next one"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { projectId, webhookId } = c.req.valid("param");
    const access = await requireWebhookAccess(c, projectId);
    const webhook = await requireWebhook(c, access, webhookId);
    const { limit, cursor } = c.req.valid("query");
    const page = await listDeliveries(c.var.services.kv, webhook.id, { limit, before: cursor });
    return c.json({ deliveries: page.deliveries.map(deliveryView), cursor: page.cursor }, 200);
  },
);

webhookDeliveryRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{projectId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver",
    operationId: "redeliverWebhook",
    tags,
    summary: "Send a delivery again, now",
    description:
      "One more attempt of a delivered or failed delivery, with the same `webhook-id` (receivers that deduplicate on it see a repeat), a new `webhook-timestamp` and new signatures; no automatic retries follow it. A delivery still pending answers 409.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: DeliveryParams },
    responses: {
      202: json(DeliveryResponse, "The attempt is queued"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { projectId, webhookId, deliveryId } = c.req.valid("param");
    const access = await requireWebhookAccess(c, projectId);
    const webhook = await requireWebhook(c, access, webhookId);
    const { kv, clock } = c.var.services;
    const delivery = await redeliver(kv, { webhookId: webhook.id, deliveryId }, clock.now());
    return c.json({ delivery: deliveryView(delivery) }, 202);
  },
);

webhookDeliveryRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{projectId}/webhooks/{webhookId}/test",
    operationId: "testWebhook",
    tags,
    summary: `Send a \`${TEST_EVENT_TYPE}\` ping to the endpoint`,
    description:
      `Queues a delivery of type \`${TEST_EVENT_TYPE}\`, signed and retried like any other; follow it in the delivery log. At most ${TEST_PINGS_PER_WEBHOOK} pings per endpoint and ${TEST_PINGS_PER_PROJECT} per project (all callers together) in ${
        TEST_PING_WINDOW_MS / 1000
      } s; beyond that the answer is 429 \`rate_limited\` with \`Retry-After\` (seconds until the window ends) and nothing is queued. Attempts to one endpoint go one at a time, at most ${MAX_IN_FLIGHT_PER_SUBSCRIBER} at once to the endpoints one user registered; after ${CIRCUIT_OPEN_AFTER} failed attempts in a row (timeouts included) an endpoint's next attempts wait ${
        CIRCUIT_COOLDOWN_MS / 1000
      } s, doubling with each further failure up to ${CIRCUIT_MAX_COOLDOWN_MS / 60_000} min.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ItemParams },
    responses: {
      202: json(DeliveryResponse, "The ping is queued"),
      ...errors(400, 401, 403, 404, 429),
    },
  }),
  async (c) => {
    const { projectId, webhookId } = c.req.valid("param");
    const access = await requireWebhookAccess(c, projectId);
    const webhook = await requireWebhook(c, access, webhookId);
    const { kv, clock } = c.var.services;
    const delivery = await sendTestPing(kv, webhook, clock.now());
    return c.json({ delivery: deliveryView(delivery) }, 202);
  },
);
