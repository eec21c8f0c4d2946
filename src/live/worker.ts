/**
 * The job worker: runs the live layer's jobs (src/store/jobs.ts) on any Deno KV. Each job kind
 * has one handler, registered by the part that owns it. Handlers are idempotent: a job runs
 * at least once (a crash after its effect and before its end makes it run again once its
 * lease ends), so each handler checks what is already done.
 *
 * Two drivers share one `runDue`: the local loop (`start`), which sleeps until the next due
 * job and wakes at once when this instance commits new work, and `drain`, which Deno.cron
 * calls every minute where isolates stop when idle. Several instances share the work: a job
 * is claimed with a lease before it runs.
 */
import { type Job, JOB_LEASE_MS, type JobMessage } from "../domain/jobs.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import {
  claimJob,
  completeJob,
  type DueRef,
  failJob,
  type JobClaim,
  listDueJobs,
  nextDueAt,
  onJobsCommitted,
  releaseJob,
  renewJobLease,
} from "../store/jobs.ts";

export type JobHandler = (message: JobMessage) => Promise<void>;

/** What the worker reports about itself (readiness, start-up banner, dashboard). */
export interface WorkerStatus {
  /** `loop`: the local loop runs; `cron`: only Deno.cron drains; `off`: nothing runs jobs. */
  mode: "loop" | "cron" | "off";
  /** Whether the loop is alive (always false without it). */
  running: boolean;
  /** When this worker last looked for due jobs (ISO), or null. */
  lastCheckAt: string | null;
  /** Jobs this worker is running now. */
  busy: number;
}

export interface JobWorker {
  /** Sets the handler of one kind of job; a kind has one handler. */
  on(kind: string, handler: JobHandler): void;
  /** Runs a message's handler at once, outside the store (tests drive handlers with it). */
  dispatch(message: unknown): Promise<void>;
  /** Claims and starts every job due now (up to the concurrency); returns how many started. */
  runDue(): Promise<number>;
  /** Runs due jobs until none is due or `budgetMs` has passed, and waits for them (cron). */
  drain(budgetMs?: number): Promise<number>;
  /** Starts the local loop (once). */
  start(): void;
  /** Marks that Deno.cron drains this worker (for the status). */
  cronRegistered(): void;
  /** Resolves once no job runs here and, while the loop runs, none is due. */
  settled(): Promise<void>;
  /**
   * Stops taking jobs, waits for the ones under way (at most `graceMs` when given: what is
   * still running then is released, due again at once for any worker), then calls `close`
   * (the KV's).
   */
  stop(close: () => void, options?: { graceMs?: number }): Promise<void>;
  status(): WorkerStatus;
}

/** Jobs one worker runs at a time. */
const CONCURRENCY = 8;
/** Longest sleep of the loop: it also looks for work other instances scheduled. */
const MAX_SLEEP_MS = 60_000;
/** Shortest sleep, so a job that cannot be claimed right now is not looked at in a spin. */
const MIN_SLEEP_MS = 20;

export interface WorkerOptions {
  kv: Deno.Kv;
  clock: Clock;
  log: Logger;
  leaseMs?: number;
  maxSleepMs?: number;
}

