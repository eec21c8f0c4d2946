/**
 * The job worker: runs the live layer's jobs (src/store/jobs.ts) on any Deno KV. Each job kind
 * has one handler, registered by the part that owns it. Handlers are idempotent: a job runs
 * at least once (a crash after its effect and before its end makes it run again once its
 * lease ends), so each handler checks what is already done.
 *
 * Two drivers share one `runDue`: the local loop (`start`), which sleeps until the next due
 * job and wakes at once when this instance commits new work, and `drain`, which Deno.cron
 * calls every minute where isolates stop when idle. Several instances share the work: a job
 * is claimed with a lease before it runs. Which due jobs are claimed first is fair across
 * tenants (src/live/fairness.ts); the due index keeps one tenant's backlog apart
 * (src/store/job_index.ts).
 */
import {
  type Job,
  JOB_LEASE_MS,
  JobDeferred,
  type JobMessage,
  type JobTag,
  tagOf,
} from "../domain/jobs.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import {
  claimJobs,
  createJobEnds,
  type JobClaim,
  nextDueAt,
  onJobsCommitted,
  releaseJob,
  renewJobLease,
} from "../store/jobs.ts";
import { nextDueAfter, oldestDueAt } from "../store/job_index.ts";
import { createDueWork } from "./due_work.ts";
import { createUsageMeter, DEFAULT_LIMITS, type FairnessLimits, runningOf } from "./fairness.ts";

/**
 * What a handler is told beside its message: `signal` aborts when the worker cuts the run
 * short (an outbound attempt of a heavy party while a light party's waits for its slot).
 */
export interface JobContext {
  signal: AbortSignal;
}

export type JobHandler = (message: JobMessage, context: JobContext) => Promise<void>;

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
  /** When this worker last started a job (ISO), or null. */
  lastClaimAt: string | null;
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

/**
 * Longest sleep of the loop: it also looks for work other instances scheduled (their commits
 * wake only their own loops), so an idle instance helps a busy one within this long.
 */
const MAX_SLEEP_MS = 10_000;
/** Shortest sleep, so a job that cannot be claimed right now is not looked at in a spin. */
const MIN_SLEEP_MS = 20;
/** The sleep after the worker could not read its jobs (a busy database): look again soon. */
const ERROR_SLEEP_MS = 500;
/** Looks per `runDue` at most (each claims or parks something, or it stops). */
const MAX_LOOKS = 200;
/** Tries to end a run (a commit that failed on a busy database is tried again). */
const END_TRIES = 12;

export interface WorkerOptions {
  kv: Deno.Kv;
  clock: Clock;
  log: Logger;
  leaseMs?: number;
  maxSleepMs?: number;
  /** Slots and fairness limits (tests shrink them). */
  limits?: Partial<FairnessLimits>;
}

/** A job running here: its tag, start, and the signal that cuts it short. */
interface Run {
  tag: JobTag;
  startedAt: number;
  controller: AbortController;
  cut: boolean;
}

