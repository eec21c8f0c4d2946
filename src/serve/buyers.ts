/**
 * The buyer's side: signing in with an emailed link (which verifies the address and so its
 * domain), the buyer organization the first verified person of a domain founds, its people
 * and service tokens, what it may read (its grants, within a token's scope), reading it
 * (every read recorded in the inventory and its monthly summary), and the rules that decide
 * a request the moment it is made.
 *
 * This module adds a colleague and creates a service token (an admin's acts on the buyer
 * organization) and re-exports the rest, so its importers are unchanged: sign-in, sessions
 * and callers from buyer_sessions.ts, grants and rules from buyer_grants.ts, recording reads
 * from buyer_inventory.ts.
 */
import {
  type BuyerMember,
  domainOf,
  MAX_BUYER_MEMBERS,
  MAX_SERVICE_TOKENS,
} from "../domain/buyers.ts";
import { conflict, validationFailed } from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { listBuyerMembers, listServiceTokens, setBuyerMember } from "../store/buyers.ts";
import { liveGrants } from "./buyer_grants.ts";
import { type BuyerCaller, issueToken, requireBuyerAdmin } from "./buyer_sessions.ts";

export {
  authenticateBuyer,
  type BuyerCaller,
  buyerPageUrl,
  requestBuyerSignIn,
  requireBuyerAdmin,
  startBuyerSession,
  tokenHash,
} from "./buyer_sessions.ts";
export { grantApprovedToBuyer, liveGrants, requestAsBuyer, ruleOf } from "./buyer_grants.ts";
export { DEFAULT_ACCESS_SETTINGS, keepMs, personOf, recordRead } from "./buyer_inventory.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Adds a colleague (at the organization's own domain). */
export async function addBuyerMember(
  kv: Deno.Kv,
  options: {
    org: Organization;
    caller: BuyerCaller;
    email: string;
    role: "admin" | "member";
    now: Date;
  },
): Promise<BuyerMember> {
  const admin = requireBuyerAdmin(options.caller);
  const { domain } = options.caller.buyer;
  if (domainOf(options.email) !== domain) {
    throw validationFailed(`Only addresses at ${domain} can join ${domain}'s buyer organization`);
  }
  const members = await listBuyerMembers(kv, options.org.id, domain);
  if (
    members.length >= MAX_BUYER_MEMBERS && !members.some((m) => m.email === options.email)
  ) {
    throw conflict(`A buyer organization has at most ${MAX_BUYER_MEMBERS} people`);
  }
  const existing = members.find((m) => m.email === options.email);
  const member: BuyerMember = {
    email: options.email,
    role: options.role,
    addedAt: existing?.addedAt ?? options.now.toISOString(),
    addedBy: existing?.addedBy ?? admin.email,
  };
  await setBuyerMember(kv, options.org.id, domain, member);
  return member;
}

/** Creates a read-only service token, scoped to granted documents; the secret is shown once. */
export async function createServiceToken(
  kv: Deno.Kv,
  options: {
    org: Organization;
    caller: BuyerCaller;
    name: string;
    documentIds?: string[];
    expiresInDays: number;
    now: Date;
  },
) {
  const admin = requireBuyerAdmin(options.caller);
  const { org, caller, now } = options;
  const live = (await listServiceTokens(kv, org.id, caller.buyer.domain))
    .filter((t) => t.revokedAt === null && Date.parse(t.expiresAt) > now.getTime());
  if (live.length >= MAX_SERVICE_TOKENS) {
    throw conflict(`At most ${MAX_SERVICE_TOKENS} live service tokens: revoke one first`);
  }
  let documentIds: string[] | null = null;
  if (options.documentIds) {
    const granted = new Set(
      (await liveGrants(kv, org, { buyer: caller.buyer, token: null }, now))
        .map((g) => g.document.id),
    );
    documentIds = [...new Set(options.documentIds)];
    if (documentIds.length === 0 || !documentIds.every((id) => granted.has(id))) {
      throw validationFailed(
        "A token may be limited only to documents your organization is granted",
      );
    }
  }
  return await issueToken(kv, org, {
    kind: "service",
    domain: caller.buyer.domain,
    name: options.name,
    email: admin.email,
    documentIds,
    expiresAt: new Date(now.getTime() + options.expiresInDays * DAY_MS).toISOString(),
  }, now);
}
