/**
 * Email subscriptions and their emails. A subscription is one record and one index entry
 * by (organization, scope, address); pending ones expire. Every email is a delivery record
 * written in the same atomic operation as the "mail" job that sends it, with a check that it
 * did not exist: handing the same event out twice never emails anyone twice.
 */
import { rateLimited } from "../domain/errors.ts";
import {
  CONFIRMATIONS_PER_ADDRESS_PER_DAY,
  type MailDelivery,
  PENDING_TTL_MS,
  SUBSCRIBE_REQUESTS_PER_IP_PER_HOUR,
  type Subscription,
} from "../domain/subscriptions.ts";
import { randomToken } from "../lib/encoding.ts";
import { stageJob } from "./jobs.ts";
import { type Page, readOrderedPage, stageOrder, unstageOrder } from "./list_pages.ts";
import {
  mailDeliveriesPrefix,
  mailDeliveryKey,
  subscribeCounterKey,
  subscriptionByScopeKey,
  subscriptionKey,
  subscriptionLinkSecretKey,
  subscriptionsByScopePrefix,
} from "./keys.ts";

const MAX_ATTEMPTS = 10;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** Delivery records are kept this long (what the operator can look back on). */
const DELIVERY_TTL_MS = 30 * DAY_MS;

/** The job that sends one delivery; `organizationId` makes it that tenant's work. */
export interface MailMessage {
  kind: "mail";
  deliveryId: string;
  organizationId?: string;
  [field: string]: unknown;
}

/** The job of `delivery`, for the organization named when known. */
function mailMessage(delivery: MailDelivery, organizationId?: string): MailMessage {
  const tenant = organizationId ?? delivery.event?.organizationId;
  return { kind: "mail", deliveryId: delivery.id, ...(tenant ? { organizationId: tenant } : {}) };
}

interface Counter {
  count: number;
  windowStart: number;
}

/** The scope part of the index key: the project's id, or "organization". */
export const scopeOf = (projectId: string | null) => projectId ?? "organization";

/** The counter after one more, or the milliseconds until the window ends when it is full. */
function nextCount(
  counter: Counter | null,
  options: { limit: number; windowMs: number; now: number },
) {
  const fresh = !counter || options.now - counter.windowStart >= options.windowMs;
  const current = fresh ? { count: 0, windowStart: options.now } : counter;
  if (current.count >= options.limit) {
    return { full: true, retryAfterMs: current.windowStart + options.windowMs - options.now };
  }
  return { full: false, next: { count: current.count + 1, windowStart: current.windowStart } };
}

/** The secret links are signed with, created on first use. */
export async function subscriptionLinkSecret(kv: Deno.Kv): Promise<string> {
  const key = subscriptionLinkSecretKey();
  const existing = await kv.get<string>(key);
  if (existing.value) return existing.value;
  await kv.atomic().check({ key, versionstamp: null }).set(key, randomToken(32)).commit();
  return (await kv.get<string>(key)).value!;
}

/** The secret links are signed with, or null before the first link was made (reads only). */
export async function existingLinkSecret(kv: Deno.Kv): Promise<string | null> {
  return (await kv.get<string>(subscriptionLinkSecretKey())).value;
}

/** Counts one subscribe request from `ip`, or throws rate_limited past the hourly limit. */
export async function countSubscribeRequest(kv: Deno.Kv, ip: string, now: Date): Promise<void> {
  const key = subscribeCounterKey("ip", ip);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<Counter>(key);
    const verdict = nextCount(entry.value, {
      limit: SUBSCRIBE_REQUESTS_PER_IP_PER_HOUR,
      windowMs: HOUR_MS,
      now: now.getTime(),
    });
    if (verdict.full) {
      throw rateLimited(
        "Too many subscribe requests; try again later",
        verdict.retryAfterMs! / 1000,
      );
    }
    const op = kv.atomic().check(entry).set(key, verdict.next, { expireIn: HOUR_MS });
    if ((await op.commit()).ok) return;
  }
  throw rateLimited("Too many subscribe requests at once; try again later", 1);
}

/**
 * Confirmed and pending subscribers per scope (the organization, projectId null, always
 * first; then each project with subscribers). It reads every live subscription: the counts
 * are of all of them.
 */
export async function countSubscriptions(
  kv: Deno.Kv,
  organizationId: string,
  now: Date,
): Promise<{ projectId: string | null; confirmed: number; pending: number }[]> {
  const counts = new Map<string | null, { confirmed: number; pending: number }>();
  counts.set(null, { confirmed: 0, pending: 0 });
  for (const s of await listSubscriptions(kv, organizationId, { now })) {
    const count = counts.get(s.projectId) ?? { confirmed: 0, pending: 0 };
    count[s.status]++;
    counts.set(s.projectId, count);
  }
  return [...counts].map(([projectId, count]) => ({ projectId, ...count }));
}

