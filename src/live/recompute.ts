/**
 * Recompute: evaluate every enabled control of a project at one instant
 * from its latest observation, and persist the results. The cost depends
 * on the number of controls, never on how much evidence is stored: each
 * control reads one index entry and one payload.
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { ControlState, EvidenceType, TrustControl } from "../domain/control.ts";
import type { ControlEvaluationSummary } from "../domain/publish.ts";
import { evaluateControl, type Observation } from "../evaluate/mod.ts";
import { stableUuid } from "../lib/ids.ts";
import { listCollectorsByProject } from "../store/collectors.ts";
import { listControlsByProject } from "../store/controls.ts";
import { listEvaluationsByProject, replaceEvaluations } from "../store/evaluations.ts";
import { getLatestEvidence } from "../store/evidence.ts";

const MAX_ATTEMPTS = 5;

export interface RecomputeResult {
  evaluations: ControlEvaluationSummary[];
  /** Controls whose state differs from the stored evaluation (new controls included). */
  changed: Array<{ key: string; from: ControlState | null; to: ControlState }>;
  /** Earliest nextCheckAt of all controls, when some control will change by aging alone. */
  nextCheckAt: string | null;
}

async function evidenceObservation(
  kv: Deno.Kv,
  blobs: BlobStore,
  projectId: string,
  evidenceType: EvidenceType,
): Promise<Observation | null> {
  const record = await getLatestEvidence(kv, projectId, evidenceType);
  if (!record) return null;
  const bytes = await blobs.get(record.payloadS3Key);
  let payload: unknown = undefined;
  if (bytes) {
    try {
      payload = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      payload = undefined;
    }
  }
  return { at: record.observedAt, payload, evidenceRecordId: record.id };
}

async function heartbeatObservation(kv: Deno.Kv, projectId: string): Promise<Observation | null> {
  const seen = (await listCollectorsByProject(kv, projectId))
    .filter((c) => c.status === "active" && c.lastSeenAt !== null)
    .map((c) => c.lastSeenAt!)
    .sort();
  return seen.length ? { at: seen[seen.length - 1], evidenceRecordId: null } : null;
}

/** Evaluates the enabled controls of `projectId` at `at` and persists the results. */
export async function recomputeProject(
  deps: { kv: Deno.Kv; blobs: BlobStore },
  projectId: string,
  at: Date,
): Promise<RecomputeResult> {
  const { kv, blobs } = deps;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [controls, previous] = await Promise.all([
      listControlsByProject(kv, projectId),
      listEvaluationsByProject(kv, projectId),
    ]);
    const enabled = controls.filter((c) => c.enabled);
    const observations = new Map<string, Promise<Observation | null>>();
    const observe = (control: TrustControl) => {
      const stream = control.evidenceType ?? "collector";
      if (!observations.has(stream)) {
        observations.set(
          stream,
          control.evidenceType
            ? evidenceObservation(kv, blobs, projectId, control.evidenceType)
            : heartbeatObservation(kv, projectId),
        );
      }
      return observations.get(stream)!;
    };
    const evaluations: ControlEvaluationSummary[] = [];
    for (const control of enabled) {
      const observation = await observe(control);
      const result = evaluateControl(control, observation, at);
      evaluations.push({
        id: stableUuid("evaluation", projectId, control.id),
        projectId,
        trustControlId: control.id,
        state: result.state,
        confidence: result.confidence,
        latestEvidenceRecordId: observation?.evidenceRecordId ?? null,
        latestEvidenceAt: result.latestEvidenceAt,
        freshUntil: result.freshUntil,
        nextCheckAt: result.nextCheckAt,
        updatedAt: at.toISOString(),
        control: {
          id: control.id,
          key: control.key,
          category: control.category,
          publicName: control.publicName,
          enabled: control.enabled,
        },
        reason: result.reason,
      });
    }
    if (await replaceEvaluations(kv, projectId, previous, evaluations)) {
      const before = new Map(previous.map((e) => [e.value.trustControlId, e.value.state]));
      const changed = evaluations
        .filter((e) => before.get(e.trustControlId) !== e.state)
        .map((e) => ({
          key: e.control.key,
          from: before.get(e.trustControlId) ?? null,
          to: e.state,
        }));
      const checks = evaluations.map((e) => e.nextCheckAt).filter((t): t is string => t !== null);
      return { evaluations, changed, nextCheckAt: checks.sort()[0] ?? null };
    }
  }
  throw new Error("Evaluations changed concurrently on every attempt");
}

/** The stored evaluations of a project in catalog order. */
export async function listEvaluations(
  kv: Deno.Kv,
  projectId: string,
): Promise<ControlEvaluationSummary[]> {
  const [controls, entries] = await Promise.all([
    listControlsByProject(kv, projectId),
    listEvaluationsByProject(kv, projectId),
  ]);
  const order = new Map(controls.map((c, i) => [c.id, i]));
  return entries.map((e) => e.value)
    .sort((a, b) => (order.get(a.trustControlId) ?? 1e9) - (order.get(b.trustControlId) ?? 1e9));
}
