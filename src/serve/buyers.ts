/**
 * The buyer's side: signing in with an emailed link (which verifies the address and so its
 * domain), the buyer organization the first verified person of a domain founds, its people
 * and service tokens, what it may read (its grants, within a token's scope), reading it
 * (every read recorded in the inventory and its monthly summary), and the rules that decide
 * a request the moment it is made.
 */
import type { Config } from "../config.ts";
import type { AccessRequest } from "../domain/access_requests.ts";
import {
  type AccessRule,
  BUYER_SESSION_HOURS,
  BUYER_SIGN_IN_MINUTES,
  type BuyerGrant,
  type BuyerMember,
  type BuyerOrganization,
  type BuyerToken,
  decide,
  type Decision,
  DEFAULT_SUMMARY_MONTHS,
  domainOf,
  MAX_BUYER_MEMBERS,
  MAX_SERVICE_TOKENS,
  SHARED_MAIL_DOMAINS,
} from "../domain/buyers.ts";
import type { TrustDocument } from "../domain/documents.ts";
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
import { addAccessRequest, countAccessRequestAttempt } from "../store/access_requests.ts";
import {
  type AccessSettings,
  createBuyerOrganization,
  getAccessSettings,
  getBuyerMember,
  getBuyerOrganization,
  getBuyerToken,
  listBuyerGrants,
  listBuyerMembers,
  listServiceTokens,
  recordAccessEvent,
  saveBuyerSignIn,
  saveBuyerToken,
  setBuyerGrant,
  setBuyerMember,
  takeBuyerSignIn,
} from "../store/buyers.ts";
import { currentNda, getDocument, getDocumentSettings } from "../store/documents.ts";
import { explainByRule } from "../domain/access_rules.ts";
import { chooseRule } from "./access_rules.ts";
import { listMembershipsByOrganization } from "../store/organizations.ts";
import { withdrawnProjectIds } from "../store/deletions.ts";
import { REQUEST_LIMITS } from "./access_requests.ts";
import { requestableDocuments } from "./documents.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const MONTH_MS = 31 * DAY_MS;

export const DEFAULT_ACCESS_SETTINGS: AccessSettings = {
  denyDomains: [],
  summaryMonths: DEFAULT_SUMMARY_MONTHS,
};

