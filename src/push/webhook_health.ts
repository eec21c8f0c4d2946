/**
 * Disabling endpoints that keep failing (Standard Webhooks' recommendation). Each delivery
 * that ends counts on its endpoint: a delivered one resets the endpoint's count of
 * consecutive failed deliveries, a failed one adds to it, and at
 * DISABLE_AFTER_FAILED_DELIVERIES the endpoint is disabled with the reason and time. The
 * change is committed with the delivery's own outcome (src/store/webhook_deliveries.ts), so a
 * delivery counts once however often its job runs, and two instances ending
 * deliveries at once both count (one of the commits is retried).
 */
import {
  type DeliveryRecord,
  DISABLE_AFTER_FAILED_DELIVERIES,
  type WebhookDisabled,
  type WebhookRecord,
} from "../domain/webhooks.ts";

/** What is said of an endpoint disabled after `count` failed deliveries. */
export function failingMessage(count: number): string {
  return `Disabled after ${count} consecutive failed deliveries`;
}

/**
 * The endpoint after `ended` (a delivery just over, attempted while the endpoint was
 * enabled) reached `status`, or null when the endpoint does not change. A failed manual
 * redelivery does not count again: its delivery counted when its retries ran out.
 */
export function afterDeliveryEnded(
  webhook: WebhookRecord,
  { ended, now }: { ended: Pick<DeliveryRecord, "status" | "round">; now: Date },
): WebhookRecord | null {
  if (!webhook.enabled) return null;
  const count = webhook.consecutiveFailures ?? 0;
  if (ended.status === "delivered") {
    return count === 0 ? null : { ...webhook, consecutiveFailures: 0 };
  }
  if (ended.status !== "failed" || ended.round === "manual") return null;
  const failures = count + 1;
  if (failures < DISABLE_AFTER_FAILED_DELIVERIES) {
    return { ...webhook, consecutiveFailures: failures };
  }
  const at = now.toISOString();
  const disabled: WebhookDisabled = {
    reason: "failing",
    at,
    failedDeliveries: failures,
    message: failingMessage(failures),
  };
  return { ...webhook, consecutiveFailures: failures, enabled: false, disabled, updatedAt: at };
}

/** The enabled state after an owner's change of it; turning it on resets the count. */
export function withEnabled(
  webhook: WebhookRecord,
  { enabled, now }: { enabled: boolean; now: Date },
): WebhookRecord {
  if (enabled) return { ...webhook, enabled: true, disabled: null, consecutiveFailures: 0 };
  if (!webhook.enabled) return webhook;
  const disabled: WebhookDisabled = {
    reason: "user",
    at: now.toISOString(),
    failedDeliveries: webhook.consecutiveFailures ?? 0,
    message: "Disabled by a user",
  };
  return { ...webhook, enabled: false, disabled };
}

/** An endpoint's disabled state as shown; records from before the state was kept get one. */
export function disabledOf(webhook: WebhookRecord): WebhookDisabled | null {
  if (webhook.enabled) return null;
  return webhook.disabled ??
    { reason: "user", at: webhook.updatedAt, failedDeliveries: 0, message: "Disabled by a user" };
}
