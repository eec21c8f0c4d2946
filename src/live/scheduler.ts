/**
 * Live re-evaluation through the Deno KV queue. After each recompute the
 * next one is scheduled at the earliest nextCheckAt, and new activity
 * schedules one shortly after (debounced): at most one recompute is pending
 * per project. Delivery is at least once, so handling is idempotent: a
 * redelivered or superseded message only repeats a recompute.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { Project } from "../domain/workspace.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import {
  clearPendingRecompute,
  enqueueRecompute,
  getPendingRecompute,
  isRecomputeMessage,
  type RecomputeMessage,
} from "../store/recompute_queue.ts";
import { getProject } from "../store/projects.ts";
import type { QueueConsumer } from "./queue.ts";
import { recomputeProject, type RecomputeResult } from "./recompute.ts";

/** New activity is evaluated this long after it arrives, so a burst costs one recompute. */
export const ACTIVITY_DEBOUNCE_MS = 2000;
/** Longest queue delay used; a later check is reached in several hops. */
const MAX_DELAY_MS = 7 * 24 * 3600 * 1000;
/** A pending marker this far past due is taken as lost and replaced. */
const LOST_AFTER_MS = 5 * 60 * 1000;

/** Called after every recompute, e.g. to publish a new version when states changed. */
export type RecomputeListener = (project: Project, result: RecomputeResult) => Promise<void>;

export interface Scheduler {
  /** Recomputes now, schedules the next check and tells the listener. */
  recompute(projectId: string): Promise<RecomputeResult | null>;
  /** Ensures a recompute runs no later than `dueAt` (epoch ms). */
  schedule(projectId: string, dueAt: number): Promise<void>;
  /** Schedules a debounced recompute after new activity. */
  notify(projectId: string): Promise<void>;
  /** Sets the listener called after each recompute. */
  onRecomputed(listener: RecomputeListener): void;
}

/** The scheduler; it handles the queue's "recompute" messages. */
export function createScheduler(
  deps: { kv: Deno.Kv; blobs: BlobStore; clock: Clock; log: Logger; queue: QueueConsumer },
): Scheduler {
  const { kv, clock, log } = deps;
  let listener: RecomputeListener = () => Promise.resolve();

  async function schedule(projectId: string, dueAt: number): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = clock.now().getTime();
      const pending = await getPendingRecompute(kv, projectId);
      if (
        pending.value && pending.value.dueAt <= dueAt && pending.value.dueAt > now - LOST_AFTER_MS
      ) return;
      const delay = Math.min(Math.max(0, dueAt - now), MAX_DELAY_MS);
      const message: RecomputeMessage = { kind: "recompute", projectId, dueAt: now + delay };
      if (await enqueueRecompute(kv, pending, { message, delayMs: delay })) return;
    }
  }

  async function recompute(projectId: string): Promise<RecomputeResult | null> {
    const project = await getProject(kv, projectId);
    if (!project) return null;
    const result = await recomputeProject(deps, projectId, clock.now());
    if (result.nextCheckAt) await schedule(projectId, Date.parse(result.nextCheckAt));
    try {
      await listener(project, result);
    } catch (error) {
      // The evaluations are stored; a failing follow-up (an automatic publish) is its own job.
      log.error("After-recompute step failed", {
        projectId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
    return result;
  }

  async function handle(message: unknown): Promise<void> {
    if (!isRecomputeMessage(message)) return;
    await clearPendingRecompute(kv, message);
    try {
      await recompute(message.projectId);
    } catch (error) {
      log.error("Scheduled recompute failed; the queue will redeliver it", {
        projectId: message.projectId,
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  }

  deps.queue.on("recompute", handle);
  return {
    recompute,
    schedule,
    notify: (projectId) => schedule(projectId, clock.now().getTime() + ACTIVITY_DEBOUNCE_MS),
    onRecomputed(next) {
      listener = next;
    },
  };
}
