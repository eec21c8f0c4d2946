/**
 * The published form of a project's evaluations: SPEC.md's control fields plus why each
 * state was reached (the evaluator's reason), the evidence it was decided from (payload
 * checksum and observation time), the buyer group and "what this checks" from the probe
 * registry.
 */
import type { TrustControl } from "../domain/control.ts";
import type { ControlEvaluationSummary, PublishedTrustControl } from "../domain/publish.ts";
import { describeControl, groupOf } from "../evaluate/mod.ts";
import { listControlsByProject } from "../store/controls.ts";
import { getEvidenceMany } from "../store/evidence.ts";

/**
 * The controls to publish for `evaluations`, in their order. The evidence type (which
 * decides group and description) is the control's; for a control gone from the list since
 * it was evaluated, the type of its latest evidence record, else the heartbeat's.
 */
export async function publishedControls(
  kv: Deno.Kv,
  projectId: string,
  evaluations: readonly ControlEvaluationSummary[],
): Promise<PublishedTrustControl[]> {
  const controls = new Map<string, TrustControl>(
    (await listControlsByProject(kv, projectId)).map((c) => [c.id, c]),
  );
  const recordIds = evaluations.map((e) => e.latestEvidenceRecordId)
    .filter((id): id is string => id !== null);
  const records = new Map(
    (await getEvidenceMany(kv, recordIds)).filter((r) => r !== null).map((r) => [r!.id, r!]),
  );
  return evaluations.map((e) => {
    const record = e.latestEvidenceRecordId === null
      ? undefined
      : records.get(e.latestEvidenceRecordId);
    const control = controls.get(e.trustControlId);
    const described = {
      evidenceType: control?.evidenceType ?? record?.evidenceType ?? null,
      rule: control?.rule ?? null,
    };
    return {
      key: e.control.key,
      category: e.control.category,
      name: e.control.publicName,
      state: e.state,
      confidence: e.confidence,
      latestEvidenceAt: e.latestEvidenceAt,
      freshUntil: e.freshUntil,
      nextCheckAt: e.nextCheckAt,
      reason: e.reason,
      evidence: {
        digest: record?.checksum ?? null,
        observedAt: record?.observedAt ?? e.latestEvidenceAt,
      },
      group: groupOf(described.evidenceType),
      description: describeControl(described),
      ...(control?.required === true ? { required: true as const } : {}),
    };
  });
}
