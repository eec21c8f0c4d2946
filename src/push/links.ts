/**
 * The links in subscription emails: confirm and unsubscribe. A link's token is the
 * subscription's id and an HMAC under a secret kept in the store, so no token is stored at
 * all, in clear or hashed.
 *
 * A confirm token signs the purpose, the id and the subscription's nonce: it is checked
 * against the record, and a new pending subscription (new id and nonce) never honours an
 * old link. An unsubscribe token signs the purpose and the id only, so it can still be
 * checked once the subscription is deleted: a repeated one-click POST or an old link answers
 * "unsubscribed" again instead of a 404. It can never end a later subscription of the same
 * address, which gets a new random id.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Config } from "../config.ts";
import type { Subscription } from "../domain/subscriptions.ts";
import { publicUrls, trustCenterUrl } from "../publish/urls.ts";
import { getOrganization } from "../store/organizations.ts";
import { getProject } from "../store/projects.ts";
import {
  existingLinkSecret,
  getSubscription,
  subscriptionLinkSecret,
} from "../store/subscriptions.ts";

export type LinkPurpose = "confirm" | "unsubscribe";

const TOKEN = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

/** What a token signs: see the module's comment. */
function signed(purpose: LinkPurpose, subscription: Pick<Subscription, "id" | "nonce">): string {
  return purpose === "confirm"
    ? `confirm:${subscription.id}:${subscription.nonce}`
    : `unsubscribe:${subscription.id}`;
}

function mac(
  secret: string,
  purpose: LinkPurpose,
  subscription: Pick<Subscription, "id" | "nonce">,
): string {
  return createHmac("sha256", secret).update(signed(purpose, subscription)).digest("base64url");
}

function sameMac(expected: string, given: string): boolean {
  const [a, b] = [new TextEncoder().encode(expected), new TextEncoder().encode(given)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of a link for `subscription`. */
export async function linkToken(
  kv: Deno.Kv,
  purpose: LinkPurpose,
  subscription: Subscription,
): Promise<string> {
  return `${subscription.id}.${mac(await subscriptionLinkSecret(kv), purpose, subscription)}`;
}

/** The link's URL: /subscriptions/confirm/{token} or /unsubscribe/{token}. */
export function linkUrl(baseUrl: string, purpose: LinkPurpose, token: string): string {
  return purpose === "confirm"
    ? `${baseUrl}/subscriptions/confirm/${token}`
    : `${baseUrl}/unsubscribe/${token}`;
}

/** The subscription a confirm token was made for, or null (malformed, forged, or gone). */
export async function subscriptionOfConfirmToken(
  kv: Deno.Kv,
  token: string,
): Promise<Subscription | null> {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const subscription = await getSubscription(kv, match[1]);
  if (!subscription) return null;
  const expected = mac(await subscriptionLinkSecret(kv), "confirm", subscription);
  return sameMac(expected, match[2]) ? subscription : null;
}

/**
 * The subscription id an unsubscribe token was made for, with the subscription when it still
 * exists (null once unsubscribed); null for a malformed or forged token.
 */
export async function unsubscribeTarget(
  kv: Deno.Kv,
  token: string,
): Promise<{ id: string; subscription: Subscription | null } | null> {
  const match = TOKEN.exec(token);
  if (!match) return null;
  // Reads the secret without creating it: before any link was made, every token is forged.
  const secret = await existingLinkSecret(kv);
  if (!secret || !sameMac(mac(secret, "unsubscribe", { id: match[1], nonce: "" }), match[2])) {
    return null;
  }
  return { id: match[1], subscription: await getSubscription(kv, match[1]) };
}

/** The name and public page of what a subscription is about; null once it is not public. */
export async function subscriptionScope(
  kv: Deno.Kv,
  config: Config,
  s: Subscription,
): Promise<{ name: string; url: string } | null> {
  if (s.projectId) {
    const project = await getProject(kv, s.projectId);
    return project?.visibility === "public"
      ? { name: project.name, url: publicUrls(config, project.slug).page }
      : null;
  }
  const org = await getOrganization(kv, s.organizationId);
  return org ? { name: org.name, url: trustCenterUrl(config, org.slug) } : null;
}
