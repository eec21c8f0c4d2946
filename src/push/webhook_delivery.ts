/**
 * Attempts of webhook deliveries, one job each. An attempt re-checks the target
 * (SSRF), signs the stored body with a fresh `webhook-timestamp` and the same `webhook-id`,
 * POSTs it, and logs the outcome. A 2xx answer delivers; anything else is retried after the
 * next delay of the backoff schedule (with jitter) until the schedule runs out, then the
 * delivery has `failed`. A manual redelivery is one more attempt of the same message, with
 * no automatic retries after it.
 *
 * Before each attempt the endpoint's gate (src/store/webhook_gate.ts) is asked: an endpoint
 * whose last attempts failed in a row, one whose host left its last attempts unanswered, one
 * with an attempt in flight, or whose subscriber has its cap of attempts in flight, makes the
 * job wait (JobDeferred: due again later, the run not
 * counted) instead of holding a worker's slot for another timeout.
 */
import type { SigningKey } from "../auth/keys.ts";
import { conflict, notFound } from "../domain/errors.ts";
import {
  CIRCUIT_COOLDOWN_MS,
  type DeliveryAttempt,
  type DeliveryRecord,
  MAX_LOGGED_ATTEMPTS,
  type WebhookRecord,
} from "../domain/webhooks.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { JobMessage } from "../domain/jobs.ts";
import {
  type DeliveryMessage,
  getDelivery,
  isDeliveryMessage,
  saveDelivery,
} from "../store/webhook_deliveries.ts";
import { getWebhook, getWebhookEntry } from "../store/webhooks.ts";
import { closeGate, openGate } from "./endpoint_gate.ts";
import { afterDeliveryEnded } from "./webhook_health.ts";
import { type PostOutcome, postWebhook } from "./webhook_http.ts";
import { signatureHeader } from "./webhook_signing.ts";
import { checkTarget, type HostResolver, TargetRefused } from "./webhook_target.ts";

/** How deliveries are attempted; tests shorten the schedule. */
export interface WebhookDeliveryOptions {
  /** Delay before each automatic retry; attempts = its length + 1. */
  retryDelaysMs: number[];
  /** Each delay is varied by up to this fraction either way, so retries do not stampede. */
  jitter: number;
  /** Longest one attempt may take, connection to answer. */
  timeoutMs: number;
  /** Extra PEM roots trusted for https endpoints (tests' certificate authority). */
  caCerts?: string[];
  /** The first pause of an endpoint after failed attempts in a row (its circuit). */
  circuitCooldownMs?: number;
}

/** Commits of one attempt's outcome tried before giving up (the job then runs again). */
const MAX_COMMITS = 10;

/** 5 s, 30 s, 2 min, 10 min, 1 h, 3 h, 6 h: eight attempts over about ten hours. */
export const DEFAULT_DELIVERY_OPTIONS: WebhookDeliveryOptions = {
  retryDelaysMs: [5_000, 30_000, 120_000, 600_000, 3_600_000, 10_800_000, 21_600_000],
  jitter: 0.2,
  timeoutMs: 10_000,
  circuitCooldownMs: CIRCUIT_COOLDOWN_MS,
};

export interface DeliveryDeps {
  kv: Deno.Kv;
  clock: Clock;
  log: Logger;
  key: SigningKey;
  resolver: HostResolver;
  allowPrivate: boolean;
  options: WebhookDeliveryOptions;
}

