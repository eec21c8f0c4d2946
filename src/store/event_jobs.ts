/**
 * Trust events as jobs: each event is written as an "event" job inside the atomic commit of
 * the change it reports (an outbox), so an event exists exactly when its change does.
 */
import type { TrustEvent } from "../domain/events.ts";
import { stageJob } from "./jobs.ts";

/** The job that hands one trust event to the push channels. */
export interface EventMessage {
  kind: "event";
  event: TrustEvent;
  [field: string]: unknown;
}

/** Adds the events to `op` as jobs, so they exist only if (and when) `op` commits. */
export function stageEvents(op: Deno.AtomicOperation, events: readonly TrustEvent[]): void {
  for (const event of events) {
    const message: EventMessage = { kind: "event", event };
    stageJob(op, message, { now: new Date(event.timestamp) });
  }
}
