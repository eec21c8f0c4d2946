/**
 * What the buyer routes of a trust center share (src/http/routes/buyers.ts and the route
 * modules mounted beside it: buyer_members.ts, buyer_tokens.ts, buyer_documents.ts): their
 * tag and security, the trust center a path names, refusing a call without a bearer token
 * before its body is read, the buyer calling, and what the caller may read now. Route modules
 * import no other route module, so this is not one.
 */
import type { Context, MiddlewareHandler } from "hono";
import { notFound, unauthorized } from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { authenticateBuyer, type BuyerCaller, liveGrants } from "../serve/buyers.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import type { AppEnv } from "./env.ts";

/** The OpenAPI tag of every buyer route. */
export const tags = ["Buyers"];
/** The security of a buyer route: a buyer token (`tpb_…`). */
export const BUYER = [{ buyerBearer: [] }];
const BEARER = /^Bearer\s+tpb_[A-Za-z0-9_-]{43}$/;

/** The trust center at `slug`; 404 when there is none. */
export async function orgOf(c: Context<AppEnv>, slug: string): Promise<Organization> {
  const org = await getOrganizationBySlug(c.var.services.kv, slug);
  if (!org) throw notFound("No trust center with this address");
  return org;
}

/**
 * Refuses a call without a bearer token before its body is read (401, not 400); the token
 * itself is checked by the handler, after the body's validation, as human routes do.
 */
export const requireBuyerBearer: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!/^Bearer\s+\S+$/.test(c.req.header("authorization") ?? "")) {
    throw unauthorized("A buyer token (tpb_...) of this trust center is required");
  }
  await next();
};

/** The trust center and the buyer calling it (401 without a valid buyer token). */
export async function caller(c: Context<AppEnv>, slug: string) {
  if (!BEARER.test(c.req.header("authorization") ?? "")) {
    throw unauthorized("A buyer token (tpb_...) of this trust center is required");
  }
  const org = await orgOf(c, slug);
  const { kv, clock } = c.var.services;
  const now = clock.now();
  const who = await authenticateBuyer(kv, {
    org,
    authorization: c.req.header("authorization"),
    now,
  });
  c.header("Cache-Control", "private, no-store");
  return { org, who, now };
}

/** The caller's buyer organization, person, token and what it may read now. */
export async function context(
  c: Context<AppEnv>,
  org: Organization,
  who: BuyerCaller,
  now: Date,
) {
  const grants = await liveGrants(c.var.services.kv, org, who, now);
  return {
    buyerOrganization: who.buyer,
    member: who.member,
    token: who.token,
    grants: grants.map((g) => g.grant),
  };
}
