/**
 * The buyer's side of a trust center (issue 35, FedRAMP ADS TC-03/04/05/06): buyer
 * organizations keyed by a verified email domain, their people (admins and members), what
 * the organization was granted and until when, the tokens its people and tools read with
 * (stored only as hashes), the rules that decide a request at once, and the access
 * inventory's summaries. A buyer organization lives inside one vendor organization: another
 * vendor's trust center knows nothing of it.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";

/** How long an emailed buyer sign-in link works. */
export const BUYER_SIGN_IN_MINUTES = 30;
/** How long a buyer's browser session lasts. */
export const BUYER_SESSION_HOURS = 12;
/** Longest life of a service token. */
export const MAX_SERVICE_TOKEN_DAYS = 365;
/** Most live service tokens of one buyer organization. */
export const MAX_SERVICE_TOKENS = 20;
/** Most people in one buyer organization. */
export const MAX_BUYER_MEMBERS = 200;
/** Most buyer organizations listed in one answer. */
export const MAX_BUYER_ORGANIZATIONS = 500;
/** Days a grant lasts when its rule says nothing. */
export const DEFAULT_GRANT_DAYS = 30;
export const MAX_GRANT_DAYS = 365;
/** Months of access summaries kept at least (FRR-ADS-TC-06: six), by default and at most. */
export const MIN_SUMMARY_MONTHS = 6;
export const DEFAULT_SUMMARY_MONTHS = 12;
export const MAX_SUMMARY_MONTHS = 60;
/** Most domains on a deny list. */
export const MAX_DENY_DOMAINS = 200;

/**
 * Domains whose addresses anyone can get: they never make a buyer organization (a verified
 * address there proves no employer).
 */
export const SHARED_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  "gmail.com",
  "googlemail.com",
  "outlook.com",
  "hotmail.com",
  "live.com",
  "msn.com",
  "yahoo.com",
  "ymail.com",
  "icloud.com",
  "me.com",
  "aol.com",
  "proton.me",
  "protonmail.com",
  "gmx.com",
  "gmx.net",
  "mail.com",
  "zoho.com",
  "yandex.com",
  "fastmail.com",
]);

export const EmailDomain = z.string().trim().toLowerCase().max(253).regex(
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
  "Must be a domain name such as example.com",
);
export const Email = z.string().trim().toLowerCase().max(254).pipe(z.email());

/** The domain part of a (normalized) email address. */
export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1);
}

export const BuyerRole = z.enum(["admin", "member"]);

export const BuyerOrganization = z.object({
  domain: z.string().openapi({ description: "The verified email domain that names it" }),
  createdAt: DateTime,
  createdBy: z.string().openapi({ description: "The email that verified the domain first" }),
  revokedAt: DateTime.nullable().openapi({
    description: "Set when the vendor revoked its access: its grants and tokens stopped then",
  }),
}).openapi("BuyerOrganization");
export type BuyerOrganization = z.infer<typeof BuyerOrganization>;

export const BuyerMember = z.object({
  email: z.string(),
  role: BuyerRole,
  addedAt: DateTime,
  addedBy: z.string().openapi({ description: "Who added them (their own email: the founder)" }),
}).openapi("BuyerMember");
export type BuyerMember = z.infer<typeof BuyerMember>;

export const GrantVia = z.enum(["rule", "approval"]).openapi({
  description: "rule: a rule allowed it at once; approval: an owner of the vendor approved it",
});

export const BuyerGrant = z.object({
  documentId: Uuid,
  title: z.string(),
  grantedAt: DateTime,
  expiresAt: DateTime,
  via: GrantVia,
  reason: z.string().openapi({ description: "Why it was granted, in plain words" }),
  grantedTo: z.string().openapi({ description: "The email whose request granted it" }),
}).openapi("BuyerGrant");
export type BuyerGrant = z.infer<typeof BuyerGrant>;

export const BuyerTokenKind = z.enum(["session", "service"]);

export const BuyerToken = z.object({
  id: Uuid,
  kind: BuyerTokenKind,
  domain: z.string(),
  name: z.string(),
  email: z.string().openapi({
    description: "session: the person signed in; service: the admin who created it",
  }),
  documentIds: z.array(Uuid).nullable().openapi({
    description:
      "Service tokens: the documents it may read (only while granted); null: whatever the organization is granted",
  }),
  createdAt: DateTime,
  expiresAt: DateTime,
  revokedAt: DateTime.nullable(),
}).openapi("BuyerToken");
export type BuyerToken = z.infer<typeof BuyerToken>;

