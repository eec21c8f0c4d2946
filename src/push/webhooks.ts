/**
 * Signed webhooks: registering endpoints (with the SSRF check and their secret), what callers
 * see of them, the test ping, and the wiring of the push channel and the delivery handler.
 */
import type { SigningKey } from "../auth/keys.ts";
import { badRequest, rateLimited, validationFailed } from "../domain/errors.ts";
import {
  type CreateWebhookRequest,
  type DeliveryRecord,
  TEST_EVENT_TYPE,
  TEST_PING_WINDOW_MS,
  TEST_PINGS_PER_PROJECT,
  TEST_PINGS_PER_WEBHOOK,
  type UpdateWebhookRequest,
  type Webhook,
  type WebhookRecord,
} from "../domain/webhooks.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { JobWorker } from "../live/worker.ts";
import { createTestDelivery } from "../store/webhook_deliveries.ts";
import { createWebhook, updateWebhook } from "../store/webhooks.ts";
import { resetCircuit } from "../store/webhook_gate.ts";
import type { EventBus } from "./events.ts";
import { deliveryHandler, type WebhookDeliveryOptions } from "./webhook_delivery.ts";
import { newDelivery, webhookChannel } from "./webhook_fanout.ts";
import { disabledOf, withEnabled } from "./webhook_health.ts";
import { newHmacSecret, standardPublicKey } from "./webhook_signing.ts";
import { checkTarget, type HostResolver, TargetRefused } from "./webhook_target.ts";

/** How long a rotated-away HMAC secret keeps signing next to the new one. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

/** Subscribes the webhook channel to the event bus and handles "webhook-delivery" jobs. */
export function registerWebhooks(deps: {
  kv: Deno.Kv;
  clock: Clock;
  log: Logger;
  events: EventBus;
  jobs: JobWorker;
  key: SigningKey;
  resolver: HostResolver;
  allowPrivate: boolean;
  options: WebhookDeliveryOptions;
}): void {
  deps.events.subscribe("webhooks", webhookChannel(deps));
  deps.jobs.on("webhook-delivery", deliveryHandler(deps));
}

