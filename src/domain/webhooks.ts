/**
 * Webhook endpoints of a project and their deliveries. Deliveries follow the Standard
 * Webhooks specification: `webhook-id`, `webhook-timestamp` and `webhook-signature` headers,
 * signed as `${id}.${timestamp}.${body}` with the service's Ed25519 key (`v1a`) or the
 * endpoint's HMAC secret (`v1`), and a body of `{ type, timestamp, data }`.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, Uuid } from "./common.ts";
import { EVENT_TYPES } from "./events.ts";
import { plainText } from "./vendor.ts";

/** Most endpoints one project may have, all callers together. */
export const MAX_WEBHOOKS_PER_PROJECT = 50;
/** Most endpoints one user may register, over every project. */
export const MAX_WEBHOOKS_PER_USER = 20;
/** Longest accepted endpoint URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Most attempts one delivery's log keeps (the newest). */
export const MAX_LOGGED_ATTEMPTS = 20;
/** Deliveries are kept this long, then expire from the log. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;
/**
 * An endpoint whose deliveries end `failed` this many times in a row is disabled (Standard
 * Webhooks recommends disabling endpoints that keep failing). A delivery only fails after its
 * whole retry schedule (about ten hours), so this takes at least that long of failure.
 */
export const DISABLE_AFTER_FAILED_DELIVERIES = 5;
/** The event type of the test ping (`POST …/test`); not one to subscribe to. */
export const TEST_EVENT_TYPE = "webhook.test";
/** Test pings one endpoint may be sent per window, and one project's endpoints together. */
export const TEST_PINGS_PER_WEBHOOK = 5;
export const TEST_PINGS_PER_PROJECT = 30;
export const TEST_PING_WINDOW_MS = 60_000;
/**
 * Attempts in flight at once to the endpoints of one subscriber (the user who registered them),
 * over every instance; an endpoint has at most one.
 */
export const MAX_IN_FLIGHT_PER_SUBSCRIBER = 2;
/**
 * After this many failed attempts in a row (timeouts, refused connections, error answers), an
 * endpoint is left alone for a while (its circuit is open): its next attempts wait for the end
 * of that while instead of taking a worker's slot. The while starts at
 * CIRCUIT_COOLDOWN_MS and doubles with each further failure, up to CIRCUIT_MAX_COOLDOWN_MS.
 */
export const CIRCUIT_OPEN_AFTER = 3;
export const CIRCUIT_COOLDOWN_MS = 30_000;
export const CIRCUIT_MAX_COOLDOWN_MS = 600_000;

/** An endpoint's recent attempts, as kept for its circuit. */
export interface EndpointCircuit {
  /** Attempts in a row that failed. */
  failures: number;
  /** Until when (epoch ms) its attempts wait; null while they go ahead. */
  openUntil: number | null;
}

/**
 * How long an endpoint is left alone after `failures` failed attempts in a row (0: not), the
 * first pause being `firstMs` (tests with a short retry schedule shorten it too).
 */
export function circuitCooldownMs(failures: number, firstMs = CIRCUIT_COOLDOWN_MS): number {
  if (failures < CIRCUIT_OPEN_AFTER) return 0;
  return Math.min(firstMs * 2 ** (failures - CIRCUIT_OPEN_AFTER), CIRCUIT_MAX_COOLDOWN_MS);
}

export const WebhookEventType = z.enum(EVENT_TYPES);
export const SigningMethod = z.enum(["ed25519", "hmac"]).openapi("WebhookSigningMethod", {
  description:
    "`ed25519`: Standard Webhooks `v1a` signatures with the service's key (in /.well-known/jwks.json, `use: sig`, and as `whpk_…`); `hmac`: `v1` HMAC-SHA256 signatures with the endpoint's own `whsec_…` secret",
});
export type SigningMethod = z.infer<typeof SigningMethod>;