// Requests and answers of the buyer's routes.

export const BuyerSignInRequest = z.strictObject({ email: Email }).openapi("BuyerSignInRequest");
export const BuyerSignInReceipt = z.object({ message: z.string() }).openapi("BuyerSignInReceipt");
export const BuyerSessionRequest = z.strictObject({
  token: z.string().max(43).regex(/^[A-Za-z0-9_-]{43}$/, "Not a sign-in token"),
}).openapi("BuyerSessionRequest");

export const BuyerContext = z.object({
  buyerOrganization: BuyerOrganization,
  member: BuyerMember.nullable().openapi({ description: "Null for a service token" }),
  token: BuyerToken.openapi({ description: "The token this call was made with" }),
  grants: z.array(BuyerGrant).openapi({
    description: "What the organization may read now (a service token: within its scope)",
  }),
}).openapi("BuyerContext");

export const BuyerSessionResponse = BuyerContext.extend({
  sessionToken: z.string().openapi({
    description: "A bearer token for the buyer's routes; shown once, stored only as a hash",
  }),
  created: z.boolean().openapi({ description: "true when this sign-in created the organization" }),
}).openapi("BuyerSessionResponse");

export const AddBuyerMemberRequest = z.strictObject({
  email: Email,
  role: BuyerRole.default("member"),
}).openapi("AddBuyerMemberRequest");

export const BuyerMemberView = BuyerMember.extend({
  canRead: z.array(BuyerGrant.pick({ documentId: true, title: true, expiresAt: true })).openapi({
    description: "What they can read and until when (the organization's grants)",
  }),
}).openapi("BuyerMemberView");

export const BuyerMembersResponse = z.object({
  members: z.array(BuyerMemberView).openapi({ description: "By email" }),
}).openapi("BuyerMembersResponse");

export const CreateServiceTokenRequest = z.strictObject({
  name: oneLine(100).pipe(z.string().min(1)),
  documentIds: z.array(Uuid).max(100).optional().openapi({
    description:
      "Limit it to these granted documents; left out: whatever the organization is granted",
  }),
  expiresInDays: z.number().int().min(1).max(MAX_SERVICE_TOKEN_DAYS).default(90),
}).openapi("CreateServiceTokenRequest");

export const ServiceTokenCreated = z.object({
  token: BuyerToken,
  secret: z.string().openapi({ description: "The bearer token; shown once, stored as a hash" }),
}).openapi("ServiceTokenCreated");

export const BuyerTokensResponse = z.object({
  tokens: z.array(BuyerToken).openapi({ description: "Service tokens, newest first" }),
}).openapi("BuyerTokensResponse");

export const BuyerDocument = z.object({
  id: Uuid,
  title: z.string(),
  description: z.string(),
  type: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  updatedAt: DateTime,
  expiresAt: DateTime.openapi({ description: "When the organization's grant ends" }),
  downloadUrl: z.url(),
}).openapi("BuyerDocument");

export const BuyerDocumentsResponse = z.object({
  documents: z.array(BuyerDocument).openapi({ description: "By title" }),
}).openapi("BuyerDocumentsResponse");

// Access rules.

export const RuleMode = z.enum(["click-through", "verified", "manual"]).openapi({
  description:
    "click-through: accepting the NDA opens it at once; verified: open at once to the listed domains (and, with buyerOrganizations, to every existing buyer organization), others wait for an owner; manual: an owner decides every request",
});
export type RuleMode = z.infer<typeof RuleMode>;

export const AccessRule = z.object({
  documentId: Uuid,
  mode: RuleMode,
  autoApproveDomains: z.array(z.string()),
  buyerOrganizations: z.boolean(),
  denyDomains: z.array(z.string()).openapi({
    description: "Never granted to these domains (for example competitors')",
  }),
  expiresInDays: z.number().int(),
  updatedAt: DateTime.nullable().openapi({ description: "Null: the default rule, never set" }),
}).openapi("AccessRule");
export type AccessRule = z.infer<typeof AccessRule>;

