/**
 * The gate of each webhook attempt (src/store/webhook_gate.ts), for the delivery handler: asked
 * before the attempt, which waits (JobDeferred) when the endpoint or its host is left alone
 * after failures, or busy, and told after it how the attempt went.
 */
import { JobDeferred } from "../domain/jobs.ts";
import type { WebhookRecord } from "../domain/webhooks.ts";
import { type AttemptGate, endAttempt, startAttempt } from "../store/webhook_gate.ts";
import type { DeliveryDeps } from "./webhook_delivery.ts";

/** When an endpoint or its subscriber is busy, the job looks again after about this long. */
const BUSY_RETRY_MS = 1_000;
/** How long an attempt's in-flight mark holds beyond its timeout (name resolution, signing). */
const HOLD_MARGIN_MS = 10_000;

/** Asks the endpoint's gate for an attempt now; a closed one makes the job wait (JobDeferred). */
export async function openGate(
  deps: DeliveryDeps,
  webhook: WebhookRecord,
  now: Date,
): Promise<AttemptGate & { ok: true }> {
  const gate = await startAttempt(deps.kv, webhook, {
    now: now.getTime(),
    holdMs: deps.options.timeoutMs + HOLD_MARGIN_MS,
    busyRetryMs: BUSY_RETRY_MS,
  });
  if (gate.ok) return gate;
  // Spread the jobs that wait for one endpoint, so they do not all come back at once.
  throw new JobDeferred(gate.untilMs + Math.round(Math.random() * 500), gate.reason);
}

export async function closeGate(
  deps: DeliveryDeps,
  webhook: WebhookRecord,
  { gate, failed, unanswered = false }: {
    gate: AttemptGate & { ok: true };
    failed: boolean | null;
    /** The host did not answer (a timeout, a failed connection): its destination counts it. */
    unanswered?: boolean;
  },
): Promise<void> {
  try {
    const circuit = await endAttempt(deps.kv, webhook, {
      token: gate.token,
      failed,
      unanswered,
      now: deps.clock.now().getTime(),
      cooldownMs: deps.options.circuitCooldownMs,
    });
    const host = circuit.destination;
    if (unanswered && host?.openUntil) {
      deps.log.info("A webhook host is left alone after attempts without an answer in a row", {
        webhookId: webhook.id,
        failures: host.failures,
        until: new Date(host.openUntil).toISOString(),
      });
    }
    if (circuit.openUntil !== null) {
      deps.log.info("A webhook endpoint is left alone after failed attempts in a row", {
        webhookId: webhook.id,
        failures: circuit.failures,
        until: new Date(circuit.openUntil).toISOString(),
      });
    }
  } catch (error) {
    // The in-flight mark expires by itself; the circuit misses one count.
    deps.log.warn("A webhook attempt's end could not be recorded on its endpoint", {
      webhookId: webhook.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