const WebhookUrl = z.string().trim().min(1).max(MAX_WEBHOOK_URL_LENGTH).openapi({
  description:
    "An https URL (http only for loopback addresses while WEBHOOK_ALLOW_PRIVATE is on); no user name or password. Its host must not resolve to a loopback, private, link-local or other non-public address unless WEBHOOK_ALLOW_PRIVATE is on",
  example: "https://hooks.example.com/trust",
});
const Events = z.array(WebhookEventType).min(1).max(EVENT_TYPES.length)
  .refine((list) => new Set(list).size === list.length, "Name each event type once")
  .openapi({ description: "The event types to receive" });
const Description = plainText(200).openapi({ example: "Security team's SIEM" });

/** An endpoint as stored; `secret` only for `hmac` endpoints, never shown after creation. */
export interface WebhookRecord {
  id: string;
  projectId: string;
  organizationId: string;
  /** Who registered it; a non-member's endpoint is theirs alone and needs a public project. */
  createdBy: string;
  url: string;
  events: z.infer<typeof WebhookEventType>[];
  description: string;
  signing: SigningMethod;
  secret: string | null;
  /** After a rotation, the earlier secret also signs until `until`, so receivers can switch. */
  previousSecret: { value: string; until: string } | null;
  enabled: boolean;
  /** Deliveries in a row that ended `failed` (absent in records older than the count). */
  consecutiveFailures?: number;
  /** Why and since when the endpoint is disabled; null (or absent) while enabled. */
  disabled?: WebhookDisabled | null;
  createdAt: string;
  updatedAt: string;
}

export const WebhookDisabled = z.object({
  reason: z.enum(["failing", "user"]).openapi({
    description:
      "`failing`: disabled by the service after consecutive failed deliveries; `user`: turned off with `enabled: false`",
  }),
  at: DateTime,
  failedDeliveries: z.int().min(0).openapi({
    description: "The consecutive failed deliveries when it was disabled",
  }),
  message: z.string().openapi({
    example: "Disabled after 5 consecutive failed deliveries",
  }),
}).openapi("WebhookDisabled");
export type WebhookDisabled = z.infer<typeof WebhookDisabled>;

export const Webhook = z.object({
  id: Uuid,
  projectId: Uuid,
  url: z.string(),
  events: z.array(WebhookEventType),
  description: z.string(),
  signing: SigningMethod,
  publicKey: z.string().nullable().openapi({
    description:
      "For `ed25519`: the Standard Webhooks public key (`whpk_…`) that verifies the signatures",
  }),
  keyId: z.string().nullable().openapi({
    description: "For `ed25519`: the `kid` of that key in /.well-known/jwks.json",
  }),
  enabled: z.boolean(),
  disabled: WebhookDisabled.nullable().openapi({
    description:
      `Why the endpoint receives nothing, while \`enabled\` is false. The service disables an endpoint after ${DISABLE_AFTER_FAILED_DELIVERIES} deliveries in a row ended \`failed\`; \`PATCH\` with \`enabled: true\` turns it back on`,
  }),
  consecutiveFailures: z.int().min(0).openapi({
    description:
      "Deliveries in a row that ended `failed`; a delivered one, or re-enabling, resets it",
  }),
  createdBy: Uuid,
  mine: z.boolean().openapi({ description: "Whether the caller registered it" }),
  createdAt: DateTime,
  updatedAt: DateTime,
}).openapi("Webhook");
export type Webhook = z.infer<typeof Webhook>;

export const CreateWebhookRequest = z.strictObject({
  url: WebhookUrl,
  events: Events,
  signing: SigningMethod.default("ed25519"),
  description: Description.optional(),
}).openapi("CreateWebhookRequest");
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const UpdateWebhookRequest = z.strictObject({
  url: WebhookUrl.optional(),
  events: Events.optional(),
  description: Description.optional(),
  enabled: z.boolean().optional().openapi({
    description:
      "`true` turns a disabled endpoint back on (also one the service disabled) and resets its count of consecutive failed deliveries",
  }),
}).refine((change) => Object.keys(change).length > 0, "Give at least one field to change")
  .openapi("UpdateWebhookRequest");
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequest>;