async function attempt(
  deps: DeliveryDeps,
  webhook: WebhookRecord | null,
  delivery: DeliveryRecord,
  signal?: AbortSignal,
): Promise<PostOutcome & { final: boolean; posted: boolean }> {
  const none = { statusCode: null, durationMs: 0, final: true, posted: false };
  if (!webhook) return { ...none, error: "The webhook was removed" };
  if (!webhook.enabled) return { ...none, error: "The webhook is disabled" };
  const started = performance.now();
  let target;
  try {
    target = await checkTarget(webhook.url, deps);
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    const durationMs = Math.round(performance.now() - started);
    return {
      statusCode: null,
      error: error.message,
      durationMs,
      final: !error.retryable,
      posted: false,
    };
  }
  const now = deps.clock.now();
  const timestamp = Math.floor(now.getTime() / 1000);
  const body = JSON.stringify(delivery.payload);
  const signature = await signatureHeader(webhook, {
    id: delivery.messageId,
    timestamp,
    body,
    key: deps.key,
    now,
  });
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": "TrustProfileService-Webhooks/1",
    "webhook-id": delivery.messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature,
  };
  if (webhook.signing === "ed25519") headers["webhook-key-id"] = deps.key.kid;
  const outcome = await postWebhook(target, { headers, body, ...deps.options, cutShort: signal });
  const code = outcome.statusCode;
  const error = outcome.error ??
    (code !== null && (code < 200 || code > 299)
      ? `The receiver answered ${code}${
        code >= 300 && code < 400 ? " (redirects are not followed)" : ""
      }`
      : null);
  return { ...outcome, error, final: false, posted: true };
}

function jittered(delayMs: number, jitter: number): number {
  return Math.max(0, Math.round(delayMs * (1 + jitter * (2 * Math.random() - 1))));
}

/** The delivery after an attempt, and the delay of the next one (none when it is over). */
export function afterAttempt(
  delivery: DeliveryRecord,
  outcome: PostOutcome & { final: boolean },
  context: { now: Date; options: WebhookDeliveryOptions },
): { next: DeliveryRecord; delayMs: number | null } {
  const at = context.now.toISOString();
  const logged: DeliveryAttempt = {
    number: delivery.attemptCount + 1,
    at,
    manual: delivery.round === "manual",
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    error: outcome.error,
  };
  const automaticAttempts = delivery.automaticAttempts + (delivery.round === "automatic" ? 1 : 0);
  const base = {
    ...delivery,
    attemptCount: delivery.attemptCount + 1,
    automaticAttempts,
    attempts: [...delivery.attempts, logged].slice(-MAX_LOGGED_ATTEMPTS),
    claim: null,
  };
  if (outcome.error === null) {
    return {
      next: { ...base, status: "delivered", deliveredAt: at, nextAttemptAt: null },
      delayMs: null,
    };
  }
  const delays = context.options.retryDelaysMs;
  if (delivery.round === "automatic" && !outcome.final && automaticAttempts <= delays.length) {
    const delayMs = jittered(delays[automaticAttempts - 1], context.options.jitter);
    const nextAttemptAt = new Date(context.now.getTime() + delayMs).toISOString();
    return {
      next: { ...base, status: "pending", sequence: delivery.sequence + 1, nextAttemptAt },
      delayMs,
    };
  }
  return { next: { ...base, status: "failed", nextAttemptAt: null }, delayMs: null };
}

/** The handler of "webhook-delivery" jobs. */
export function deliveryHandler(deps: DeliveryDeps) {
  const claimMs = deps.options.timeoutMs + 30_000;
  return async (message: JobMessage, context?: { signal: AbortSignal }): Promise<void> => {
    if (!isDeliveryMessage(message)) return;
    const entry = await getDelivery(deps.kv, message.webhookId, message.deliveryId);
    const delivery = entry.value;
    if (!delivery || delivery.status !== "pending" || delivery.sequence !== message.sequence) {
      return; // done, or superseded by a later schedule: a stale or repeated message
    }
    const now = deps.clock.now();
    const claim = delivery.claim;
    if (claim?.sequence === delivery.sequence && now.getTime() - Date.parse(claim.at) < claimMs) {
      // Another worker is making this attempt, or crashed making it: the job runs again
      // later, and by then the attempt is recorded (the job is stale) or the claim old.
      throw new Error("This delivery's attempt is in progress elsewhere");
    }
    const webhook = await getWebhook(deps.kv, delivery.projectId, delivery.webhookId);
    const gate = webhook?.enabled ? await openGate(deps, webhook, now) : null;
    // null: no attempt was made (another worker claimed the delivery first).
    let failed: boolean | null = true;
    // Whether the request went out and no answer came (the host's circuit counts it).
    let unanswered = false;
    let recorded: Awaited<ReturnType<typeof recordAttempt>> = null;
    let outcome: PostOutcome & { final: boolean; posted: boolean };
    try {
      const claimed = {
        ...delivery,
        claim: { sequence: delivery.sequence, at: now.toISOString() },
      };
      const claiming = { entry: entry as Deno.KvEntry<DeliveryRecord>, next: claimed };
      if (!(await saveDelivery(deps.kv, claiming))) {
        failed = null;
        return;
      }
      outcome = await attempt(deps, webhook, delivery, context?.signal);
      failed = outcome.error !== null;
      unanswered = outcome.posted && outcome.statusCode === null;
      recorded = await recordAttempt(deps, { message, sequence: delivery.sequence, outcome });
    } finally {
      if (gate && webhook) await closeGate(deps, webhook, { gate, failed, unanswered });
    }
    if (!recorded) return;
    if (outcome.error) {
      deps.log.info("A webhook attempt failed", {
        webhookId: delivery.webhookId,
        deliveryId: delivery.id,
        statusCode: outcome.statusCode,
        error: outcome.error,
        status: recorded.delivery.status,
      });
    }
    if (recorded.webhook && !recorded.webhook.enabled) {
      deps.log.warn("A webhook endpoint was disabled after consecutive failed deliveries", {
        webhookId: delivery.webhookId,
        projectId: delivery.projectId,
        failures: recorded.webhook.consecutiveFailures,
      });
    }
  };
}