export const PutAccessRuleRequest = z.strictObject({
  mode: RuleMode,
  autoApproveDomains: z.array(EmailDomain).max(MAX_DENY_DOMAINS).default([]),
  buyerOrganizations: z.boolean().default(false),
  denyDomains: z.array(EmailDomain).max(MAX_DENY_DOMAINS).default([]),
  expiresInDays: z.number().int().min(1).max(MAX_GRANT_DAYS).default(DEFAULT_GRANT_DAYS),
}).openapi("PutAccessRuleRequest");

/** A rule's settings from a PUT's body, each list without repeats, stamped with `now`. */
export function ruleSettings(body: z.infer<typeof PutAccessRuleRequest>, now: Date) {
  return {
    mode: body.mode,
    autoApproveDomains: [...new Set(body.autoApproveDomains)],
    buyerOrganizations: body.buyerOrganizations,
    denyDomains: [...new Set(body.denyDomains)],
    expiresInDays: body.expiresInDays,
    updatedAt: now.toISOString(),
  };
}

export const BuyerAccessRequest = z.strictObject({
  documentIds: z.array(Uuid).min(1).max(20),
  ndaVersion: z.number().int().min(1).max(1_000_000),
  acceptNda: z.literal(true).openapi({ description: "Must be true: the NDA is accepted" }),
  company: oneLine(200).optional(),
  name: oneLine(200).optional(),
}).openapi("BuyerAccessRequest");

export const Decision = z.object({
  documentId: Uuid,
  title: z.string(),
  outcome: z.enum(["granted", "pending", "denied"]),
  explanation: z.string().openapi({ description: "The decision in plain words, for the buyer" }),
  expiresAt: DateTime.nullable().openapi({ description: "granted: when access ends" }),
}).openapi("AccessDecision");
export type Decision = z.infer<typeof Decision>;

export const BuyerAccessResponse = z.object({
  decisions: z.array(Decision),
  requestId: Uuid.nullable().openapi({
    description: "The access request an owner decides, when a document waits for one",
  }),
}).openapi("BuyerAccessResponse");

/** What one rule decides for one requester (pure: the caller grants or files the request). */
export function decide(
  rule: AccessRule,
  input: {
    title: string;
    vendor: string;
    domain: string;
    isBuyerOrganization: boolean;
    orgDenyDomains: readonly string[];
    orgAutoApproveDomains: readonly string[];
  },
): { outcome: "granted" | "pending" | "denied"; explanation: string } {
  const { title, vendor, domain } = input;
  if (rule.denyDomains.includes(domain) || input.orgDenyDomains.includes(domain)) {
    return {
      outcome: "denied",
      explanation:
        `${vendor} does not share "${title}" with addresses at ${domain}. Nothing was sent to them; ask your contact at ${vendor} if you think this is wrong.`,
    };
  }
  if (rule.mode === "click-through") {
    return {
      outcome: "granted",
      explanation:
        `You accepted the NDA, and "${title}" opens to anyone who does: it is yours to read now.`,
    };
  }
  if (rule.mode === "verified") {
    if (rule.autoApproveDomains.includes(domain) || input.orgAutoApproveDomains.includes(domain)) {
      return {
        outcome: "granted",
        explanation:
          `Your address at ${domain} is verified and ${vendor} opens "${title}" to ${domain} at once: it is yours to read now.`,
      };
    }
    if (rule.buyerOrganizations && input.isBuyerOrganization) {
      return {
        outcome: "granted",
        explanation:
          `${domain} is a buyer organization of ${vendor}, and "${title}" opens to every buyer organization at once: it is yours to read now.`,
      };
    }
  }
  return {
    outcome: "pending",
    explanation:
      `${vendor} reviews requests for "${title}" by hand. Your request is filed; you will get an email when an owner decides, and the document then appears here.`,
  };
}

/** The rule of a document none was set for: auto-approved domains, else by hand (as before). */
export function defaultRule(documentId: string): AccessRule {
  return {
    documentId,
    mode: "verified",
    autoApproveDomains: [],
    buyerOrganizations: false,
    denyDomains: [],
    expiresInDays: DEFAULT_GRANT_DAYS,
    updatedAt: null,
  };
}