export const WebhookSecret = z.object({
  value: z.string().openapi({ description: "`whsec_` and the base64 of 32 random bytes" }),
  note: z.string(),
}).openapi("WebhookSecret");

export const WebhookResponse = z.object({ webhook: Webhook }).openapi("WebhookResponse");
export const CreatedWebhookResponse = z.object({
  webhook: Webhook,
  secret: WebhookSecret.nullable().openapi({
    description: "For `hmac` endpoints, the secret: shown only in this response",
  }),
}).openapi("CreatedWebhookResponse");
export const RotatedSecretResponse = z.object({ webhook: Webhook, secret: WebhookSecret })
  .openapi("RotatedWebhookSecretResponse");
export const WebhookListResponse = z.object({
  webhooks: z.array(Webhook).openapi({
    description: "Members see every endpoint of the project; other users their own",
  }),
}).openapi("WebhookListResponse");

export const DeliveryStatus = z.enum(["pending", "delivered", "failed"]);

export const DeliveryAttempt = z.object({
  number: z.int().min(1),
  at: DateTime,
  manual: z.boolean().openapi({ description: "A redelivery asked for by a user" }),
  statusCode: z.int().nullable().openapi({ description: "The receiver's HTTP status, if any" }),
  durationMs: z.int().min(0),
  error: z.string().nullable(),
}).openapi("WebhookDeliveryAttempt");
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const Delivery = z.object({
  id: Uuid,
  webhookId: Uuid,
  messageId: z.string().openapi({
    description: "The `webhook-id` header: the same for every attempt and redelivery",
  }),
  type: z.string(),
  status: DeliveryStatus,
  attemptCount: z.int().min(0),
  nextAttemptAt: DateTime.nullable(),
  createdAt: DateTime,
  deliveredAt: DateTime.nullable(),
  attempts: z.array(DeliveryAttempt).openapi({
    description: `Oldest first; the newest ${MAX_LOGGED_ATTEMPTS} are kept`,
  }),
  payload: z.record(z.string(), z.unknown()).openapi({
    description: "The body sent: `{ type, timestamp, data }`",
  }),
}).openapi("WebhookDelivery");
export type Delivery = z.infer<typeof Delivery>;

/** A delivery as stored: what the delivery job needs besides what is shown. */
export interface DeliveryRecord extends Delivery {
  projectId: string;
  /** Bumped by each (re)scheduling; a job of an older sequence is stale. */
  sequence: number;
  /** `manual` after a redelivery: one attempt, no automatic retries. */
  round: "automatic" | "manual";
  /** Automatic attempts made so far (what the backoff schedule counts). */
  automaticAttempts: number;
  /** The attempt in flight and when it started, so a second worker leaves it alone. */
  claim: { sequence: number; at: string } | null;
  /** Who registered the endpoint: its attempts count against their cap in flight. */
  subscriberId?: string;
  /** The endpoint's origin when the delivery was made: whose slots its attempts share. */
  destination?: string;
}

export const DeliveryListResponse = z.object({
  deliveries: z.array(Delivery).openapi({ description: "Newest first" }),
  cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page" }),
}).openapi("WebhookDeliveryListResponse");

export const DeliveryResponse = z.object({ delivery: Delivery })
  .openapi("WebhookDeliveryResponse");

/** The body of a delivery (Standard Webhooks' payload structure). */
export const WebhookPayload = z.object({
  type: z.string().openapi({ example: "control.regressed" }),
  timestamp: DateTime,
  data: z.record(z.string(), z.unknown()).openapi({
    description:
      "The trust event's data with `eventId`, `organizationId` and `projectId` (null for organization events)",
  }),
}).openapi("WebhookPayload");
export type WebhookPayload = z.infer<typeof WebhookPayload>;