/**
 * Commits an attempt's outcome: the delivery, the job of its next attempt, and once the
 * delivery is over, its endpoint's count of failed deliveries (webhook_health.ts), all in one
 * atomic commit. A commit that loses to a change of the endpoint alone (another delivery's
 * outcome on another instance, an owner's edit) is made again over what is now stored.
 * Returns null when the delivery has moved on without this attempt (a later schedule).
 */
async function recordAttempt(
  deps: DeliveryDeps,
  { message, sequence, outcome }: {
    message: DeliveryMessage;
    sequence: number;
    outcome: PostOutcome & { final: boolean };
  },
): Promise<{ delivery: DeliveryRecord; webhook: WebhookRecord | null } | null> {
  for (let commit = 0; commit < MAX_COMMITS; commit++) {
    const fresh = await getDelivery(deps.kv, message.webhookId, message.deliveryId);
    if (!fresh.value || fresh.value.sequence !== sequence) return null;
    const now = deps.clock.now();
    const { next, delayMs } = afterAttempt(fresh.value, outcome, { now, options: deps.options });
    const endpoint = next.status === "pending"
      ? null
      : await getWebhookEntry(deps.kv, next.projectId, next.webhookId);
    const changed = endpoint?.value
      ? afterDeliveryEnded(endpoint.value, { ended: next, now })
      : null;
    const saved = await saveDelivery(deps.kv, {
      entry: fresh as Deno.KvEntry<DeliveryRecord>,
      next,
      schedule: delayMs === null ? undefined : { now, delayMs },
      webhook: changed
        ? { entry: endpoint as Deno.KvEntry<WebhookRecord>, next: changed }
        : undefined,
    });
    if (saved) return { delivery: next, webhook: changed };
  }
  throw new Error("The delivery or its webhook kept changing while its attempt was being recorded");
}

/**
 * Asks for one more attempt of a delivery that is over (delivered or failed), now, with the
 * same `webhook-id`; a delivery still being retried is refused with 409.
 */
export async function redeliver(
  kv: Deno.Kv,
  ids: { webhookId: string; deliveryId: string },
  now: Date,
): Promise<DeliveryRecord> {
  const entry = await getDelivery(kv, ids.webhookId, ids.deliveryId);
  const delivery = entry.value;
  if (!delivery) throw notFound("No delivery with that id for this webhook");
  if (delivery.status === "pending") {
    throw conflict("This delivery is still being attempted; redeliver it once it is over");
  }
  const next: DeliveryRecord = {
    ...delivery,
    status: "pending",
    round: "manual",
    sequence: delivery.sequence + 1,
    nextAttemptAt: now.toISOString(),
    claim: null,
  };
  const saved = await saveDelivery(kv, {
    entry: entry as Deno.KvEntry<DeliveryRecord>,
    next,
    schedule: { now, delayMs: 0 },
  });
  if (!saved) throw conflict("The delivery changed while it was being redelivered; please retry");
  return next;
}
