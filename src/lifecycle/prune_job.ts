/**
 * The pruning job of a project (`retention.prune`, one unique job per project carrying its
 * organization): each run prunes up to RUN_RECORDS records (src/lifecycle/retention.ts), is due
 * again a second later while its run goes on, and a day after the run ends. The recompute that
 * follows new evidence makes sure the job exists.
 */
import type { JobMessage } from "../domain/jobs.ts";
import type { Project } from "../domain/workspace.ts";
import type { Logger } from "../lib/log.ts";
import type { JobWorker } from "../live/worker.ts";
import { scheduleUniqueJob } from "../store/jobs.ts";
import { getProject } from "../store/projects.ts";
import { DAY_MS, pruneProject, type RetentionDeps } from "./retention.ts";

/** The job kind of a project's pruning, and the id of its one job. */
export const PRUNE_JOB = "retention.prune";
export const pruneJobId = (projectId: string) => `prune.${projectId}`;

export interface PruneMessage extends JobMessage {
  kind: typeof PRUNE_JOB;
  projectId: string;
  organizationId: string;
}

/**
 * Ensures the project's pruning job is due no later than `dueAt` (default a day from now): the
 * recompute that follows new evidence calls it, so every project with evidence is pruned daily.
 */
export async function schedulePruning(
  kv: Deno.Kv,
  project: Pick<Project, "id" | "organizationId">,
  options: { now: Date; dueAt?: number },
): Promise<void> {
  const message: PruneMessage = {
    kind: PRUNE_JOB,
    projectId: project.id,
    organizationId: project.organizationId,
  };
  await scheduleUniqueJob(kv, pruneJobId(project.id), {
    message,
    dueAt: options.dueAt ?? options.now.getTime() + DAY_MS,
    now: options.now,
  });
}

/** Registers the pruning job: a run's share, then again soon until it ends, then a day later. */
export function registerPruning(deps: RetentionDeps & { jobs: JobWorker; log: Logger }): void {
  deps.jobs.on(PRUNE_JOB, async (message) => {
    const { projectId } = message as PruneMessage;
    if (typeof projectId !== "string") return;
    const project = await getProject(deps.kv, projectId);
    if (!project) return;
    const result = await pruneProject(deps, project);
    const now = deps.clock.now();
    const dueAt = now.getTime() + (result.complete ? DAY_MS : 1_000);
    await schedulePruning(deps.kv, project, { now, dueAt });
    if (result.complete && result.pruned.records > 0) {
      deps.log.info("Pruned evidence", { projectId, ...result.pruned });
    }
  });
}
