/**
 * Access to restricted documents: the organization's click-through NDA (versioned), the
 * requests visitors make, the links granted on approval (time-limited, revocable, stored
 * only as a hash of their token) and the log of every download through a link.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";
import { plainText } from "./vendor.ts";

/** Longest NDA text. */
export const MAX_NDA_CHARS = 20_000;
/** How long an access link lasts unless the approver says otherwise. */
export const DEFAULT_LINK_DAYS = 7;
export const MAX_LINK_DAYS = 90;
/** Most auto-approved email domains. */
export const MAX_AUTO_APPROVE_DOMAINS = 50;
/** Most documents one request may ask for. */
export const MAX_REQUESTED_DOCUMENTS = 20;
/** Most entries a list read returns (newest first). */
export const MAX_LISTED = 500;

const Actor = z.object({ userId: Uuid, email: z.string().nullable() });

export const NdaVersion = z.object({
  version: z.number().int().min(1),
  text: z.string(),
  sha256: z.string().openapi({ description: "SHA-256 of the exact text (UTF-8), hex" }),
  createdAt: DateTime,
  createdBy: Actor,
}).openapi("NdaVersion");
export type NdaVersion = z.infer<typeof NdaVersion>;

export const PutNdaRequest = z.strictObject({
  text: plainText(MAX_NDA_CHARS).pipe(z.string().min(1)),
}).openapi("PutNdaRequest");

export const NdaResponse = z.object({
  current: NdaVersion.nullable(),
  versions: z.array(NdaVersion).openapi({ description: "Every version, newest first" }),
}).openapi("NdaResponse");

const EmailDomain = z.string().trim().toLowerCase().max(253).regex(
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
  "Must be a domain name such as example.com",
);

export const DocumentSettings = z.object({
  autoApproveDomains: z.array(z.string()).openapi({
    description: "Requests from work emails at these domains are approved at once",
  }),
}).openapi("DocumentSettings");
export type DocumentSettings = z.infer<typeof DocumentSettings>;

export const PutDocumentSettingsRequest = z.strictObject({
  autoApproveDomains: z.array(EmailDomain).max(MAX_AUTO_APPROVE_DOMAINS),
}).openapi("PutDocumentSettingsRequest");

export const AccessRequestStatus = z.enum(["pending", "approved", "denied"]);

export const AccessRequest = z.object({
  id: Uuid,
  documentIds: z.array(Uuid),
  name: z.string(),
  email: z.string(),
  company: z.string(),
  nda: z.object({ version: z.number().int(), sha256: z.string(), acceptedAt: DateTime }),
  ip: z.string(),
  status: AccessRequestStatus,
  createdAt: DateTime,
  decidedAt: DateTime.nullable(),
  decidedBy: Actor.nullable().openapi({ description: "Null when undecided or auto-approved" }),
  autoApproved: z.boolean(),
  answers: z.boolean().optional().openapi({
    description:
      "true when the organization's restricted answers were asked for too (absent: documents only)",
  }),
  autoApproval: z.object({
    failedAt: DateTime,
    detail: z.string().openapi({ description: "Why the link could not be emailed" }),
  }).nullable().openapi({
    description:
      "Set when the email's domain is auto-approved but the link could not be emailed: the request stays pending for an owner to approve by hand",
  }),
  linkId: Uuid.nullable(),
}).openapi("AccessRequest");
export type AccessRequest = z.infer<typeof AccessRequest>;

export const AccessLink = z.object({
  id: Uuid,
  requestId: Uuid,
  documentIds: z.array(Uuid),
  email: z.string(),
  createdAt: DateTime,
  expiresAt: DateTime,
  revokedAt: DateTime.nullable(),
  answers: z.boolean().optional().openapi({
    description: "true when the link also opens the organization's restricted answers",
  }),
}).openapi("AccessLink");
export type AccessLink = z.infer<typeof AccessLink>;

export const DownloadLogEntry = z.object({
  id: z.string(),
  at: DateTime,
  linkId: Uuid,
  email: z.string(),
  documentId: Uuid,
  title: z.string(),
  ip: z.string(),
  watermarked: z.boolean(),
}).openapi("DownloadLogEntry");
export type DownloadLogEntry = z.infer<typeof DownloadLogEntry>;