export function createJobWorker(deps: WorkerOptions): JobWorker {
  const { kv, clock, log } = deps;
  const leaseMs = deps.leaseMs ?? JOB_LEASE_MS;
  const maxSleepMs = deps.maxSleepMs ?? MAX_SLEEP_MS;
  const limits: FairnessLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  const owner = `worker-${crypto.randomUUID().slice(0, 8)}`;
  const handlers = new Map<string, JobHandler>();
  const underWay = new Set<Promise<void>>();
  /**
   * The claims of the jobs running now with their tags: what fairness counts, and what a stop
   * with a deadline releases.
   */
  const claims = new Map<JobClaim, Run>();
  /** The slot time each tenant, account and destination held here lately (fairness). */
  const meter = createUsageMeter();
  const dueWork = createDueWork(kv, limits);
  /** Runs that end in the same turn are ended in one commit (src/store/jobs.ts). */
  const ends = createJobEnds(kv);
  /** Set by a look that left due jobs for a local limit: only a finished job here frees them. */
  let blocked = false;
  let stopping = false;
  let cron = false;
  let loop: Promise<void> | null = null;
  let lastCheckAt: Date | null = null;
  let lastClaimAt: Date | null = null;
  let wake: (() => void) | null = null;
  /**
   * When a light party's outbound job waits and no attempt can be cut short yet: when the
   * first one can (Date.now() time); the loop looks again then instead of sleeping on.
   */
  let nextCutAt: number | null = null;
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

  async function handle(message: unknown, signal: AbortSignal): Promise<void> {
    if (typeof message !== "object" || message === null) return;
    const kind = (message as JobMessage).kind;
    const handler = handlers.get(kind);
    if (!handler) throw new Error(`No handler for jobs of kind "${kind}"`);
    await handler(message as JobMessage, { signal });
  }

  /** Runs one claimed job to its end, renewing its lease while it runs. */
  async function run(claim: JobClaim): Promise<void> {
    const tag = claim.job.tag ?? tagOf(claim.job.message);
    const startedAt = Date.now();
    const controller = new AbortController();
    claims.set(claim, { tag, startedAt, controller, cut: false });
    try {
      await runClaimed(claim, controller.signal);
    } finally {
      claims.delete(claim);
      meter.record(tag, Date.now() - startedAt, Date.now());
    }
  }

  /**
   * Ends a run, trying again while its commit fails (a busy database): a run that ended but
   * could not say so would keep its job running until its lease ran out, a minute with nothing
   * done. The lease is still renewed meanwhile.
   */
  async function endRun(claim: JobClaim, end: () => Promise<unknown>): Promise<void> {
    for (let attempt = 1;; attempt++) {
      try {
        await end();
        return;
      } catch (error) {
        if (attempt >= END_TRIES) throw error;
        if (attempt === 1) {
          log.warn("A job's end could not be stored; trying again", {
            id: claim.job.id,
            error: error instanceof Error ? error.message : String(error),
          });
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 2_000)));
      }
    }
  }

  async function runClaimed(claim: JobClaim, signal: AbortSignal): Promise<void> {
    const renewal = setInterval(() => {
      renewJobLease(kv, claim, { now: clock.now().getTime(), leaseMs }).catch((error) =>
        log.warn("A job's lease could not be renewed", { id: claim.job.id, error: String(error) })
      );
    }, Math.max(1000, leaseMs / 3));
    let end: () => Promise<unknown>;
    try {
      await handle(claim.job.message, signal);
      end = () => ends.complete(claim);
    } catch (error) {
      if (error instanceof JobDeferred) {
        const until = error.untilMs;
        end = () => ends.release(claim, { now: clock.now().getTime(), until });
      } else {
        const message = error instanceof Error ? error.message : String(error);
        end = async () => {
          const stored = await ends.fail(claim, { error: message, now: clock.now() });
          reportFailure(claim.job, stored, message);
        };
      }
    }
    try {
      await endRun(claim, end);
    } finally {
      clearInterval(renewal);
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

  /** One look (src/live/due_work.ts) and the claims it picked, each started as it is claimed. */
  async function look(
    now: number,
  ): Promise<{ started: number; parked: number; left: boolean; again: boolean }> {
    const runs = [...claims.values()];
    const usage = meter.usage(Date.now(), runs);
    const seen = await dueWork.look(
      now,
      runningOf(runs.map((run) => run.tag), underWay.size),
      usage,
    );
    nextCutAt = seen.lightWaiting ? cutHeavyAttempt(usage) : null;
    let started = 0;
    // The picks are claimed together (one read and one commit), then started.
    const picked = stopping ? [] : await claimJobs(kv, seen.picks, { now, leaseMs, owner });
    for (const claim of picked) {
      if (!claim) continue;
      started++;
      lastClaimAt = clock.now();
      track(
        run(claim).catch((error) =>
          log.error("A job could not be ended", { id: claim.job.id, error: String(error) })
        ),
      );
    }
    // Another look now can start more only if this one moved entries, did not read all that
    // is due, or lost picks to another worker; otherwise it would read the same entries again.
    const again = seen.parked > 0 || seen.unseen || started < seen.picks.length;
    return { started, parked: seen.parked, left: seen.left, again };
  }

  /**
   * A light party's outbound job waits for a slot that attempts of heavy parties hold: the
   * oldest such attempt that has run `heavyMs` (5 s) is cut short (its handler's signal aborts;
   * a webhook attempt then fails as unanswered, and its host's pause counts it), one per look.
   * So that job waits about `heavyMs` behind attempts to hosts not yet known to be silent,
   * instead of their whole 10 s timeout (docs/live_layer.md, "The bound, outbound").
   */
  function cutHeavyAttempt(usage: ReturnType<typeof meter.usage>): number | null {
    const now = Date.now();
    let oldest: Run | null = null;
    /** When the first outbound run that cannot be cut yet will have run `heavyMs`. */
    let soonest: number | null = null;
    for (const run of claims.values()) {
      if (run.tag.cls !== "outbound" || run.cut) continue;
      if (now - run.startedAt < limits.heavyMs || usage(run.tag) < limits.heavyMs) {
        const at = run.startedAt + limits.heavyMs;
        if (at > now && (soonest === null || at < soonest)) soonest = at;
        continue;
      }
      if (!oldest || run.startedAt < oldest.startedAt) oldest = run;
    }
    if (!oldest) return soonest;
    oldest.cut = true;
    oldest.controller.abort();
    log.info("An outbound attempt was cut short: a light party's job waits for its slot", {
      tenant: oldest.tag.tenant,
      destination: oldest.tag.destination ?? null,
      ranMs: now - oldest.startedAt,
    });
    return null;
  }

  async function runDue(): Promise<number> {
    let started = 0;
    lastCheckAt = clock.now();
    blocked = false;
    for (let looks = 0; looks < MAX_LOOKS && !stopping; looks++) {
      if (underWay.size >= limits.slots) {
        blocked = true;
        break;
      }
      const seen = await look(clock.now().getTime());
      started += seen.started;
      // Nothing claimed and nothing moved: what is due waits for a slot here (or was taken by
      // another worker as we looked).
      if ((seen.started === 0 && seen.parked === 0) || !seen.again) {
        blocked = seen.left;
        break;
      }
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
      // Work due before the planned wake, or due already (the clock may have moved on).
      if (dueAt < sleepingUntil || dueAt <= clock.now().getTime()) nudge();
    });
    while (!stopping) {
      nudged = false;
      let next: number | null = null;
      let failed = false;
      try {
        await runDue();
        // Due jobs left for a local limit wait for a job here to finish (which wakes the
        // loop); otherwise the next due job, or one another worker was taking as we looked.
        next = blocked ? await nextDueAfter(kv, clock.now().getTime()) : await nextDueAt(kv);
      } catch (error) {
        if (stopping) break;
        failed = true;
        log.error("The job worker could not read its jobs; trying again", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      if (stopping) break;
      if (nudged) continue;
      // A failed read is tried again soon: sleeping a minute on a busy database would leave
      // every due job waiting that long.
      const due = failed
        ? ERROR_SLEEP_MS
        : next === null
        ? maxSleepMs
        : next - clock.now().getTime();
      const wait = nextCutAt === null ? due : Math.min(due, nextCutAt - Date.now());
      await sleep(Math.min(Math.max(wait, MIN_SLEEP_MS), maxSleepMs));
    }
  }

  return {
    on(kind, handler) {
      if (handlers.has(kind)) throw new Error(`Job kind "${kind}" already has a handler`);
      handlers.set(kind, handler);
    },
    dispatch(message) {
      return track(handle(message, new AbortController().signal));
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
        const due = await oldestDueAt(kv, clock.now().getTime());
        if (due === null && underWay.size === 0) return;
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
        [...claims.keys()].map((claim) => releaseJob(kv, claim, { now })),
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
        lastClaimAt: lastClaimAt?.toISOString() ?? null,
      };
    },
  };
}
