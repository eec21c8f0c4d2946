/**
 * Webhook deliveries: one record per (event, endpoint), created with the job of its first
 * attempt in one atomic commit that also claims the (event, endpoint) marker, so an event
 * handed out twice makes one delivery. Every later change (an attempt's outcome, the next
 * retry, a redelivery) commits the record and the job it schedules together. Records expire
 * after DELIVERY_RETENTION_MS.
 */
import {
  DELIVERY_RETENTION_MS,
  type DeliveryRecord,
  type WebhookRecord,
} from "../domain/webhooks.ts";
import { stageJob } from "./jobs.ts";
import {
  allWebhookDeliveriesPrefix,
  webhookDeliveriesPrefix,
  webhookDeliveryByEventKey,
  webhookDeliveryKey,
  webhookKey,
} from "./keys.ts";

/** The job of one attempt of a delivery. */
export interface DeliveryMessage {
  kind: "webhook-delivery";
  projectId: string;
  webhookId: string;
  deliveryId: string;
  /** The delivery's `sequence` when this was scheduled; an older one is stale. */
  sequence: number;
  [field: string]: unknown;
}

export function isDeliveryMessage(value: { kind: string }): value is DeliveryMessage {
  const m = value as DeliveryMessage;
  return m.kind === "webhook-delivery" && typeof m.webhookId === "string" &&
    typeof m.deliveryId === "string" && typeof m.projectId === "string" &&
    typeof m.sequence === "number";
}

/** The job of the next attempt of `delivery`. */
export function messageOf(delivery: DeliveryRecord): DeliveryMessage {
  return {
    kind: "webhook-delivery",
    projectId: delivery.projectId,
    webhookId: delivery.webhookId,
    deliveryId: delivery.id,
    sequence: delivery.sequence,
  };
}

/**
 * Stores a new delivery for `eventId` with the job of its first attempt, unless the endpoint
 * already has a delivery of that event; returns whether it was created.
 */
export async function createDelivery(
  kv: Deno.Kv,
  delivery: DeliveryRecord,
  eventId: string,
): Promise<boolean> {
  const marker = webhookDeliveryByEventKey(delivery.webhookId, eventId);
  const expireIn = DELIVERY_RETENTION_MS;
  const op = kv.atomic()
    .check({ key: marker, versionstamp: null })
    .set(marker, delivery.id, { expireIn })
    .set(webhookDeliveryKey(delivery.webhookId, delivery.id), delivery, { expireIn });
  stageJob(op, messageOf(delivery), { now: new Date(delivery.nextAttemptAt ?? Date.now()) });
  return (await op.commit()).ok;
}

/** One delivery with its versionstamp (null value when it does not exist). */
export function getDelivery(
  kv: Deno.Kv,
  webhookId: string,
  deliveryId: string,
): Promise<Deno.KvEntryMaybe<DeliveryRecord>> {
  return kv.get<DeliveryRecord>(webhookDeliveryKey(webhookId, deliveryId));
}

/** What `saveDelivery` commits. */
export interface DeliveryChange {
  /** The delivery as read; the commit fails if it has changed since. */
  entry: Deno.KvEntry<DeliveryRecord>;
  next: DeliveryRecord;
  /** Schedule the next attempt `delayMs` after `now`. */
  schedule?: { now: Date; delayMs: number };
  /** Also replace its endpoint (the failure count), read as `entry`, if it has not changed. */
  webhook?: { entry: Deno.KvEntry<WebhookRecord>; next: WebhookRecord };
}

/**
 * Replaces a delivery read as `entry`, if it has not changed since, with what goes with it
 * (its next attempt's job, its endpoint's new state) in the same commit. Returns whether it
 * committed.
 */
export async function saveDelivery(
  kv: Deno.Kv,
  { entry, next, schedule, webhook }: DeliveryChange,
): Promise<boolean> {
  const op = kv.atomic().check(entry)
    .set(webhookDeliveryKey(next.webhookId, next.id), next, { expireIn: DELIVERY_RETENTION_MS });
  if (schedule) {
    const dueAt = schedule.now.getTime() + Math.max(0, schedule.delayMs);
    stageJob(op, messageOf(next), { now: schedule.now, dueAt });
  }
  if (webhook) {
    op.check(webhook.entry)
      .set(webhookKey(webhook.next.projectId, webhook.next.id), webhook.next);
  }
  return (await op.commit()).ok;
}

/**
 * A page of an endpoint's deliveries, newest first, older than the delivery `before` when
 * given; `cursor` is the id to pass as `before` for the next page (null on the last).
 */
export async function listDeliveries(
  kv: Deno.Kv,
  webhookId: string,
  options: { limit: number; before?: string },
): Promise<{ deliveries: DeliveryRecord[]; cursor: string | null }> {
  const prefix = webhookDeliveriesPrefix(webhookId);
  const selector = options.before ? { prefix, end: [...prefix, options.before] } : { prefix };
  const deliveries: DeliveryRecord[] = [];
  const iter = kv.list<DeliveryRecord>(selector, { reverse: true, limit: options.limit + 1 });
  for await (const entry of iter) deliveries.push(entry.value);
  const more = deliveries.length > options.limit;
  const page = deliveries.slice(0, options.limit);
  return { deliveries: page, cursor: more ? page.at(-1)!.id : null };
}

/** Every delivery still being attempted, of every endpoint (a one-time upgrade reads them). */
export async function* scanPendingDeliveries(kv: Deno.Kv): AsyncGenerator<DeliveryRecord> {
  const iter = kv.list<DeliveryRecord>({ prefix: allWebhookDeliveriesPrefix() }, {
    batchSize: 500,
  });
  for await (const entry of iter) if (entry.value.status === "pending") yield entry.value;
}
