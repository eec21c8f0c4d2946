/**
 * What the service pushes to the outside (webhooks and email): a trust event. Events are
 * written as jobs in the same atomic commit as the change they report (an outbox),
 * so a change is never stored without its event, nor an event sent for a change that failed.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, Uuid } from "./common.ts";

/** Every event type, in the order they are documented. */
export const EVENT_TYPES = [
  "version.published",
  "control.regressed",
  "control.recovered",
  "update.posted",
  "subprocessor.changed",
] as const;
export const EventType = z.enum(EVENT_TYPES).openapi("EventType");
export type EventType = z.infer<typeof EventType>;

export const TrustEvent = z.object({
  id: Uuid.openapi({ description: "Unique per event; a webhook delivery's `webhook-id`" }),
  type: EventType,
  timestamp: DateTime,
  organizationId: Uuid,
  projectId: Uuid.nullable().openapi({
    description: "The project the event is about; null for organization events",
  }),
  data: z.record(z.string(), z.unknown()).openapi({
    description: "Type-specific payload (see the webhooks section of the API description)",
  }),
}).openapi("TrustEvent");
export type TrustEvent = z.infer<typeof TrustEvent>;

/** Builds an event with a fresh id. */
export function trustEvent(
  fields: Omit<TrustEvent, "id" | "timestamp"> & { timestamp: Date | string },
): TrustEvent {
  const { timestamp, ...rest } = fields;
  return {
    id: crypto.randomUUID(),
    ...rest,
    timestamp: typeof timestamp === "string" ? timestamp : timestamp.toISOString(),
  };
}

/** A control went from pass to a worse state: what subscribers are told as a regression. */
export function isRegression(from: string | null, to: string): boolean {
  return from === "pass" && (to === "fail" || to === "stale" || to === "degraded");
}

/** A control that had regressed is passing again. */
export function isRecovery(from: string | null, to: string): boolean {
  return (from === "fail" || from === "stale" || from === "degraded") && to === "pass";
}