/** An endpoint as `viewer` sees it: never its secret. */
export function webhookView(webhook: WebhookRecord, viewer: string, key: SigningKey): Webhook {
  const ed25519 = webhook.signing === "ed25519";
  return {
    id: webhook.id,
    projectId: webhook.projectId,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    signing: webhook.signing,
    publicKey: ed25519 ? standardPublicKey(key) : null,
    keyId: ed25519 ? key.kid : null,
    enabled: webhook.enabled,
    disabled: disabledOf(webhook),
    consecutiveFailures: webhook.consecutiveFailures ?? 0,
    createdBy: webhook.createdBy,
    mine: webhook.createdBy === viewer,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

/** The one-time secret block of a response. */
export function secretOf(value: string) {
  return {
    value,
    note:
      "Shown only now. Verify deliveries with it (Standard Webhooks, v1 signatures); rotate it if it is lost or exposed.",
  };
}

interface TargetDeps {
  resolver: HostResolver;
  allowPrivate: boolean;
}

/** Checks a URL as a webhook target; a refusal is validation_failed with its reason. */
export async function requireTarget(url: string, deps: TargetDeps): Promise<string> {
  try {
    return (await checkTarget(url, deps)).url.href;
  } catch (error) {
    if (error instanceof TargetRefused) throw validationFailed(error.message);
    throw error;
  }
}

/** Registers an endpoint for `userId` on a project (after the SSRF check). */
export async function registerWebhook(
  kv: Deno.Kv,
  request: CreateWebhookRequest,
  context: TargetDeps & {
    project: { id: string; organizationId: string };
    userId: string;
    now: Date;
  },
): Promise<WebhookRecord> {
  const url = await requireTarget(request.url, context);
  const at = context.now.toISOString();
  const webhook: WebhookRecord = {
    id: crypto.randomUUID(),
    projectId: context.project.id,
    organizationId: context.project.organizationId,
    createdBy: context.userId,
    url,
    events: request.events,
    description: request.description ?? "",
    signing: request.signing,
    secret: request.signing === "hmac" ? newHmacSecret() : null,
    previousSecret: null,
    enabled: true,
    consecutiveFailures: 0,
    disabled: null,
    createdAt: at,
    updatedAt: at,
  };
  await createWebhook(kv, webhook);
  return webhook;
}

/**
 * Applies a change (a new URL is checked again, and starts a new count of failed
 * deliveries); `enabled: true` turns the endpoint back on and resets the count. Either also
 * forgets the endpoint's failed attempts in a row (its circuit).
 */
export async function changeWebhook(
  kv: Deno.Kv,
  webhook: WebhookRecord,
  change: UpdateWebhookRequest,
  context: TargetDeps & { now: Date },
): Promise<WebhookRecord> {
  const url = change.url === undefined ? undefined : await requireTarget(change.url, context);
  // Turned back on, or pointing somewhere new: its earlier failed attempts no longer count.
  if (change.enabled === true || (url !== undefined && url !== webhook.url)) {
    await resetCircuit(kv, webhook.id);
  }
  return await updateWebhook(kv, webhook.projectId, webhook.id, (current) => {
    const next: WebhookRecord = {
      ...current,
      ...(url === undefined || url === current.url ? {} : { url, consecutiveFailures: 0 }),
      ...(change.events ? { events: change.events } : {}),
      ...(change.description === undefined ? {} : { description: change.description }),
      updatedAt: context.now.toISOString(),
    };
    return change.enabled === undefined
      ? next
      : withEnabled(next, { enabled: change.enabled, now: context.now });
  });
}

/** A new HMAC secret; the previous one keeps signing alongside for SECRET_OVERLAP_MS. */
export async function rotateWebhookSecret(
  kv: Deno.Kv,
  webhook: WebhookRecord,
  now: Date,
): Promise<WebhookRecord> {
  if (webhook.signing !== "hmac") {
    throw badRequest("Only an hmac webhook has a secret; ed25519 ones use the service's key");
  }
  return await updateWebhook(kv, webhook.projectId, webhook.id, (current) => ({
    ...current,
    secret: newHmacSecret(),
    previousSecret: current.secret
      ? { value: current.secret, until: new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString() }
      : null,
    updatedAt: now.toISOString(),
  }));
}

/**
 * Queues a `webhook.test` ping to the endpoint, as a delivery of its own: at most
 * TEST_PINGS_PER_WEBHOOK per endpoint and TEST_PINGS_PER_PROJECT per project in each
 * TEST_PING_WINDOW_MS; beyond that, a 429 with Retry-After, and nothing is stored.
 */
export async function sendTestPing(
  kv: Deno.Kv,
  webhook: WebhookRecord,
  now: Date,
): Promise<DeliveryRecord> {
  const messageId = crypto.randomUUID();
  const delivery = newDelivery(webhook, {
    messageId,
    now,
    payload: {
      type: TEST_EVENT_TYPE,
      timestamp: now.toISOString(),
      data: {
        eventId: messageId,
        organizationId: webhook.organizationId,
        projectId: webhook.projectId,
        webhookId: webhook.id,
        message: "A test delivery asked for from the API or the dashboard",
      },
    },
  });
  const refused = await createTestDelivery(kv, delivery, {
    eventId: messageId,
    now: now.getTime(),
    limits: {
      perWebhook: TEST_PINGS_PER_WEBHOOK,
      perProject: TEST_PINGS_PER_PROJECT,
      windowMs: TEST_PING_WINDOW_MS,
    },
  });
  if (refused?.scope === "busy") {
    throw rateLimited("Too many test pings at once; try again shortly", 1);
  }
  if (refused) {
    const per = refused.scope === "webhook" ? "endpoint" : "project";
    const minute = TEST_PING_WINDOW_MS / 1000;
    throw rateLimited(
      `At most ${refused.limit} test pings per ${per} in ${minute} s; try again later`,
      refused.retryAfterMs / 1000,
    );
  }
  return delivery;
}
