/**
 * The publish preview: evaluates the project now, exactly as a publish would,
 * and compares each control with the latest published version. Nothing is
 * stored, so asking is free of side effects.
 */
import type { PublishPreview } from "../domain/publish.ts";
import { summarizeStates } from "../evaluate/mod.ts";
import { evaluateProject, type RecomputeDeps } from "../live/recompute.ts";
import { listControlsByProject } from "../store/controls.ts";
import { getLatestPublication } from "../store/publications.ts";

/** What publishing `projectId` at `at` would change against its latest version. */
export async function previewPublication(
  deps: RecomputeDeps,
  projectId: string,
  at: Date,
): Promise<PublishPreview> {
  const [evaluations, latest] = await Promise.all([
    evaluateProject(deps, projectId, at),
    getLatestPublication(deps.kv, projectId),
  ]);
  const before = latest?.states ?? null;
  const controls: PublishPreview["controls"] = evaluations
    .filter((e) => before?.[e.control.key] !== e.state)
    .map((e) => ({
      key: e.control.key,
      name: e.control.publicName,
      from: before?.[e.control.key] ?? null,
      to: e.state,
      reason: e.reason,
    }));
  const now = new Set(evaluations.map((e) => e.control.key));
  const dropped = Object.keys(before ?? {}).filter((key) => !now.has(key));
  if (dropped.length > 0) {
    const names = new Map(
      (await listControlsByProject(deps.kv, projectId)).map((c) => [c.key, c.publicName]),
    );
    for (const key of dropped.sort()) {
      const name = names.get(key) ?? key;
      controls.push({
        key,
        name,
        from: before![key],
        to: null,
        reason: "Disabled: no longer published",
      });
    }
  }
  return {
    version: (latest?.version ?? 0) + 1,
    previousVersion: latest?.version ?? null,
    evaluatedAt: at.toISOString(),
    overallState: {
      from: latest?.overallState ?? null,
      to: summarizeStates(evaluations.map((e) => e.state)).overallState,
    },
    controls,
    unchangedCount: evaluations.length - (controls.length - dropped.length),
  };
}
