/**
 * Live re-evaluation through the job store. Each project has at most one recompute job (a
 * unique job whose id is derived from the project's): after each recompute the next one is
 * due at the earliest nextCheckAt, and new activity brings it forward: to now after a quiet
 * spell, else to shortly after now (debounced). A job runs at least once, so handling is idempotent: running it again only
 * repeats a recompute.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { JobMessage } from "../domain/jobs.ts";
import type { Project } from "../domain/workspace.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { scheduleUniqueJob } from "../store/jobs.ts";
import { getProject } from "../store/projects.ts";
import { recomputeProject, type RecomputeResult } from "./recompute.ts";
import type { JobWorker } from "./worker.ts";

/**
 * Activity within this long of the project's previous activity is evaluated this long after it
 * arrives (debounced), so records sent one after another cost one more recompute, not one each;
 * activity after a quieter spell is evaluated at once (the debounce's leading edge: a lone
 * change is not held, docs/edge.md "The leading edge"); activity during a recompute asks for
 * one more run after it (not one each).
 */
export const ACTIVITY_DEBOUNCE_MS = 200;

/** The job that recomputes one project; `organizationId` makes it that tenant's work. */
export interface RecomputeMessage extends JobMessage {
  kind: "recompute";
  projectId: string;
  organizationId?: string;
}

/** Projects whose organization is remembered (a project never changes organization). */
const KNOWN_ORGANIZATIONS = 10_000;

/** The id of a project's one recompute job. */
export const recomputeJobId = (projectId: string) => `recompute.${projectId}`;

/** Called after every recompute, e.g. to publish a new version when states changed. */
export type RecomputeListener = (project: Project, result: RecomputeResult) => Promise<void>;

export interface Scheduler {
  /** Recomputes now, schedules the next check and tells the listener. */
  recompute(projectId: string): Promise<RecomputeResult | null>;
  /** Ensures a recompute runs no later than `dueAt` (epoch ms). */
  schedule(projectId: string, dueAt: number): Promise<void>;
  /** Schedules the recompute after new activity: at once after a quiet spell, else debounced. */
  notify(projectId: string): Promise<void>;
  /** Sets the listener called after each recompute. */
  onRecomputed(listener: RecomputeListener): void;
}

/** The scheduler; it handles the "recompute" jobs. */
export function createScheduler(
  deps: { kv: Deno.Kv; blobs: BlobStore; clock: Clock; log: Logger; jobs: JobWorker },
): Scheduler {
  const { kv, clock, log } = deps;
  let listener: RecomputeListener = () => Promise.resolve();
  const organizations = new Map<string, string>();
  /** Each project's last activity on this instance (epoch ms), for the leading edge. */
  const lastActivity = new Map<string, number>();

  /** Schedules the recompute after activity: at once after a quiet spell, else debounced. */
  function notify(projectId: string): Promise<void> {
    const now = clock.now().getTime();
    const last = lastActivity.get(projectId);
    if (lastActivity.size >= KNOWN_ORGANIZATIONS) lastActivity.clear();
    lastActivity.set(projectId, now);
    const quiet = last === undefined || now - last >= ACTIVITY_DEBOUNCE_MS;
    return schedule(projectId, quiet ? now : now + ACTIVITY_DEBOUNCE_MS);
  }

  /** The project's organization: read once, then remembered. */
  async function organizationOf(projectId: string): Promise<string | undefined> {
    const known = organizations.get(projectId);
    if (known) return known;
    const organizationId = (await getProject(kv, projectId))?.organizationId;
    if (organizationId) {
      if (organizations.size >= KNOWN_ORGANIZATIONS) organizations.clear();
      organizations.set(projectId, organizationId);
    }
    return organizationId;
  }

  async function schedule(projectId: string, dueAt: number): Promise<void> {
    const organizationId = await organizationOf(projectId);
    const message: RecomputeMessage = {
      kind: "recompute",
      projectId,
      ...(organizationId ? { organizationId } : {}),
    };
    await scheduleUniqueJob(kv, recomputeJobId(projectId), { message, dueAt, now: clock.now() });
  }

  /**
   * Recomputes and runs the follow-up. A failed follow-up is thrown from a job (which then
   * runs again); from a request, the stored evaluations are answered and a job is scheduled
   * to try the follow-up again.
   */
  async function recompute(
    projectId: string,
    options: { inJob?: boolean } = {},
  ): Promise<RecomputeResult | null> {
    const project = await getProject(kv, projectId);
    if (!project) return null;
    const result = await recomputeProject(deps, projectId, clock.now());
    if (result.nextCheckAt) await schedule(projectId, Date.parse(result.nextCheckAt));
    try {
      await listener(project, result);
    } catch (error) {
      // The evaluations are stored; the follow-up (an automatic publish) failed. Its next
      // recompute sees the published states still behind, and publishes.
      log.error("After-recompute step failed", {
        projectId,
        error: error instanceof Error ? error.message : String(error),
      });
      if (options.inJob) throw error;
      await schedule(projectId, clock.now().getTime() + ACTIVITY_DEBOUNCE_MS);
    }
    return result;
  }

  deps.jobs.on("recompute", async (message) => {
    const { projectId } = message as RecomputeMessage;
    if (typeof projectId !== "string") return;
    await recompute(projectId, { inJob: true });
  });
  return {
    recompute: (projectId) => recompute(projectId),
    schedule,
    notify,
    onRecomputed(next) {
      listener = next;
    },
  };
}
