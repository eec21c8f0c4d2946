/**
 * Trust events, fanned out: every "event" job is handed to each push channel (webhooks,
 * email subscriptions). A channel only schedules its own work (one delivery per endpoint, one
 * email per subscriber) and must be idempotent, because the job runs again when any channel
 * fails.
 */
import type { TrustEvent } from "../domain/events.ts";
import type { Logger } from "../lib/log.ts";
import type { JobWorker } from "../live/worker.ts";
import type { EventMessage } from "../store/event_jobs.ts";

/** One push channel's reaction to an event. */
export type EventChannel = (event: TrustEvent) => Promise<void>;

export interface EventBus {
  /** Adds a channel under a name (for logs). */
  subscribe(name: string, channel: EventChannel): void;
  /** Hands an event to every channel; throws after all ran if any failed. */
  publish(event: TrustEvent): Promise<void>;
}

export function createEventBus(deps: { log: Logger; jobs: JobWorker }): EventBus {
  const channels = new Map<string, EventChannel>();
  async function publish(event: TrustEvent): Promise<void> {
    const failed: string[] = [];
    for (const [name, channel] of channels) {
      try {
        await channel(event);
      } catch (error) {
        failed.push(name);
        deps.log.error("A push channel failed; the event will be handed out again", {
          channel: name,
          eventId: event.id,
          type: event.type,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (failed.length > 0) throw new Error(`Push channels failed: ${failed.join(", ")}`);
  }
  deps.jobs.on("event", (message) => publish((message as EventMessage).event));
  return {
    subscribe(name, channel) {
      if (channels.has(name)) throw new Error(`Push channel "${name}" exists`);
      channels.set(name, channel);
    },
    publish,
  };
}
