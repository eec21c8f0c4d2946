/**
 * The webhook push channel: a trust event becomes one delivery per matching endpoint. A
 * project's events go to that project's endpoints; an organization's (`subprocessor.changed`)
 * to the endpoints of every project of the organization that subscribed to it. An endpoint
 * receives an event only while its project is public or its creator is a member of the
 * organization, so an endpoint registered by a buyer stops receiving when the project turns
 * private, and a former member's endpoint when they leave.
 */
import type { TrustEvent } from "../domain/events.ts";
import type { DeliveryRecord, WebhookPayload, WebhookRecord } from "../domain/webhooks.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import { getMembership } from "../store/organizations.ts";
import { getProject, listProjectsByOrganization } from "../store/projects.ts";
import { createDelivery } from "../store/webhook_deliveries.ts";
import { destinationOf } from "../store/webhook_gate.ts";
import { listWebhooks } from "../store/webhooks.ts";

/** The body of a delivery: Standard Webhooks' `{ type, timestamp, data }`. */
export function webhookPayload(event: TrustEvent): WebhookPayload {
  return {
    type: event.type,
    timestamp: event.timestamp,
    data: {
      ...event.data,
      eventId: event.id,
      organizationId: event.organizationId,
      projectId: event.projectId,
    },
  };
}

/** A new pending delivery of `payload` (message id `messageId`) to `webhook`. */
export function newDelivery(
  webhook: WebhookRecord,
  message: { messageId: string; payload: WebhookPayload; now: Date },
): DeliveryRecord {
  const at = message.now.toISOString();
  return {
    id: timeOrderedUuid(message.now),
    webhookId: webhook.id,
    projectId: webhook.projectId,
    messageId: message.messageId,
    type: message.payload.type,
    status: "pending",
    attemptCount: 0,
    nextAttemptAt: at,
    createdAt: at,
    deliveredAt: null,
    attempts: [],
    payload: message.payload,
    sequence: 1,
    round: "automatic",
    automaticAttempts: 0,
    claim: null,
    subscriberId: webhook.createdBy,
    ...(destinationOf(webhook.url) ? { destination: destinationOf(webhook.url)! } : {}),
  };
}

async function projectIdsOf(kv: Deno.Kv, event: TrustEvent): Promise<string[]> {
  if (event.projectId) return [event.projectId];
  const projects = await listProjectsByOrganization(kv, event.organizationId);
  return projects.map((p) => p.id);
}

/** The enabled endpoints that subscribed to the event and may receive it. */
export async function endpointsFor(kv: Deno.Kv, event: TrustEvent): Promise<WebhookRecord[]> {
  const targets: WebhookRecord[] = [];
  const members = new Map<string, boolean>();
  const isMember = async (userId: string) => {
    if (!members.has(userId)) {
      members.set(userId, !!(await getMembership(kv, event.organizationId, userId)));
    }
    return members.get(userId)!;
  };
  for (const projectId of await projectIdsOf(kv, event)) {
    const project = await getProject(kv, projectId);
    if (!project || project.organizationId !== event.organizationId) continue;
    for (const webhook of await listWebhooks(kv, projectId)) {
      if (!webhook.enabled || !(webhook.events as string[]).includes(event.type)) continue;
      if (project.visibility === "public" || await isMember(webhook.createdBy)) {
        targets.push(webhook);
      }
    }
  }
  return targets;
}

/**
 * The channel for the event bus: creates each delivery with the job of its first attempt. It is
 * idempotent (one delivery per event and endpoint), as the bus may hand an event out again.
 */
export function webhookChannel(deps: { kv: Deno.Kv; clock: { now(): Date } }) {
  return async (event: TrustEvent): Promise<void> => {
    const payload = webhookPayload(event);
    for (const webhook of await endpointsFor(deps.kv, event)) {
      const delivery = newDelivery(webhook, {
        messageId: event.id,
        payload,
        now: deps.clock.now(),
      });
      await createDelivery(deps.kv, delivery, event.id);
    }
  };
}
