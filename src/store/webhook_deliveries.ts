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
  webhookPingCountKey,
} from "./keys.ts";

/** Commits of a test ping tried while other pings change its counts at the same time. */
const MAX_PING_TRIES = 10;

/** The job of one attempt of a delivery. */
export interface DeliveryMessage {
  kind: "webhook-delivery";
  projectId: string;
  webhookId: string;
  deliveryId: string;
  /** The delivery's `sequence` when this was scheduled; an older one is stale. */
  sequence: number;
  /** The project's organization: whose work the attempt is (absent in older jobs). */
  organizationId?: string;
  /** Who registered the endpoint (absent in older jobs). */
  subscriberId?: string;
  /** The endpoint's origin, where the attempt connects (absent in older jobs). */
  destination?: string;
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
  // Every payload names the organization (webhookPayload, the test ping).
  const organizationId = (delivery.payload?.data as { organizationId?: unknown } | undefined)
    ?.organizationId;
  return {
    kind: "webhook-delivery",
    projectId: delivery.projectId,
    webhookId: delivery.webhookId,
    deliveryId: delivery.id,
    sequence: delivery.sequence,
    ...(typeof organizationId === "string" ? { organizationId } : {}),
    ...(delivery.subscriberId ? { subscriberId: delivery.subscriberId } : {}),
    ...(delivery.destination ? { destination: delivery.destination } : {}),
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
  return (await stageNewDelivery(kv.atomic(), delivery, eventId).commit()).ok;
}

function stageNewDelivery(op: Deno.AtomicOperation, delivery: DeliveryRecord, eventId: string) {
  const marker = webhookDeliveryByEventKey(delivery.webhookId, eventId);
  const expireIn = DELIVERY_RETENTION_MS;
  op.check({ key: marker, versionstamp: null })
    .set(marker, delivery.id, { expireIn })
    .set(webhookDeliveryKey(delivery.webhookId, delivery.id), delivery, { expireIn });
  stageJob(op, messageOf(delivery), { now: new Date(delivery.nextAttemptAt ?? Date.now()) });
  return op;
}

/** Test pings counted in a window that started at `windowStart` (epoch ms). */
interface PingCount {
  count: number;
  windowStart: number;
}

/**
 * A test ping that was refused: which limit, and in how long (ms) it lets one through; `busy`
 * when so many pings came at once that its counts kept changing.
 */
export interface PingRefusal {
  scope: "webhook" | "project" | "busy";
  limit: number;
  retryAfterMs: number;
}

/**
 * Stores a test ping's delivery with the job of its attempt, counted against its endpoint's
 * and its project's limits per window in the same commit; when either is reached, nothing is
 * written and the refusal says which and for how long.
 */
export async function createTestDelivery(
  kv: Deno.Kv,
  delivery: DeliveryRecord,
  options: {
    eventId: string;
    now: number;
    limits: { perWebhook: number; perProject: number; windowMs: number };
  },
): Promise<PingRefusal | null> {
  const { now, limits } = options;
  const keys = [
    webhookPingCountKey("webhook", delivery.webhookId),
    webhookPingCountKey("project", delivery.projectId),
  ];
  for (let attempt = 0; attempt < MAX_PING_TRIES; attempt++) {
    const entries = await kv.getMany<PingCount[]>(keys);
    const op = kv.atomic();
    const scopes = [["webhook", limits.perWebhook], ["project", limits.perProject]] as const;
    for (const [i, [scope, limit]] of scopes.entries()) {
      const counted = entries[i].value;
      const current = counted && counted.windowStart + limits.windowMs > now
        ? counted
        : { count: 0, windowStart: now };
      if (current.count >= limit) {
        return { scope, limit, retryAfterMs: current.windowStart + limits.windowMs - now };
      }
      const next: PingCount = { count: current.count + 1, windowStart: current.windowStart };
      op.check(entries[i]).set(keys[i], next, { expireIn: limits.windowMs });
    }
    if ((await stageNewDelivery(op, delivery, options.eventId).commit()).ok) return null;
  }
  return { scope: "busy", limit: limits.perProject, retryAfterMs: 1_000 };
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