/** A subscription's place in its organization's list of subscribers: created, then id. */
export const orderParts = (s: Subscription) => [s.createdAt, s.id];

/** One page of an organization's live subscribers (every scope), newest first, after `cursor`. */
export function listSubscribersPage(
  kv: Deno.Kv,
  organizationId: string,
  options: { now: Date; cursor: string[] | null; limit: number },
): Promise<Page<Subscription>> {
  return readOrderedPage<Subscription>(kv, {
    list: "subscribers",
    parentId: organizationId,
    reverse: true,
    recordKeys: (ids) => ids.map((id) => subscriptionKey(id)),
    shown: (s) => isLive(s, options.now),
    partsOf: orderParts,
    legacy: () => listSubscriptions(kv, organizationId, { now: options.now }),
  }, options);
}

function isLive(s: Subscription, now: Date): boolean {
  return s.status === "confirmed" || (s.expiresAt !== null && s.expiresAt > now.toISOString());
}

function newDelivery(
  fields: Pick<MailDelivery, "id" | "purpose" | "subscriptionId" | "event">,
  now: Date,
): MailDelivery {
  return {
    ...fields,
    status: "queued",
    attempts: 0,
    createdAt: now.toISOString(),
    sentAt: null,
    reason: null,
  };
}

/**
 * Records a request to subscribe `email` to a scope. A new or pending subscription gets a
 * (new) confirmation email unless the address had its daily share; a confirmed one gets
 * nothing. The caller answers the same in every case.
 */
export async function requestSubscription(
  kv: Deno.Kv,
  target: { organizationId: string; projectId: string | null; email: string },
  now: Date,
): Promise<void> {
  const indexKey = subscriptionByScopeKey(
    target.organizationId,
    scopeOf(target.projectId),
    target.email,
  );
  const counterKey = subscribeCounterKey("email", target.email);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [index, counter] = await kv.getMany<[string, Counter]>([indexKey, counterKey]);
    const current = index.value ? await kv.get<Subscription>(subscriptionKey(index.value)) : null;
    if (current?.value?.status === "confirmed") return;
    const verdict = nextCount(counter.value, {
      limit: CONFIRMATIONS_PER_ADDRESS_PER_DAY,
      windowMs: DAY_MS,
      now: now.getTime(),
    });
    if (verdict.full) return;
    const expiresAt = new Date(now.getTime() + PENDING_TTL_MS).toISOString();
    const subscription: Subscription = current?.value && isLive(current.value, now)
      ? { ...current.value, expiresAt }
      : {
        id: crypto.randomUUID(),
        ...target,
        status: "pending",
        nonce: randomToken(16),
        createdAt: now.toISOString(),
        expiresAt,
        confirmedAt: null,
      };
    const delivery = newDelivery({
      id: crypto.randomUUID(),
      purpose: "confirmation",
      subscriptionId: subscription.id,
      event: null,
    }, now);
    const op = kv.atomic().check(index, counter)
      .set(indexKey, subscription.id, { expireIn: PENDING_TTL_MS })
      .set(subscriptionKey(subscription.id), subscription, { expireIn: PENDING_TTL_MS })
      .set(counterKey, verdict.next, { expireIn: DAY_MS });
    stageOrder(op, "subscribers", target.organizationId, orderParts(subscription), {
      expireIn: PENDING_TTL_MS,
    });
    if (current) op.check(current);
    if (index.value && index.value !== subscription.id) op.delete(subscriptionKey(index.value));
    if (current?.value && current.value.id !== subscription.id) {
      unstageOrder(op, "subscribers", target.organizationId, orderParts(current.value));
    }
    stageDelivery(op, delivery, { now, organizationId: target.organizationId });
    if ((await op.commit()).ok) return;
  }
  throw rateLimited("Too many subscribe requests at once; try again later", 1);
}

export async function getSubscription(kv: Deno.Kv, id: string): Promise<Subscription | null> {
  return (await kv.get<Subscription>(subscriptionKey(id))).value;
}

/** Confirms a pending subscription (a confirmed one stays as it is); null when it is gone. */
export async function confirmSubscription(
  kv: Deno.Kv,
  id: string,
  now: Date,
): Promise<Subscription | null> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<Subscription>(subscriptionKey(id));
    const current = entry.value;
    if (!current || !isLive(current, now)) return null;
    if (current.status === "confirmed") return current;
    const confirmed: Subscription = {
      ...current,
      status: "confirmed",
      expiresAt: null,
      confirmedAt: now.toISOString(),
    };
    const indexKey = subscriptionByScopeKey(
      current.organizationId,
      scopeOf(current.projectId),
      current.email,
    );
    const op = kv.atomic().check(entry).set(entry.key, confirmed).set(indexKey, current.id);
    stageOrder(op, "subscribers", current.organizationId, orderParts(current));
    if ((await op.commit()).ok) return confirmed;
  }
  return null;
}

