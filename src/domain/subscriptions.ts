/**
 * Email subscriptions: a visitor asks for email about a public project or an organization,
 * confirms from a link (double opt-in), and is told of regressions, updates and
 * subprocessor changes until they unsubscribe (one click, RFC 8058). Addresses are personal
 * data: only owners see them; members see how many there are.
 */
import { LiveStatus } from "./jobs.ts";
import { z } from "@hono/zod-openapi";
import { NextCursor } from "./list_page.ts";
import { DateTime, Uuid } from "./common.ts";
import type { TrustEvent } from "./events.ts";

/** How long a confirmation link works. */
export const PENDING_TTL_MS = 48 * 60 * 60 * 1000;
/** Subscribe requests one client address may make per hour. */
export const SUBSCRIBE_REQUESTS_PER_IP_PER_HOUR = 20;
/** Confirmation emails one address may receive per day, whoever asks. */
export const CONFIRMATIONS_PER_ADDRESS_PER_DAY = 3;
/** Attempts at sending one email before it is recorded as failed. */
export const MAX_MAIL_ATTEMPTS = 5;
/** Delays before the 2nd, 3rd… attempt at an email the SMTP server refused. */
export const MAIL_BACKOFF_MS = [1_000, 30_000, 5 * 60_000, 30 * 60_000] as const;

/** Normalized address: trimmed, lowercase (what uniqueness and throttling compare). */
export const EmailAddress = z.string().max(320).trim().toLowerCase().pipe(z.email().max(254))
  .openapi({ example: "security-team@customer.example", format: "email" });

export const SubscribeRequest = z.object({ email: EmailAddress }).openapi("SubscribeRequest");
export type SubscribeRequest = z.infer<typeof SubscribeRequest>;

export const SubscribeResponse = z.object({
  status: z.literal("confirmation_sent"),
  message: z.string(),
}).openapi("SubscribeResponse");

/** A subscription as stored. `nonce` keys its confirm links (see src/push/links.ts). */
export interface Subscription {
  id: string;
  organizationId: string;
  /** The project subscribed to; null for the whole organization. */
  projectId: string | null;
  email: string;
  status: "pending" | "confirmed";
  nonce: string;
  createdAt: string;
  /** When a pending subscription's link stops working; null once confirmed. */
  expiresAt: string | null;
  confirmedAt: string | null;
}

/** One email: a confirmation request or a notification of one event. */
export interface MailDelivery {
  id: string;
  purpose: "confirmation" | "notification";
  subscriptionId: string;
  event: TrustEvent | null;
  status: "queued" | "sent" | "failed" | "skipped";
  attempts: number;
  createdAt: string;
  sentAt: string | null;
  /** Why it failed or was skipped, e.g. "email not configured". */
  reason: string | null;
  /** Set while an attempt is sending it (ISO time); left behind only by a crash. */
  sendingSince?: string | null;
}

export const Subscriber = z.object({
  id: Uuid,
  email: z.string(),
  projectId: Uuid.nullable().openapi({ description: "null: the whole organization" }),
  status: z.enum(["pending", "confirmed"]),
  createdAt: DateTime,
  confirmedAt: DateTime.nullable(),
}).openapi("Subscriber");

export const SubscriberCount = z.object({
  projectId: Uuid.nullable().openapi({ description: "null: the whole organization" }),
  confirmed: z.number().int(),
  pending: z.number().int(),
}).openapi("SubscriberCount");

export const SubscriberListResponse = z.object({
  mail: z.object({ configured: z.boolean() }),
  counts: z.array(SubscriberCount).openapi({
    description: "Per scope: the organization (projectId null) and each project with subscribers",
  }),
  subscribers: z.array(Subscriber).nullable().openapi({
    description:
      "The addresses, newest first, one page of them, for owners; null for members (addresses are personal data)",
  }),
  nextCursor: NextCursor.openapi({
    description:
      'For owners: pass as cursor for the next page of addresses; null on the last one, and for members. The HTTP answer also links it (Link: rel="next")',
  }),
}).openapi("SubscriberListResponse");

export const SubscriberResponse = z.object({ subscriber: Subscriber })
  .openapi("SubscriberResponse");

export const ServiceStatus = z.object({
  mail: z.object({
    configured: z.boolean().openapi({
      description:
        "Whether email is configured (SMTP_URL or SES_REGION); without it no email (subscriptions) is sent",
    }),
  }),
  live: LiveStatus,
}).openapi("ServiceStatus");

/** What an operator sees of a subscription. */
export function subscriberView(s: Subscription): z.infer<typeof Subscriber> {
  return {
    id: s.id,
    email: s.email,
    projectId: s.projectId,
    status: s.status,
    createdAt: s.createdAt,
    confirmedAt: s.confirmedAt,
  };
}
