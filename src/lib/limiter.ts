/**
 * A counting semaphore with a bounded, first-come queue: at most `concurrency` tasks run at
 * once; up to `maxWaiting` more wait their turn, each for at most `maxWaitMs`; anything
 * beyond is turned away at once, so a burst costs memory and time that stay bounded.
 */

export interface LimiterOptions {
  /** Tasks that may run at once. */
  concurrency: number;
  /** Tasks that may wait for a slot; more are refused at once. */
  maxWaiting: number;
  /** Longest wait for a slot, in milliseconds; a task waiting longer is refused. */
  maxWaitMs: number;
}

/** What `run` did: the task's value, or why it did not run. */
export type LimiterOutcome<T> = { ran: true; value: T } | { ran: false; why: "full" | "timeout" };

export interface Limiter {
  /** Runs `task` when a slot is free, or refuses it (queue full, or waited too long). */
  run<T>(task: () => Promise<T>): Promise<LimiterOutcome<T>>;
  /** Tasks running now and tasks waiting now. */
  stats(): { running: number; waiting: number };
}

export function createLimiter(options: LimiterOptions): Limiter {
  let running = 0;
  const waiting: Array<{ start: () => void }> = [];

  function release() {
    const next = waiting.shift();
    if (next) next.start();
    else running--;
  }

  /** Resolves true once the caller holds a slot, false when it gave up waiting. */
  function acquire(): Promise<boolean> | boolean | null {
    if (running < options.concurrency) {
      running++;
      return true;
    }
    if (waiting.length >= options.maxWaiting) return null;
    return new Promise<boolean>((resolve) => {
      const entry = {
        start: () => {
          clearTimeout(timer);
          resolve(true); // the slot passes straight from the releaser to this task
        },
      };
      const timer = setTimeout(() => {
        const index = waiting.indexOf(entry);
        if (index >= 0) waiting.splice(index, 1);
        resolve(false);
      }, options.maxWaitMs);
      waiting.push(entry);
    });
  }

  return {
    async run(task) {
      const acquired = await acquire();
      if (acquired === null) return { ran: false, why: "full" };
      if (!acquired) return { ran: false, why: "timeout" };
      try {
        return { ran: true, value: await task() };
      } finally {
        release();
      }
    },
    stats: () => ({ running, waiting: waiting.length }),
  };
}
