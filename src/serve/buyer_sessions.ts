/**
 * A buyer's sign-in and who a buyer is: the emailed link that verifies an address (and so its
 * domain), the session it starts (founding the domain's buyer organization for its first
 * verified person), the tokens stored as their hashes, and checking a bearer token and an
 * admin. Re-exported by src/serve/buyers.ts.
 */
import type { Config } from "../config.ts";
import {
  BUYER_SESSION_HOURS,
  BUYER_SIGN_IN_MINUTES,
  type BuyerMember,
  type BuyerOrganization,
  type BuyerToken,
  domainOf,
  SHARED_MAIL_DOMAINS,
} from "../domain/buyers.ts";
import {
  conflict,
  forbidden,
  rateLimited,
  unauthorized,
  unavailable,
  validationFailed,
} from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { randomToken } from "../lib/encoding.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { timeOrderedUuid } from "../lib/ids.ts";
import type { Mailer } from "../mail/mod.ts";
import { countAccessRequestAttempt } from "../store/access_requests.ts";
import {
  createBuyerOrganization,
  getBuyerMember,
  getBuyerOrganization,
  getBuyerToken,
  saveBuyerSignIn,
  saveBuyerToken,
  takeBuyerSignIn,
} from "../store/buyers.ts";
import { REQUEST_LIMITS } from "./access_requests.ts";

export const tokenHash = (token: string) => sha256HexSync(`buyer:${token}`);

/** The buyer's page of a trust center (the emailed link adds its token after `#`). */
export function buyerPageUrl(config: Pick<Config, "baseUrl">, slug: string): string {
  return `${config.baseUrl}/public/trust/${slug}/buyer`;
}

interface Deps {
  kv: Deno.Kv;
  config: Config;
  mailer: Mailer;
}

/**
 * Emails a one-time sign-in link to `email`, which verifies the address (and so its
 * domain). Shared mail domains are refused; asking is throttled per address and email.
 */
export async function requestBuyerSignIn(
  deps: Deps,
  options: { org: Organization; email: string; ip: string; now: Date },
): Promise<string> {
  const { org, email, now } = options;
  const domain = domainOf(email);
  if (SHARED_MAIL_DOMAINS.has(domain)) {
    throw validationFailed(
      `Addresses at ${domain} belong to no one organization: sign in with your work address`,
    );
  }
  if (!deps.mailer.configured) {
    throw conflict(
      `${org.name}'s trust center cannot send email yet, so it cannot verify addresses`,
    );
  }
  const wait = await countAccessRequestAttempt(deps.kv, { ip: options.ip, email }, {
    now,
    ...REQUEST_LIMITS,
  });
  if (wait > 0) throw rateLimited("Too many sign-in links asked for; try again later", wait / 1000);
  const token = randomToken(32);
  await saveBuyerSignIn(deps.kv, org.id, tokenHash(token), {
    email,
    createdAt: now.toISOString(),
  }, BUYER_SIGN_IN_MINUTES * 60_000);
  const url = `${buyerPageUrl(deps.config, org.slug)}#sign-in=${token}`;
  try {
    await deps.mailer.send({
      to: email,
      subject: `Sign in to ${org.name}'s trust center`,
      text: [
        `Open this link within ${BUYER_SIGN_IN_MINUTES} minutes to sign in to ${org.name}'s trust center as ${email}:`,
        url,
        "",
        `It proves you read mail at ${domain}; the first person of ${domain} to sign in becomes the admin of its buyer organization.`,
        "If you did not ask for it, ignore this email.",
      ].join("\n"),
    });
  } catch (error) {
    throw unavailable(
      `The email could not be sent (${(error as Error).name}); try again later`,
      60,
    );
  }
  return `A sign-in link was emailed to ${email}; it works once, for ${BUYER_SIGN_IN_MINUTES} minutes.`;
}

