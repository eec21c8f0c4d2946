/**
 * The enumeration of one person's keys (`userKeys`).
 *
 * @module
 */
import { distinct, type Found, listKeys, scan } from "./walk.ts";

/**
 * Every key that holds data of one person: their user record and indexes, memberships (both
 * directions), bootstrap marker, built-in account, sessions and grants, sign-in links and
 * throttling counters under their email, and webhook bookkeeping under their id. The webhooks
 * they registered on a project belong to the project (and go with it), not to them.
 */
export async function* userKeys(kv: Deno.Kv, userId: string): AsyncGenerator<Deno.KvKey> {
  yield* distinct(userFound(kv, userId));
}

/** The keys of `userKeys`, repeats included. */
async function* userFound(kv: Deno.Kv, userId: string): Found {
  const user = (await kv.get<{ idpSub: string; email: string }>(["users", userId])).value;
  yield ["users", userId];
  yield* listKeys(kv, ["memberships_by_user", userId]);
  for await (const entry of kv.list({ prefix: ["memberships_by_user", userId] })) {
    const organizationId = entry.key[2] as string;
    yield ["memberships", organizationId, userId];
    const membership = await kv.get<{ createdAt?: string }>(
      ["memberships", organizationId, userId],
    );
    if (membership.value?.createdAt) {
      yield ["memberships_by_created", organizationId, membership.value.createdAt, userId];
    }
    // The person's access tokens for that organization.
    const tokens = kv.list<{ userId: string; tokenHash: string }>({
      prefix: ["access_tokens", organizationId],
    });
    for await (const token of tokens) {
      if (token.value.userId !== userId) continue;
      yield token.key;
      yield ["access_tokens_by_hash", token.value.tokenHash];
    }
  }
  yield ["bootstraps_by_user", userId];
  yield ["webhook_writes", "user", userId];
  yield ["webhook_in_flight_writes", userId];
  yield* listKeys(kv, ["webhook_in_flight", userId]);
  if (!user) return;
  yield ["users_by_idp_sub", user.idpSub];
  const account = (await kv.get<{ email: string }>(["accounts", user.idpSub])).value;
  const emails = new Set([user.email.toLowerCase()]);
  if (account) {
    yield ["accounts", user.idpSub];
    yield ["accounts_by_email", account.email.toLowerCase()];
    emails.add(account.email.toLowerCase());
  }
  for (const email of emails) {
    yield ["login_failures", "email", email];
    yield ["sign_in_link_requests", "email", email];
  }
  yield* scan<{ email?: string }>(
    kv,
    "invitations",
    (v) => emails.has((v.email ?? "").toLowerCase()),
  );
  const mine = (v: { accountId?: string }) => v.accountId === user.idpSub;
  for (
    const collection of [
      "authorization_codes",
      "refresh_tokens",
      "refresh_families",
      "sign_in_tickets",
      "sign_in_links",
    ]
  ) {
    yield* scan(kv, collection, mine);
  }
}