const Name = oneLine(200);
const Email = z.string().trim().toLowerCase().max(254).pipe(z.email());

/** What a visitor submits (JSON, or the form's fields). */
export const SubmitAccessRequest = z.strictObject({
  name: Name,
  email: Email,
  company: Name,
  documentIds: z.array(Uuid).max(MAX_REQUESTED_DOCUMENTS),
  answers: z.boolean().optional().openapi({
    description: "Also ask for the organization's restricted answers",
  }),
  ndaVersion: z.coerce.number().int().min(1).max(1_000_000).openapi({ type: "integer" }),
  acceptNda: z.literal(true).openapi({ description: "Must be true: the NDA is accepted" }),
}).refine((r) => r.documentIds.length > 0 || r.answers === true, {
  message: "Choose at least one document, or the restricted answers",
  path: ["documentIds"],
}).openapi("SubmitAccessRequest");
export type SubmitAccessRequest = z.infer<typeof SubmitAccessRequest>;

/** The HTML form's fields; `website` is a honeypot that people leave empty. */
export const AccessRequestForm = z.object({
  name: z.string().max(1000),
  email: z.string().max(1000),
  company: z.string().max(1000),
  documentIds: z.union([z.string().max(100), z.array(z.string().max(100)).max(100)]).optional(),
  ndaVersion: z.string().max(20),
  acceptNda: z.string().max(10).optional(),
  answers: z.string().max(10).optional(),
  website: z.string().max(1000).optional(),
}).openapi("AccessRequestForm");

export const AccessRequestReceipt = z.object({
  id: Uuid,
  status: AccessRequestStatus,
  message: z.string(),
}).openapi("AccessRequestReceipt");

export const ApproveRequest = z.strictObject({
  expiresInDays: z.number().int().min(1).max(MAX_LINK_DAYS).optional().openapi({
    description: `Days the link lasts; ${DEFAULT_LINK_DAYS} when left out`,
  }),
}).openapi("ApproveAccessRequest");

export const ApprovalResponse = z.object({
  request: AccessRequest,
  link: AccessLink.extend({
    url: z.url().openapi({ description: "Shown once; the token is stored only as a hash" }),
  }),
  email: z.object({
    sent: z.boolean(),
    detail: z.string().openapi({ description: "Why it was not sent, or where it went" }),
  }),
}).openapi("ApprovalResponse");

export const AccessRequestResponse = z.object({ request: AccessRequest })
  .openapi("AccessRequestResponse");
export const AccessRequestListResponse = z.object({
  requests: z.array(AccessRequest).openapi({ description: `Newest first, at most ${MAX_LISTED}` }),
}).openapi("AccessRequestListResponse");
export const AccessLinkListResponse = z.object({
  links: z.array(AccessLink).openapi({ description: `Newest first, at most ${MAX_LISTED}` }),
}).openapi("AccessLinkListResponse");
export const AccessLinkResponse = z.object({ link: AccessLink }).openapi("AccessLinkResponse");
export const DownloadLogResponse = z.object({
  downloads: z.array(DownloadLogEntry).openapi({
    description: `Newest first, at most ${MAX_LISTED}`,
  }),
}).openapi("DownloadLogResponse");

/** Attempts at emailing an owner about one request before it is recorded as failed. */
export const MAX_OWNER_NOTICE_ATTEMPTS = 5;
/** Delays before the 2nd, 3rd… attempt at an owner's email the SMTP server refused. */
export const OWNER_NOTICE_BACKOFF_MS = [1_000, 30_000, 5 * 60_000, 30 * 60_000] as const;

/**
 * One email to one owner about one access request, kept with its sending state (what the
 * "owner-mail" job reads). Its id is the request's and the owner's, so staging it twice
 * stores it once.
 */
export interface OwnerNotice {
  id: string;
  organizationId: string;
  requestId: string;
  userId: string;
  status: "queued" | "sent" | "failed" | "skipped";
  attempts: number;
  createdAt: string;
  sentAt: string | null;
  /** Why it failed or was skipped. */
  reason: string | null;
  /** Set while an attempt is sending it; left behind only by a crash. */
  sendingSince: string | null;
}
