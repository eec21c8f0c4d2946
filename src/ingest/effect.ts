/**
 * What new evidence does to a project's controls, for the ingest answer: the controls that
 * read the evidence types just sent, each with the state it had and the state the evaluator
 * gives it now that the records are stored. The controls are evaluated by the same code a
 * recompute runs, at the same instant, without storing anything: the recompute that the
 * ingest schedules stores (and publishes, and announces) the change as before.
 */
import type { EvidenceType, TrustControl } from "../domain/control.ts";
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
  const reads = (c: TrustControl) => c.evidenceType !== null && types.has(c.evidenceType);
  // Only the controls that read the types sent are evaluated (and only their evidence read):
  // over a remote KV each read is a request of its own.
  const [controls, stored] = await Promise.all([
    listControlsByProject(deps.kv, projectId),
    readEvaluations(deps.kv, projectId),
  ]);
  const evaluated = await evaluateProject(deps, projectId, options.now, { controls, only: reads });
  const before = new Map(stored.evaluations.map((e) => [e.trustControlId, e.state]));
  return evaluated.map((e) => ({
    key: e.control.key,
    name: e.control.publicName,
    previousState: before.get(e.trustControlId) ?? null,
    state: e.state,
    reason: e.reason ?? null,
    evidenceRecordId: e.latestEvidenceRecordId,
  }));
}
