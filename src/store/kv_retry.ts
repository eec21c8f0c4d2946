/**
 * Retries of transient KV errors in one place. Two processes on one KV file
 * (SQLite) take turns for the write lock, and the loser's commit fails with
 * "database is locked" instead of waiting. Such a commit was not applied (the
 * lock is taken before anything is written), so sending the same operation
 * again is safe, checks included: a check that held before still decides.
 */

/**
 * Tries per operation: the first plus up to 119 retries, about 10 s of waiting at most. The
 * lock is held for milliseconds, so waits stay short (5 ms doubling up to 100 ms): long ones
 * let the other process win the lock again and again, and a commit given up on fails a
 * request or leaves a job to its lease (two instances went tens of seconds without a version
 * under load when waits grew to 500 ms and gave up after 2.5 s).
 */
const ATTEMPTS = 120;
const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 100;

/** Whether `error` is SQLite's busy/locked answer, which goes away by itself. */
export function isTransientKvError(error: unknown): boolean {
  return error instanceof Error && /database (table )?is (locked|busy)/i.test(error.message);
}

export interface RetryOptions {
  /** Tries per operation (default 10). */
  attempts?: number;
  /** Waits between tries; tests pass one that does not sleep. */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn`, running it again after a transient KV error with exponential
 * backoff and jitter (5 ms doubling up to 100 ms, each wait between half
 * and all of it). Other errors, and the last transient one, are thrown.
 */
export async function retryTransient<T>(fn: () => Promise<T>, options: RetryOptions = {}) {
  const attempts = options.attempts ?? ATTEMPTS;
  const sleep = options.sleep ?? realSleep;
  for (let attempt = 1;; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= attempts || !isTransientKvError(error)) throw error;
      const ceiling = Math.min(BASE_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS);
      await sleep(ceiling / 2 + Math.random() * ceiling / 2);
    }
  }
}

type Step = (op: Deno.AtomicOperation) => void;

/** Records an atomic operation's steps, so each try replays them on a fresh one. */
function retryingAtomic(kv: Deno.Kv, options: RetryOptions): Deno.AtomicOperation {
  const steps: Step[] = [];
  const recorder: Record<string, unknown> = {
    commit: () =>
      retryTransient(() => {
        const op = kv.atomic();
        for (const step of steps) step(op);
        return op.commit();
      }, options),
  };
  for (const name of ["check", "mutate", "set", "delete", "sum", "min", "max"]) {
    recorder[name] = (...args: unknown[]) => {
      steps.push((op) =>
        (op[name as keyof Deno.AtomicOperation] as (...a: unknown[]) => unknown).apply(op, args)
      );
      return recorder;
    };
  }
  return recorder as unknown as Deno.AtomicOperation;
}

/** A list iterator that resumes after its last entry when a page read fails transiently. */
class RetryingListIterator<T> implements AsyncIterableIterator<Deno.KvEntry<T>> {
  #inner: Deno.KvListIterator<T>;
  #cursor: string | undefined;
  #yielded = 0;
  #failures = 0;

  constructor(
    private readonly kv: Deno.Kv,
    private readonly args: { selector: Deno.KvListSelector; options: Deno.KvListOptions },
    private readonly retry: RetryOptions,
  ) {
    this.#cursor = args.options.cursor;
    this.#inner = kv.list<T>(args.selector, args.options);
  }

  get cursor(): string {
    if (this.#cursor === undefined) throw new Error("Cannot get cursor before first iteration");
    return this.#cursor;
  }

  async next(): Promise<IteratorResult<Deno.KvEntry<T>, undefined>> {
    for (;;) {
      try {
        const result = await this.#inner.next();
        if (!result.done) {
          this.#yielded++;
          this.#cursor = this.#inner.cursor;
        }
        return result;
      } catch (error) {
        this.#failures++;
        if (this.#failures >= (this.retry.attempts ?? ATTEMPTS) || !isTransientKvError(error)) {
          throw error;
        }
        await (this.retry.sleep ?? realSleep)(
          Math.min(BASE_DELAY_MS * this.#failures, MAX_DELAY_MS),
        );
        const { limit } = this.args.options;
        this.#inner = this.kv.list<T>(this.args.selector, {
          ...this.args.options,
          cursor: this.#cursor,
          limit: limit === undefined ? undefined : limit - this.#yielded,
        });
      }
    }
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/**
 * The same KV, with every read, write and commit retried on transient
 * errors (see `retryTransient`). Everything else (`close`) goes to `kv`
 * unchanged.
 */
export function withKvRetry(kv: Deno.Kv, options: RetryOptions = {}): Deno.Kv {
  const retry = <T>(fn: () => Promise<T>) => retryTransient(fn, options);
  const wrapped: Partial<Deno.Kv> = {
    get:
      ((key: Deno.KvKey, opts?: { consistency?: Deno.KvConsistencyLevel }) =>
        retry(() => kv.get(key, opts))) as Deno.Kv["get"],
    getMany:
      ((keys: Deno.KvKey[], opts?: { consistency?: Deno.KvConsistencyLevel }) =>
        retry(() => kv.getMany(keys, opts))) as Deno.Kv["getMany"],
    set: (key, value, opts) => retry(() => kv.set(key, value, opts)),
    delete: (key) => retry(() => kv.delete(key)),
    atomic: () => retryingAtomic(kv, options),
    list:
      ((selector: Deno.KvListSelector, opts: Deno.KvListOptions = {}) =>
        new RetryingListIterator(kv, { selector, options: opts }, options)) as Deno.Kv["list"],
  };
  return new Proxy(kv, {
    get(target, property) {
      if (Object.hasOwn(wrapped, property)) return wrapped[property as keyof Deno.Kv];
      const value = Reflect.get(target, property, target);
      // Deno.Kv's methods read private fields, so they must run on the real object.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
