/**
 * The `webhooks` section of /openapi.json (OpenAPI 3.1): one entry per event type, the
 * request the service makes to a registered endpoint, with the Standard Webhooks headers.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../domain/events.ts";
import {
  DISABLE_AFTER_FAILED_DELIVERIES,
  TEST_EVENT_TYPE,
  WebhookPayload,
} from "../domain/webhooks.ts";
import type { AppEnv } from "./env.ts";

const WHAT: Record<string, string> = {
  "version.published":
    "A new version of the project's trust profile was published. `data`: `project` (id, slug, name), `version`, `pageUrl`, `trustJsonUrl`, `digest`, `overallState`, `changes` (how many controls changed).",
  "control.regressed":
    "A published version has controls that went from pass to fail, stale or degraded. `data`: `project`, `version`, `pageUrl`, `count`, and `controls` (at most 50: key, name, from, to, reason).",
  "control.recovered":
    "A published version has controls that pass again after a regression. `data` as for control.regressed.",
  "update.posted": "An incident, advisory or change post was published on the trust center.",
  "subprocessor.changed":
    "The organization added, changed or removed a subprocessor; sent to every endpoint of the organization's projects that subscribed. `data`: the public history entry (`at`, `action`, `subprocessorId`, `name`, `before`, `after`); `projectId` is null.",
  [TEST_EVENT_TYPE]: "A ping asked for with POST …/webhooks/{webhookId}/test.",
};

const Headers = z.object({
  "webhook-id": z.string().openapi({
    description: "The message id: the same on every retry and redelivery (deduplicate on it)",
  }),
  "webhook-timestamp": z.string().openapi({
    description: "Unix seconds of this attempt; reject ones far from your clock (5 minutes)",
  }),
  "webhook-signature": z.string().openapi({
    description:
      "Space-separated signatures of `${webhook-id}.${webhook-timestamp}.${body}`: `v1a,<base64 Ed25519>` (service key) or `v1,<base64 HMAC-SHA256>` (endpoint secret; two during a secret rotation)",
  }),
  "webhook-key-id": z.string().optional().openapi({
    description: "For v1a signatures: the `kid` of the key in /.well-known/jwks.json",
  }),
});

/** Registers every event type's delivery under the document's `webhooks`. */
export function describeWebhooks(app: OpenAPIHono<AppEnv>): void {
  for (const type of [...EVENT_TYPES, TEST_EVENT_TYPE]) {
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      operationId: `${type.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
      tags: ["Webhooks"],
      summary: `The \`${type}\` delivery`,
      description: `${
        WHAT[type]
      } Sent to endpoints registered with POST /projects/{projectId}/webhooks that chose this event, signed per the Standard Webhooks specification, and retried with exponential backoff (5 s, 30 s, 2 min, 10 min, 1 h, 3 h, 6 h; eight attempts) until the endpoint answers 2xx. Redirects are not followed. When the host has several addresses, the next is tried if one cannot be connected to, within the same 10 s. An endpoint whose last ${DISABLE_AFTER_FAILED_DELIVERIES} deliveries all failed is disabled until its owner turns it back on.`,
      security: [],
      request: {
        headers: Headers,
        body: { required: true, content: { "application/json": { schema: WebhookPayload } } },
      },
      responses: {
        200: { description: "Any 2xx status acknowledges the delivery" },
        500: { description: "Any other status, or no answer within 10 s, is retried" },
      },
    });
  }
}
