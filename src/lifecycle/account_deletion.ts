/**
 * Deleting one's own account, at once: refused (409) while the person is the last owner of an
 * organization that is not being deleted; else the email is taken out of the records they
 * wrote in their organizations (their opaque user id stays: "a deleted user"), the webhooks
 * they registered go with their deliveries, and every key src/store/tenant_keys.ts lists for
 * them (user record, memberships, built-in account, sessions, grants, sign-in links, login
 * counters) is removed. Their sessions end with it, so the token in use stops working.
 */
import { conflict } from "../domain/errors.ts";
import type { User } from "../domain/workspace.ts";
import { pendingDeletionOf } from "../store/deletions.ts";
import {
  getOrganization,
  listMembershipsByOrganization,
  listOrganizationSummariesByUser,
} from "../store/organizations.ts";
import { organizationKeys, userKeys } from "../store/tenant_keys.ts";

const BATCH = 50;

/** Refuses while `user` is the last owner of an organization that is not being deleted. */
async function assertNoSoleOwnership(kv: Deno.Kv, user: User): Promise<string[]> {
  const organizations: string[] = [];
  for (const summary of await listOrganizationSummariesByUser(kv, user.id)) {
    organizations.push(summary.id);
    if (summary.role !== "owner") continue;
    const members = await listMembershipsByOrganization(kv, summary.id);
    if (members.some((m) => m.role === "owner" && m.userId !== user.id)) continue;
    if (await pendingDeletionOf(kv, { organizationId: summary.id })) continue;
    const org = await getOrganization(kv, summary.id);
    const name = org?.slug ?? summary.id;
    throw conflict(
      members.length > 1
        ? `You are the only owner of "${name}": make another member an owner, or delete the organization, first`
        : `You are the only member of "${name}": delete the organization first`,
    );
  }
  return organizations;
}

/** `value` with every `{ userId, email }` of `userId` made `{ userId, email: null }`. */
function withoutEmail(value: unknown, userId: string): { value: unknown; changed: boolean } {
  if (Array.isArray(value)) {
    let changed = false;
    const next = value.map((item) => {
      const r = withoutEmail(item, userId);
      changed ||= r.changed;
      return r.value;
    });
    return { value: changed ? next : value, changed };
  }
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) {
    return { value, changed: false };
  }
  const record = value as Record<string, unknown>;
  let changed = false;
  const next: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(record)) {
    const r = withoutEmail(item, userId);
    changed ||= r.changed;
    next[field] = r.value;
  }
  if (record.userId === userId && typeof record.email === "string") {
    next.email = null;
    changed = true;
  }
  return { value: changed ? next : value, changed };
}

/** Takes the user's email out of the records of one organization (its own, not projects'). */
async function scrubAuthor(kv: Deno.Kv, organizationId: string, userId: string) {
  for await (const key of organizationKeys(kv, organizationId, { projects: false })) {
    const entry = await kv.get(key);
    if (entry.value === null) continue;
    const { value, changed } = withoutEmail(entry.value, userId);
    if (changed) await kv.atomic().check(entry).set(key, value).commit();
  }
}

/** Removes the webhooks `userId` registered (on any project) with their deliveries. */
async function removeWebhooks(kv: Deno.Kv, userId: string) {
  for await (const entry of kv.list<string>({ prefix: ["webhooks_by_user", userId] })) {
    const webhookId = entry.key[2] as string;
    const keys: Deno.KvKey[] = [
      ["webhooks", entry.value, webhookId],
      entry.key,
      ["webhook_circuits", webhookId],
      ["webhook_in_flight", userId, webhookId],
      ["webhook_ping_counts", "webhook", webhookId],
    ];
    for (
      const prefix of [["webhook_deliveries", webhookId], [
        "webhook_deliveries_by_event",
        webhookId,
      ]]
    ) {
      for await (const item of kv.list({ prefix })) keys.push(item.key);
    }
    await deleteKeys(kv, keys);
  }
}

async function deleteKeys(kv: Deno.Kv, keys: Deno.KvKey[]) {
  for (let i = 0; i < keys.length; i += BATCH) {
    const op = kv.atomic();
    for (const key of keys.slice(i, i + BATCH)) op.delete(key);
    await op.commit();
  }
}

/** Deletes `user`'s account (see the module comment); throws 409 for a last owner. */
export async function deleteAccount(deps: { kv: Deno.Kv }, user: User): Promise<void> {
  const { kv } = deps;
  const organizations = await assertNoSoleOwnership(kv, user);
  for (const organizationId of organizations) await scrubAuthor(kv, organizationId, user.id);
  await removeWebhooks(kv, user.id);
  const keys: Deno.KvKey[] = [];
  for await (const key of userKeys(kv, user.id)) keys.push(key);
  await deleteKeys(kv, keys);
}
