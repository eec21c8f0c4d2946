/**
 * The KV queue's messages: every message has a `kind`, and one consumer hands each kind to
 * its handler (Deno KV allows one queue listener per database). Trust events are enqueued
 * inside the atomic commit of the change they report.
 */
import type { TrustEvent } from "../domain/events.ts";

/** Any message on the queue. */
export interface QueueMessage {
  kind: string;
  [field: string]: unknown;
}

/** The message that carries one trust event to the push handlers. */
export interface EventMessage {
  kind: "event";
  event: TrustEvent;
}

export function isQueueMessage(value: unknown): value is QueueMessage {
  return typeof value === "object" && value !== null &&
    typeof (value as QueueMessage).kind === "string";
}

/** Adds the events to `op`, so they are enqueued only if (and when) `op` commits. */
export function stageEvents(op: Deno.AtomicOperation, events: readonly TrustEvent[]): void {
  for (const event of events) op.enqueue({ kind: "event", event } satisfies EventMessage);
}

/** Enqueues the events on their own (for changes with no atomic commit of their own). */
export async function enqueueEvents(kv: Deno.Kv, events: readonly TrustEvent[]): Promise<void> {
  if (events.length === 0) return;
  const op = kv.atomic();
  stageEvents(op, events);
  const result = await op.commit();
  if (!result.ok) throw new Error("Could not enqueue the events");
}

/** Enqueues one message, optionally after `delayMs`. */
export async function enqueueMessage(
  kv: Deno.Kv,
  message: QueueMessage,
  delayMs = 0,
): Promise<void> {
  await kv.enqueue(message, delayMs > 0 ? { delay: delayMs } : undefined);
}

/** Hands every queue message to `handler` until the KV closes. */
export function listenQueue(
  kv: Deno.Kv,
  handler: (message: unknown) => Promise<void>,
): Promise<void> {
  return kv.listenQueue(handler);
}
