/**
 * The automatic publish policy: with `autoPublish` on and at least one
 * earlier publication, a recompute that changes any state publishes a new
 * version by itself. A recompute that changes nothing publishes nothing, so
 * a queue message handled twice never makes two versions.
 */
import type { Project } from "../domain/workspace.ts";
import { getLatestPublicationEntry } from "../store/publications.ts";
import type { RecomputeListener } from "./scheduler.ts";

/** The listener a scheduler calls after each recompute; `publish` makes the next version. */
export function autoPublishAfterRecompute(
  deps: { kv: Deno.Kv; publish: (project: Project) => Promise<unknown> },
): RecomputeListener {
  return async (project, result) => {
    if (!project.autoPublish || result.changed.length === 0) return;
    if (!(await getLatestPublicationEntry(deps.kv, project.id)).value) return;
    await deps.publish(project);
  };
}