/** A new token of `kind`, stored as its hash; the secret is returned once. */
export async function issueToken(
  kv: Deno.Kv,
  org: Organization,
  value: Omit<BuyerToken, "id" | "createdAt" | "revokedAt">,
  now: Date,
): Promise<{ token: BuyerToken; secret: string }> {
  const secret = `tpb_${randomToken(32)}`;
  const token: BuyerToken = {
    id: timeOrderedUuid(now),
    createdAt: now.toISOString(),
    revokedAt: null,
    ...value,
  };
  await saveBuyerToken(kv, org.id, tokenHash(secret), token, now);
  return { token, secret };
}

/**
 * Uses an emailed sign-in link: the address is verified. Its domain's buyer organization
 * is founded with this person as admin when there is none; otherwise the person must be one
 * of its members (an admin adds them).
 */
export async function startBuyerSession(
  kv: Deno.Kv,
  options: { org: Organization; token: string; now: Date },
) {
  const { org, now } = options;
  const signIn = await takeBuyerSignIn(kv, org.id, tokenHash(options.token));
  if (!signIn) {
    throw unauthorized("This sign-in link was used already or has expired: ask for a new one");
  }
  const { email } = signIn;
  const domain = domainOf(email);
  let buyer = await getBuyerOrganization(kv, org.id, domain);
  let created = false;
  if (!buyer) {
    const value: BuyerOrganization = {
      domain,
      createdAt: now.toISOString(),
      createdBy: email,
      revokedAt: null,
    };
    const founder: BuyerMember = {
      email,
      role: "admin",
      addedAt: now.toISOString(),
      addedBy: email,
    };
    created = await createBuyerOrganization(kv, org.id, value, founder);
    buyer = created ? value : await getBuyerOrganization(kv, org.id, domain);
    if (!buyer) throw conflict("The organization changed meanwhile; retry");
  }
  if (buyer.revokedAt) {
    throw forbidden(`${org.name} revoked the access of ${domain}; contact ${org.name}`);
  }
  const member = await getBuyerMember(kv, org.id, domain, email);
  if (!member) {
    throw forbidden(
      `${domain} already has a buyer organization here and ${email} is not in it: ask one of its admins to add you`,
    );
  }
  const { token, secret } = await issueToken(kv, org, {
    kind: "session",
    domain,
    name: "Browser session",
    email,
    documentIds: null,
    expiresAt: new Date(now.getTime() + BUYER_SESSION_HOURS * 3_600_000).toISOString(),
  }, now);
  return { buyer, member, token, secret, created };
}

/** Who a buyer's bearer token is: its organization, person (sessions) and token. */
export interface BuyerCaller {
  buyer: BuyerOrganization;
  member: BuyerMember | null;
  token: BuyerToken;
}

/** Checks a bearer token of `org`'s buyers; 401 when it is unknown, revoked or expired. */
export async function authenticateBuyer(
  kv: Deno.Kv,
  options: { org: Organization; authorization: string | undefined; now: Date },
): Promise<BuyerCaller> {
  const match = options.authorization?.match(/^Bearer\s+(tpb_[A-Za-z0-9_-]{43})$/);
  const token = match ? await getBuyerToken(kv, options.org.id, tokenHash(match[1])) : null;
  if (!token) throw unauthorized("A buyer token of this trust center is required");
  if (token.revokedAt) throw unauthorized("This token was revoked");
  if (Date.parse(token.expiresAt) <= options.now.getTime()) {
    throw unauthorized("This token has expired");
  }
  const buyer = await getBuyerOrganization(kv, options.org.id, token.domain);
  if (!buyer || buyer.revokedAt) {
    throw unauthorized(`The vendor revoked the access of ${token.domain}`);
  }
  let member: BuyerMember | null = null;
  if (token.kind === "session") {
    member = await getBuyerMember(kv, options.org.id, token.domain, token.email);
    if (!member) throw unauthorized("You are no longer in this buyer organization");
  }
  return { buyer, member, token };
}

/** The caller as an admin of its buyer organization (a person, not a service token). */
export function requireBuyerAdmin(caller: BuyerCaller): BuyerMember {
  if (!caller.member || caller.member.role !== "admin") {
    throw forbidden("Only an admin of the buyer organization can do this");
  }
  return caller.member;
}
