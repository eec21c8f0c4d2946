/**
 * The links in subscription emails: confirm and unsubscribe. A link's token is the
 * subscription's id and an HMAC of it (with its nonce and the link's purpose) under a secret
 * kept in the store, so no token is stored at all, in clear or hashed, and a new subscription
 * (new id and nonce) never honours an old link.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Config } from "../config.ts";
import type { Subscription } from "../domain/subscriptions.ts";
import { publicUrls, trustCenterUrl } from "../publish/urls.ts";
import { getOrganization } from "../store/organizations.ts";
import { getProject } from "../store/projects.ts";
import { getSubscription, subscriptionLinkSecret } from "../store/subscriptions.ts";

export type LinkPurpose = "confirm" | "unsubscribe";

const TOKEN = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string, purpose: LinkPurpose, subscription: Subscription): string {
  return createHmac("sha256", secret)
    .update(`${purpose}:${subscription.id}:${subscription.nonce}`)
    .digest("base64url");
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

/** The subscription a token was made for, or null (malformed, forged, or gone). */
export async function subscriptionOfToken(
  kv: Deno.Kv,
  purpose: LinkPurpose,
  token: string,
): Promise<Subscription | null> {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const subscription = await getSubscription(kv, match[1]);
  if (!subscription) return null;
  const expected = mac(await subscriptionLinkSecret(kv), purpose, subscription);
  const [a, b] = [new TextEncoder().encode(expected), new TextEncoder().encode(match[2])];
  return a.length === b.length && timingSafeEqual(a, b) ? subscription : null;
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