/** Deletes a subscription and its index entry; returns what was deleted, or null. */
export async function deleteSubscription(kv: Deno.Kv, id: string): Promise<Subscription | null> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<Subscription>(subscriptionKey(id));
    const current = entry.value;
    if (!current) return null;
    const indexKey = subscriptionByScopeKey(
      current.organizationId,
      scopeOf(current.projectId),
      current.email,
    );
    const index = await kv.get<string>(indexKey);
    const op = kv.atomic().check(entry, index).delete(entry.key);
    unstageOrder(op, "subscribers", current.organizationId, orderParts(current));
    if (index.value === id) op.delete(indexKey);
    if ((await op.commit()).ok) return current;
  }
  return null;
}

/**
 * The live subscriptions of an organization: of one scope (a project id, or
 * "organization"), or of every scope when `scope` is left out.
 */
export async function listSubscriptions(
  kv: Deno.Kv,
  organizationId: string,
  options: { now: Date; scope?: string },
): Promise<Subscription[]> {
  const ids: string[] = [];
  const prefix = subscriptionsByScopePrefix(organizationId, options.scope);
  for await (const entry of kv.list<string>({ prefix })) ids.push(entry.value);
  const found: Subscription[] = [];
  for (let i = 0; i < ids.length; i += 10) {
    const entries = await kv.getMany<Subscription[]>(ids.slice(i, i + 10).map(subscriptionKey));
    for (const entry of entries) {
      if (entry.value && isLive(entry.value, options.now)) found.push(entry.value);
    }
  }
  return found;
}

/** Adds a delivery to `op`, with the job that sends it when it is to be sent. */
function stageDelivery(
  op: Deno.AtomicOperation,
  delivery: MailDelivery,
  context: { now: Date; organizationId?: string },
): void {
  const key = mailDeliveryKey(delivery.id);
  op.check({ key, versionstamp: null }).set(key, delivery, { expireIn: DELIVERY_TTL_MS });
  if (delivery.status === "queued") {
    stageJob(op, mailMessage(delivery, context.organizationId), { now: context.now });
  }
}

/**
 * Creates the notification of `event` for a subscription (its id is derived from both, so
 * a second call finds it and does nothing). `skipped` records it as not sent, with why.
 * Returns whether it was created now.
 */
export async function createNotification(
  kv: Deno.Kv,
  fields: { event: NonNullable<MailDelivery["event"]>; subscriptionId: string; skipped?: string },
  now: Date,
): Promise<boolean> {
  const delivery = newDelivery({
    id: `${fields.event.id}.${fields.subscriptionId}`,
    purpose: "notification",
    subscriptionId: fields.subscriptionId,
    event: fields.event,
  }, now);
  if (fields.skipped) Object.assign(delivery, { status: "skipped", reason: fields.skipped });
  const op = kv.atomic();
  stageDelivery(op, delivery, { now });
  return (await op.commit()).ok;
}

export function getDelivery(kv: Deno.Kv, id: string): Promise<Deno.KvEntryMaybe<MailDelivery>> {
  return kv.get<MailDelivery>(mailDeliveryKey(id));
}

/**
 * Records the outcome of an attempt (or a claim to make one); with `retryInMs`, schedules the
 * next attempt's job in the same operation. Returns the entry as stored, or null when the
 * delivery changed meanwhile (another attempt got there first).
 */
export async function recordDelivery(
  kv: Deno.Kv,
  entry: Deno.KvEntry<MailDelivery>,
  options: { next: MailDelivery; now: Date; retryInMs?: number },
): Promise<Deno.KvEntry<MailDelivery> | null> {
  const op = kv.atomic().check(entry).set(entry.key, options.next, { expireIn: DELIVERY_TTL_MS });
  if (options.retryInMs !== undefined) {
    stageJob(op, mailMessage(options.next), {
      now: options.now,
      dueAt: options.now.getTime() + options.retryInMs,
    });
  }
  const result = await op.commit();
  return result.ok
    ? { key: entry.key, value: options.next, versionstamp: result.versionstamp }
    : null;
}

/** Every email still to be sent (a one-time upgrade reads them). */
export async function* scanQueuedDeliveries(kv: Deno.Kv): AsyncGenerator<MailDelivery> {
  const iter = kv.list<MailDelivery>({ prefix: mailDeliveriesPrefix() }, { batchSize: 500 });
  for await (const entry of iter) if (entry.value.status === "queued") yield entry.value;
}
