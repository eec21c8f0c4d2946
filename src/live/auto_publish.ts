/**
 * The automatic publish policy: with `autoPublish` on and at least one earlier publication,
 * a recompute whose states differ from the latest version's asks for a new version, which is
 * made only if they still differ at the publication instant (decided under the publish
 * lease). Comparing with the latest version rather than with the previous recompute makes
 * the policy heal itself: a publish that failed is made by the next recompute (the job is
 * retried), and a recompute that runs twice, or on two instances, makes one version. A project
 * whose (or whose organization's) deletion is scheduled is skipped: `publishIfChanged` makes no
 * version of it (src/publish/publish.ts).
 */
import { sameStates } from "../domain/publication.ts";
import type { Project } from "../domain/workspace.ts";
import { getLatestPublicationEntry, getPublication } from "../store/publications.ts";
import type { RecomputeListener } from "./scheduler.ts";

/** The listener a scheduler calls after each recompute. */
export function autoPublishAfterRecompute(
  deps: { kv: Deno.Kv; publishIfChanged: (project: Project) => Promise<unknown> },
): RecomputeListener {
  return async (project, result) => {
    if (!project.autoPublish) return;
    const latest = await getLatestPublicationEntry(deps.kv, project.id);
    if (!latest.value) return;
    const published = await getPublication(deps.kv, project.id, latest.value);
    const now = result.evaluations.map((e) => ({ key: e.control.key, state: e.state }));
    if (!sameStates(published?.states ?? {}, now)) await deps.publishIfChanged(project);
  };
}