export function createJobWorker(deps: WorkerOptions): JobWorker {
  const { kv, clock, log } = deps;
  const leaseMs = deps.leaseMs ?? JOB_LEASE_MS;
  const maxSleepMs = deps.maxSleepMs ?? MAX_SLEEP_MS;
  const owner = `worker-${crypto.randomUUID().slice(0, 8)}`;
  const handlers = new Map<string, JobHandler>();
  const underWay = new Set<Promise<void>>();
  /** The claims of the jobs running now, so a stop with a deadline can release them. */
  const claims = new Set<JobClaim>();
  let stopping = false;
  let cron = false;
  let loop: Promise<void> | null = null;
  let lastCheckAt: Date | null = null;
  let wake: (() => void) | null = null;
  let sleepingUntil = Infinity;
  // Set when work arrives while the loop is not asleep (it may have listed jobs already), so
  // the loop looks again instead of sleeping through it.
  let nudged = false;
  const nudge = () => {
    nudged = true;
    wake?.();
  };
  let unlisten: (() => void) | null = null;

  function track(running: Promise<void>): Promise<void> {
    underWay.add(running);
    const done = () => {
      underWay.delete(running);
      // A free slot may let a job that was left waiting run now.
      nudge();
    };
    running.then(done, done);
    return running;
  }

  async function handle(message: unknown): Promise<void> {
    if (typeof message !== "object" || message === null) return;
    const kind = (message as JobMessage).kind;
    const handler = handlers.get(kind);
    if (!handler) throw new Error(`No handler for jobs of kind "${kind}"`);
    await handler(message as JobMessage);
  }

  /** Runs one claimed job to its end, renewing its lease while it runs. */
  async function run(claim: JobClaim): Promise<void> {
    claims.add(claim);
    try {
      await runClaimed(claim);
    } finally {
      claims.delete(claim);
    }
  }

  async function runClaimed(claim: JobClaim): Promise<void> {
    const renewal = setInterval(() => {
      renewJobLease(kv, claim, { now: clock.now().getTime(), leaseMs }).catch((error) =>
        log.warn("A job's lease could not be renewed", { id: claim.job.id, error: String(error) })
      );
    }, Math.max(1000, leaseMs / 3));
    try {
      await handle(claim.job.message);
      clearInterval(renewal);
      await completeJob(kv, claim);
    } catch (error) {
      clearInterval(renewal);
      const message = error instanceof Error ? error.message : String(error);
      const stored = await failJob(kv, claim, { error: message, now: clock.now() });
      reportFailure(claim.job, stored, message);
    }
  }

  function reportFailure(job: Job, stored: Job | null, error: string) {
    const fields = { id: job.id, kind: job.kind, attempt: job.attempt, error };
    if (stored?.state === "dead") {
      log.error("A job failed its last attempt and was dead-lettered", fields);
    } else {
      log.warn("A job failed; it will run again", {
        ...fields,
        retryAt: stored ? new Date(stored.dueAt).toISOString() : null,
      });
    }
  }

  async function runDue(): Promise<number> {
    let started = 0;
    lastCheckAt = clock.now();
    while (!stopping && underWay.size < CONCURRENCY) {
      const now = clock.now().getTime();
      const refs: DueRef[] = await listDueJobs(kv, now, CONCURRENCY - underWay.size);
      if (refs.length === 0) break;
      let claimed = 0;
      for (const ref of refs) {
        if (stopping) break;
        const claim = await claimJob(kv, ref, { now, leaseMs, owner });
        if (!claim) continue;
        claimed++;
        started++;
        track(
          run(claim).catch((error) =>
            log.error("A job could not be ended", { id: claim.job.id, error: String(error) })
          ),
        );
      }
      // Every due job was taken by someone else meanwhile: look again later, not in a spin.
      if (claimed === 0) break;
    }
    return started;
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      sleepingUntil = clock.now().getTime() + ms;
      function done() {
        clearTimeout(timer);
        wake = null;
        sleepingUntil = Infinity;
        resolve();
      }
      wake = done;
    });
  }

  async function runLoop(): Promise<void> {
    unlisten = onJobsCommitted((dueAt) => {
      if (dueAt < sleepingUntil) nudge();
    });
    while (!stopping) {
      nudged = false;
      let next: number | null = null;
      try {
        await runDue();
        next = await nextDueAt(kv);
      } catch (error) {
        if (stopping) break;
        log.error("The job worker could not read its jobs; trying again", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      if (stopping) break;
      if (nudged) continue;
      const wait = next === null ? maxSleepMs : next - clock.now().getTime();
      // A due job not taken because every slot is busy waits for a slot to free (which wakes
      // the loop); one another worker was taking as we looked is looked at again shortly.
      const busy = underWay.size >= CONCURRENCY;
      await sleep(Math.min(busy ? maxSleepMs : Math.max(wait, MIN_SLEEP_MS), maxSleepMs));
    }
  }

  return {
    on(kind, handler) {
      if (handlers.has(kind)) throw new Error(`Job kind "${kind}" already has a handler`);
      handlers.set(kind, handler);
    },
    dispatch(message) {
      return track(handle(message));
    },
    runDue,
    async drain(budgetMs = 50_000) {
      const deadline = Date.now() + budgetMs;
      let total = 0;
      while (!stopping && Date.now() < deadline) {
        const started = await runDue();
        total += started;
        if (started === 0 && underWay.size === 0) break;
        if (underWay.size > 0) await Promise.race(underWay);
      }
      while (underWay.size > 0) await Promise.allSettled([...underWay]);
      return total;
    },
    start() {
      loop ??= runLoop().catch((error) => {
        log.error("The job worker stopped", { error: String(error) });
      }).finally(() => {
        unlisten?.();
        loop = null;
      });
    },
    cronRegistered() {
      cron = true;
    },
    async settled() {
      for (;;) {
        while (underWay.size > 0) await Promise.allSettled([...underWay]);
        if (!loop || stopping) return;
        const due = await listDueJobs(kv, clock.now().getTime(), 1);
        if (due.length === 0 && underWay.size === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    async stop(close, options = {}) {
      stopping = true;
      wake?.();
      await loop;
      const deadline = options.graceMs === undefined ? Infinity : Date.now() + options.graceMs;
      while (underWay.size > 0 && Date.now() < deadline) {
        const left = deadline - Date.now();
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          Promise.allSettled([...underWay]),
          ...(Number.isFinite(left)
            ? [new Promise((resolve) => timer = setTimeout(resolve, left))]
            : []),
        ]);
        clearTimeout(timer);
      }
      const now = clock.now().getTime();
      const released = await Promise.allSettled(
        [...claims].map((claim) => releaseJob(kv, claim, { now })),
      );
      const count = released.filter((r) => r.status === "fulfilled" && r.value).length;
      if (count > 0) log.info("Released jobs still running at stop", { count });
      close();
    },
    status() {
      return {
        mode: loop ? "loop" : cron ? "cron" : "off",
        running: loop !== null,
        lastCheckAt: lastCheckAt?.toISOString() ?? null,
        busy: underWay.size,
      };
    },
  };
}
