/**
 * Visitors known only by an email address erase themselves by the link they were sent:
 *
 * - A subscriber, by the unsubscribe link of any of their subscriptions (the token proves the
 *   address): every subscription of that address, in every organization, goes with the emails
 *   sent for them and the address's subscribe counter.
 * - An access-request visitor, by their access link: their requests, links and download log
 *   entries in that organization go, with the notices to its owners about them, the copies of
 *   documents stamped with their address, and the address's request counter.
 *
 * The collections with no index by address are scanned (subscriptions by scope, emails, stamps):
 * erasure is rare, and each collection is bounded or expires.
 */
import { sha256Hex } from "../lib/hash.ts";

const BATCH = 50;

async function deleteKeys(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<void> {
  for (let i = 0; i < keys.length; i += BATCH) {
    const op = kv.atomic();
    for (const key of keys.slice(i, i + BATCH)) op.delete(key);
    await op.commit();
  }
}

/** Erases every subscription of `email` (see the module comment); returns how many. */
export async function eraseSubscriber(kv: Deno.Kv, email: string): Promise<number> {
  const address = email.toLowerCase();
  const keys: Deno.KvKey[] = [["subscribe_counters", "email", address]];
  const ids = new Set<string>();
  for await (const entry of kv.list<string>({ prefix: ["subscriptions_by_scope"] })) {
    if (String(entry.key[3]).toLowerCase() !== address) continue;
    keys.push(entry.key, ["subscriptions", entry.value]);
    ids.add(entry.value);
    const record = (await kv.get<{ createdAt?: string }>(["subscriptions", entry.value])).value;
    if (record?.createdAt) {
      keys.push(["subscriptions_by_created", entry.key[1], record.createdAt, entry.value]);
    }
  }
  for await (const entry of kv.list<{ subscriptionId?: string }>({ prefix: ["mail_deliveries"] })) {
    if (ids.has(entry.value.subscriptionId ?? "")) keys.push(entry.key);
  }
  await deleteKeys(kv, keys);
  return ids.size;
}

/** Erases an access-request visitor's data in one organization (see the module comment). */
export async function eraseAccessVisitor(
  kv: Deno.Kv,
  target: { organizationId: string; email: string },
): Promise<void> {
  const { organizationId } = target;
  const address = target.email.toLowerCase();
  const mine = (value: { email?: string }) => (value.email ?? "").toLowerCase() === address;
  const keys: Deno.KvKey[] = [["access_request_attempts", "email", address]];
  const requestIds = new Set<string>();
  for await (
    const entry of kv.list<{ id: string; email?: string }>({
      prefix: ["access_requests", organizationId],
    })
  ) {
    if (!mine(entry.value)) continue;
    keys.push(entry.key);
    requestIds.add(entry.value.id);
  }
  const linkIds = new Set<string>();
  for await (
    const entry of kv.list<{ id: string; email?: string }>({
      prefix: ["access_links", organizationId],
    })
  ) {
    if (!mine(entry.value)) continue;
    keys.push(entry.key);
    linkIds.add(entry.value.id);
  }
  for await (
    const entry of kv.list<{ organizationId: string; linkId: string }>({
      prefix: ["access_links_by_token"],
    })
  ) {
    if (entry.value.organizationId === organizationId && linkIds.has(entry.value.linkId)) {
      keys.push(entry.key);
    }
  }
  for await (
    const entry of kv.list<{ email?: string }>({ prefix: ["document_downloads", organizationId] })
  ) {
    if (mine(entry.value)) keys.push(entry.key);
  }
  for await (const entry of kv.list<{ requestId?: string }>({ prefix: ["owner_notices"] })) {
    if (requestIds.has(entry.value.requestId ?? "")) keys.push(entry.key);
  }
  const recipient = await sha256Hex(address);
  for await (const entry of kv.list({ prefix: ["document_stamps"] })) {
    if (entry.key[entry.key.length - 1] === recipient) keys.push(entry.key);
  }
  await deleteKeys(kv, keys);
}
