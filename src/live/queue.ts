/**
 * The one consumer of the KV queue: each message kind (a recompute, a trust event, a webhook
 * delivery, an email…) has one handler, registered by the part that owns it. Delivery is at
 * least once, so every handler is idempotent; a handler that throws gets the message again
 * (Deno KV retries with backoff).
 */
import type { Logger } from "../lib/log.ts";
import { isQueueMessage, listenQueue, type QueueMessage } from "../store/queue.ts";

export type QueueHandler = (message: QueueMessage) => Promise<void>;

export interface QueueConsumer {
  /** Sets the handler of one kind of message; a kind has one handler. */
  on(kind: string, handler: QueueHandler): void;
  /** Handles one message as the consumer would (tests drive handlers with it). */
  dispatch(message: unknown): Promise<void>;
  /** Processes queue messages until the KV closes. */
  start(): Promise<void>;
}

export function createQueueConsumer(deps: { kv: Deno.Kv; log: Logger }): QueueConsumer {
  const handlers = new Map<string, QueueHandler>();
  async function dispatch(message: unknown): Promise<void> {
    // The queue may hold shapes of older releases or kinds this configuration does not run.
    if (!isQueueMessage(message)) return;
    const handler = handlers.get(message.kind);
    if (!handler) {
      deps.log.warn("A queue message of an unknown kind was dropped", { kind: message.kind });
      return;
    }
    await handler(message);
  }
  return {
    on(kind, handler) {
      if (handlers.has(kind)) throw new Error(`Queue kind "${kind}" already has a handler`);
      handlers.set(kind, handler);
    },
    dispatch,
    start: () => listenQueue(deps.kv, dispatch),
  };
}
