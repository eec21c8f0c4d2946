/**
 * What new evidence does to a project's controls, for the ingest answer: the controls that
 * read the evidence types just sent, each with the state it had and the state the evaluator
 * gives it now that the records are stored. The controls are evaluated by the same code a
 * recompute runs, at the same instant, without storing anything: the recompute that the
 * ingest schedules stores (and publishes, and announces) the change as before.
 */
import type { EvidenceType } from "../domain/control.ts";
import type { IngestControlEffect } from "../domain/collector.ts";
import { evaluateProject, type RecomputeDeps } from "../live/recompute.ts";
import { listControlsByProject } from "../store/controls.ts";
import { readEvaluations } from "../store/evaluations.ts";

/**
 * The enabled controls of `projectId` that read one of `types`, in catalog order, each with
 * its stored state (null when it was never evaluated), its state at `now` with the stored
 * evidence, the reason and the record that decides it.
 */
export async function controlEffects(
  deps: RecomputeDeps,
  projectId: string,
  options: { types: readonly EvidenceType[]; now: Date },
): Promise<IngestControlEffect[]> {
  const types = new Set(options.types);
  const [controls, stored, evaluated] = await Promise.all([
    listControlsByProject(deps.kv, projectId),
    readEvaluations(deps.kv, projectId),
    evaluateProject(deps, projectId, options.now),
  ]);
  const reading = new Set(
    controls.filter((c) => c.evidenceType !== null && types.has(c.evidenceType)).map((c) => c.id),
  );
  const before = new Map(stored.evaluations.map((e) => [e.trustControlId, e.state]));
  return evaluated.filter((e) => reading.has(e.trustControlId)).map((e) => ({
    key: e.control.key,
    name: e.control.publicName,
    previousState: before.get(e.trustControlId) ?? null,
    state: e.state,
    reason: e.reason ?? null,
    evidenceRecordId: e.latestEvidenceRecordId,
  }));
}
