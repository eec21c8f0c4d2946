/**
 * The one consumer of the KV queue: each message kind (a recompute, a trust event, a webhook
 * delivery, an email…) has one handler, registered by the part that owns it. Delivery is at
 * least once, so every handler is idempotent; a handler that throws gets the message again
 * (Deno KV retries with backoff).
 *
 * The consumer keeps the handlers under way, so whoever closes the KV can first `stop` it:
 * handlers finish their writes on an open KV instead of failing on a closed one.
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
  /** Resolves once no handler is under way (a message still in the queue is not counted). */
  settled(): Promise<void>;
  /**
   * Stops handling messages, waits for the handlers under way, then closes the KV with
   * `close` and waits for the consumer to end. A message that arrives meanwhile is not
   * handled: it waits, untouched, until the KV is closed.
   */
  stop(close: () => void): Promise<void>;
}

export function createQueueConsumer(deps: { kv: Deno.Kv; log: Logger }): QueueConsumer {
  const handlers = new Map<string, QueueHandler>();
  const underWay = new Set<Promise<void>>();
  let stopping = false;
  let closed = () => {};
  const kvClosed = new Promise<void>((resolve) => (closed = resolve));
  let listening: Promise<void> | null = null;

  async function handle(message: unknown): Promise<void> {
    // The queue may hold shapes of older releases or kinds this configuration does not run.
    if (!isQueueMessage(message)) return;
    const handler = handlers.get(message.kind);
    if (!handler) {
      deps.log.warn("A queue message of an unknown kind was dropped", { kind: message.kind });
      return;
    }
    await handler(message);
  }

  function dispatch(message: unknown): Promise<void> {
    if (stopping) return kvClosed;
    const running = handle(message);
    underWay.add(running);
    const done = () => underWay.delete(running);
    running.then(done, done);
    return running;
  }

  return {
    on(kind, handler) {
      if (handlers.has(kind)) throw new Error(`Queue kind "${kind}" already has a handler`);
      handlers.set(kind, handler);
    },
    dispatch,
    start() {
      listening ??= listenQueue(deps.kv, dispatch);
      return listening;
    },
    async settled() {
      while (underWay.size > 0) await Promise.allSettled([...underWay]);
    },
    async stop(close) {
      stopping = true;
      // A handler's outcome is the KV's business (a failure is retried); only its end matters.
      while (underWay.size > 0) await Promise.allSettled([...underWay]);
      close();
      closed();
      await listening;
    },
  };
}