/** How long reads and their summaries are kept: the setting's months and the current one. */
export function keepMs(settings: AccessSettings): number {
  return (settings.summaryMonths + 1) * MONTH_MS;
}

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
async function issueToken(
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

/**
 * What a buyer organization may read at `now`: its unexpired grants of documents that are
 * still restricted, within a service token's scope.
 */
export async function liveGrants(
  kv: Deno.Kv,
  org: Organization,
  caller: Pick<BuyerCaller, "buyer" | "token"> | { buyer: BuyerOrganization; token: null },
  now: Date,
): Promise<{ grant: BuyerGrant; document: TrustDocument }[]> {
  const scope = caller.token?.documentIds ?? null;
  const out = [];
  for (const grant of await listBuyerGrants(kv, org.id, caller.buyer.domain)) {
    if (Date.parse(grant.expiresAt) <= now.getTime()) continue;
    if (scope && !scope.includes(grant.documentId)) continue;
    const document = await getDocument(kv, org.id, grant.documentId);
    if (!document || document.visibility !== "restricted") continue;
    out.push({ grant: { ...grant, title: document.title }, document });
  }
  // A project's withdrawal (docs/lifecycle.md) takes its documents off every grant at once.
  const withdrawn = await withdrawnProjectIds(
    kv,
    out.flatMap(({ document }) => document.projectId ? [document.projectId] : []),
  );
  return out.filter(({ document }) => !document.projectId || !withdrawn.has(document.projectId))
    .sort((a, b) => a.document.title.localeCompare(b.document.title));
}

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

/** Records a known party's read of a document in the inventory and its monthly summary. */
export async function recordRead(
  kv: Deno.Kv,
  org: Organization,
  read: {
    kind: "view" | "download";
    domain: string;
    person: string;
    document: Pick<TrustDocument, "id" | "title">;
    via: "session" | "service" | "link";
    now: Date;
  },
): Promise<void> {
  const settings = await getAccessSettings(kv, org.id, DEFAULT_ACCESS_SETTINGS);
  await recordAccessEvent(kv, org.id, {
    id: timeOrderedUuid(read.now),
    at: read.now.toISOString(),
    kind: read.kind,
    domain: read.domain,
    person: read.person,
    documentId: read.document.id,
    title: read.document.title,
    via: read.via,
  }, keepMs(settings));
}

/** Who a caller is in the inventory: the person, or the service token by name. */
export function personOf(caller: BuyerCaller): string {
  return caller.token.kind === "session" ? caller.token.email : `token:${caller.token.name}`;
}

/**
 * The rule of a document: its own, else its project's, else the trust center's rule for every
 * restricted document (access settings' `defaultRule`), else the built-in default
 * (`chooseRule`, src/serve/access_rules.ts).
 */
export async function ruleOf(kv: Deno.Kv, orgId: string, documentId: string): Promise<AccessRule> {
  const document = await getDocument(kv, orgId, documentId);
  return (await chooseRule(kv, orgId, { id: documentId, projectId: document?.projectId ?? null }))
    .rule;
}

/**
 * A signed-in buyer asks for documents: each is decided by its rule at once. Granted ones
 * are the buyer organization's from this moment (a renewal extends an existing grant);
 * denied ones are refused with the reason; the rest are filed as one access request for an
 * owner, with an email to each owner staged.
 */
export async function requestAsBuyer(
  kv: Deno.Kv,
  options: {
    org: Organization;
    caller: BuyerCaller;
    documentIds: string[];
    ndaVersion: number;
    name?: string;
    company?: string;
    ip: string;
    now: Date;
  },
): Promise<{ decisions: Decision[]; requestId: string | null }> {
  const { org, caller, now } = options;
  if (!caller.member) throw forbidden("A service token reads; a person asks for access");
  const nda = await currentNda(kv, org.id);
  if (!nda) throw conflict(`${org.name} does not take access requests yet`);
  if (options.ndaVersion !== nda.version) {
    throw validationFailed("The NDA changed since you read it; please read it again");
  }
  const ids = [...new Set(options.documentIds)];
  const requestable = new Map(
    (await requestableDocuments(kv, org.id, ids)).map((d) => [d.document.id, d.document]),
  );
  if (!ids.every((id) => requestable.has(id))) {
    throw validationFailed("Choose restricted documents this trust center lists");
  }
  const settings = await getAccessSettings(kv, org.id, DEFAULT_ACCESS_SETTINGS);
  const { autoApproveDomains } = await getDocumentSettings(kv, org.id);
  const email = caller.member.email;
  const domain = caller.buyer.domain;
  const decisions: Decision[] = [];
  const pending: string[] = [];
  for (const id of ids) {
    const document = requestable.get(id)!;
    const choice = await chooseRule(kv, org.id, document);
    const rule = choice.rule;
    const decided = decide(rule, {
      title: document.title,
      vendor: org.name,
      domain,
      isBuyerOrganization: true,
      orgDenyDomains: settings.denyDomains,
      orgAutoApproveDomains: autoApproveDomains,
    });
    const verdict = {
      outcome: decided.outcome,
      explanation: explainByRule(decided, {
        origin: choice,
        rule,
        title: document.title,
        vendor: org.name,
        domain,
      }),
    };
    let expiresAt: string | null = null;
    if (verdict.outcome === "granted") {
      expiresAt = new Date(now.getTime() + rule.expiresInDays * DAY_MS).toISOString();
      await setBuyerGrant(kv, org.id, domain, {
        documentId: id,
        title: document.title,
        grantedAt: now.toISOString(),
        expiresAt,
        via: "rule",
        reason: verdict.explanation,
        grantedTo: email,
      });
    } else if (verdict.outcome === "pending") pending.push(id);
    decisions.push({
      documentId: id,
      title: document.title,
      outcome: verdict.outcome,
      explanation: verdict.outcome === "granted"
        ? `${verdict.explanation} Everyone in ${domain}'s buyer organization can read it until ${
          expiresAt!.slice(0, 10)
        }; ask again before then to renew.`
        : verdict.explanation,
      expiresAt,
    });
  }
  let requestId: string | null = null;
  if (pending.length > 0) {
    const request: AccessRequest = {
      id: timeOrderedUuid(now),
      documentIds: pending,
      name: options.name ?? email,
      email,
      company: options.company ?? domain,
      nda: { version: nda.version, sha256: nda.sha256, acceptedAt: now.toISOString() },
      ip: options.ip,
      status: "pending",
      createdAt: now.toISOString(),
      decidedAt: null,
      decidedBy: null,
      autoApproved: false,
      autoApproval: null,
      linkId: null,
    };
    const owners = (await listMembershipsByOrganization(kv, org.id))
      .filter((m) => m.role === "owner").map((m) => m.userId);
    await addAccessRequest(kv, org.id, { request, notify: owners, now });
    requestId = request.id;
  }
  return { decisions, requestId };
}

/**
 * An owner approved a request: when its email belongs to a buyer organization's person, the
 * organization is granted the documents until the link's end, so colleagues read them too
 * without asking again.
 */
export async function grantApprovedToBuyer(
  kv: Deno.Kv,
  options: { org: Organization; request: AccessRequest; expiresAt: string; now: Date },
): Promise<void> {
  const { org, request, now } = options;
  const domain = domainOf(request.email);
  const buyer = await getBuyerOrganization(kv, org.id, domain);
  if (!buyer || buyer.revokedAt) return;
  if (!(await getBuyerMember(kv, org.id, domain, request.email))) return;
  for (const documentId of request.documentIds) {
    const document = await getDocument(kv, org.id, documentId);
    if (!document) continue;
    await setBuyerGrant(kv, org.id, domain, {
      documentId,
      title: document.title,
      grantedAt: now.toISOString(),
      expiresAt: options.expiresAt,
      via: "approval",
      reason: `An owner of ${org.name} approved ${request.email}'s request`,
      grantedTo: request.email,
    });
  }
}
