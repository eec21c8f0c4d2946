/**
 * Webhook endpoints of projects. A creation or removal commits with a rewrite of the
 * project's and the user's write markers, checked against the versions read when counting,
 * so two concurrent creations cannot both slip under a cap.
 */
import { conflict, notFound } from "../domain/errors.ts";
import {
  MAX_WEBHOOKS_PER_PROJECT,
  MAX_WEBHOOKS_PER_USER,
  type WebhookRecord,
} from "../domain/webhooks.ts";
import {
  webhookByUserKey,
  webhookKey,
  webhooksByUserPrefix,
  webhooksOfProjectPrefix,
  webhookWritesKey,
} from "./keys.ts";
import { compareCodePoints } from "../lib/order.ts";

const MAX_ATTEMPTS = 10;

/** Every endpoint of a project, oldest first. */
export async function listWebhooks(kv: Deno.Kv, projectId: string): Promise<WebhookRecord[]> {
  const list: WebhookRecord[] = [];
  const iter = kv.list<WebhookRecord>({ prefix: webhooksOfProjectPrefix(projectId) }, {
    limit: MAX_WEBHOOKS_PER_PROJECT * 2,
  });
  for await (const entry of iter) list.push(entry.value);
  return list.sort((a, b) =>
    compareCodePoints(a.createdAt, b.createdAt) || compareCodePoints(a.id, b.id)
  );
}

/** One endpoint of a project, or null. */
export async function getWebhook(
  kv: Deno.Kv,
  projectId: string,
  id: string,
): Promise<WebhookRecord | null> {
  return (await kv.get<WebhookRecord>(webhookKey(projectId, id))).value;
}

/** One endpoint with its versionstamp, to commit a change only if it has not moved. */
export function getWebhookEntry(
  kv: Deno.Kv,
  projectId: string,
  id: string,
): Promise<Deno.KvEntryMaybe<WebhookRecord>> {
  return kv.get<WebhookRecord>(webhookKey(projectId, id));
}

async function count(kv: Deno.Kv, prefix: Deno.KvKey, limit: number): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix }, { limit })) n++;
  return n;
}

/** Stores a new endpoint, unless the project or its creator has reached their cap. */
export async function createWebhook(kv: Deno.Kv, webhook: WebhookRecord): Promise<void> {
  const key = webhookKey(webhook.projectId, webhook.id);
  const projectWrites = webhookWritesKey("project", webhook.projectId);
  const userWrites = webhookWritesKey("user", webhook.createdBy);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [projectMarker, userMarker] = await kv.getMany([projectWrites, userWrites]);
    const inProject = await count(
      kv,
      webhooksOfProjectPrefix(webhook.projectId),
      MAX_WEBHOOKS_PER_PROJECT,
    );
    if (inProject >= MAX_WEBHOOKS_PER_PROJECT) {
      throw conflict(`A project has at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks`);
    }
    const ofUser = await count(kv, webhooksByUserPrefix(webhook.createdBy), MAX_WEBHOOKS_PER_USER);
    if (ofUser >= MAX_WEBHOOKS_PER_USER) {
      throw conflict(`One user registers at most ${MAX_WEBHOOKS_PER_USER} webhooks`);
    }
    const result = await kv.atomic()
      .check({ key, versionstamp: null }, projectMarker, userMarker)
      .set(key, webhook)
      .set(webhookByUserKey(webhook.createdBy, webhook.id), webhook.projectId)
      .set(projectWrites, webhook.id)
      .set(userWrites, webhook.id)
      .commit();
    if (result.ok) return;
  }
  throw conflict("The webhooks kept changing while this one was being added; please retry");
}

/**
 * Applies `change` to an endpoint and stores the result; `change` returns the next record.
 * Throws not_found when the endpoint does not exist.
 */
export async function updateWebhook(
  kv: Deno.Kv,
  projectId: string,
  id: string,
  change: (current: WebhookRecord) => WebhookRecord,
): Promise<WebhookRecord> {
  const key = webhookKey(projectId, id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<WebhookRecord>(key);
    if (!entry.value) throw notFound("No webhook with that id in this project");
    const next = change(entry.value);
    if ((await kv.atomic().check(entry).set(key, next).commit()).ok) return next;
  }
  throw conflict("The webhook kept changing while it was being saved; please retry");
}

/**
 * Removes an endpoint; returns what was removed. Its deliveries are left to expire with the
 * log's retention, and a pending one stops at its next attempt (its endpoint is gone).
 */
export async function deleteWebhook(
  kv: Deno.Kv,
  projectId: string,
  id: string,
): Promise<WebhookRecord> {
  const key = webhookKey(projectId, id);
  const entry = await kv.get<WebhookRecord>(key);
  if (!entry.value) throw notFound("No webhook with that id in this project");
  const { createdBy } = entry.value;
  const result = await kv.atomic().check(entry)
    .delete(key)
    .delete(webhookByUserKey(createdBy, id))
    .set(webhookWritesKey("project", projectId), id)
    .set(webhookWritesKey("user", createdBy), id)
    .commit();
  if (!result.ok) throw conflict("The webhook changed while it was being removed; please retry");
  return entry.value;
}
