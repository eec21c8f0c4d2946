/**
 * Recompute: evaluate every enabled control of a project at one instant
 * from its latest observation, and persist the results. The cost depends
 * on the number of controls, never on how much evidence is stored: each
 * control reads one index entry and one payload (vulnerability scans also
 * read the project's latest VEX documents, at most `MAX_VEX_DOCUMENTS`).
 */
import type { BlobStore } from "../blobs/mod.ts";
import type { ControlState, EvidenceType, TrustControl } from "../domain/control.ts";
import type { ControlEvaluationSummary } from "../domain/publish.ts";
import {
  evaluateControl,
  inCatalogOrder,
  MAX_VEX_DOCUMENTS,
  type Observation,
  type VexEvidence,
} from "../evaluate/mod.ts";
import { stableUuid } from "../lib/ids.ts";
import { listCollectorsByProject } from "../store/collectors.ts";
import { listControlsByProject } from "../store/controls.ts";
import { readEvaluations, storeEvaluations } from "../store/evaluations.ts";
import { getLatestEvidence, listLatestVexEvidence } from "../store/evidence.ts";
import type { SigstoreIdentity, SubjectRule } from "../domain/sigstore.ts";
import { loadSubjectRule } from "../ingest/subject_rule.ts";
import { claimsSignature, loadSigstoreVerifier } from "../sigstore/load.ts";
import { getSigstoreIdentities } from "../store/sigstore_identities.ts";

/** What recompute reads: storage, and the Sigstore trusted root (absent: the shipped one). */
export interface RecomputeDeps {
  kv: Deno.Kv;
  blobs: BlobStore;
  config?: { sigstoreTrustedRoot: Record<string, unknown> | null };
}

export interface RecomputeResult {
  evaluations: ControlEvaluationSummary[];
  /** Controls whose state differs from the stored evaluation (new controls included). */
  changed: Array<{ key: string; from: ControlState | null; to: ControlState }>;
  /** Earliest nextCheckAt of all controls, when some control will change by aging alone. */
  nextCheckAt: string | null;
}

/**
 * The latest observation of one evidence type. A payload that claims a signature is
 * verified here, where crypto is allowed, and the check travels with the observation
 * into the pure evaluator; `signers` reads the project's expected signers and provenance
 * subject rule on demand.
 */
async function evidenceObservation(
  deps: RecomputeDeps,
  projectId: string,
  evidenceType: EvidenceType,
  signers: () => Promise<[SigstoreIdentity[], SubjectRule]>,
): Promise<Observation | null> {
  const { kv, blobs } = deps;
  const [record, vex] = await Promise.all([
    getLatestEvidence(kv, projectId, evidenceType),
    evidenceType === "vulnerability_scan" ? vexEvidence(kv, blobs, projectId) : [],
  ]);
  if (!record) return null;
  const payload = await readPayload(blobs, record.payloadS3Key);
  const signature = claimsSignature(payload)
    ? (await loadSigstoreVerifier(deps.config?.sigstoreTrustedRoot ?? null)).check(
      payload,
      ...await signers(),
    )
    : null;
  return { at: record.observedAt, payload, evidenceRecordId: record.id, vex, signature };
}

/** The project's latest VEX documents with their payloads, oldest first. */
async function vexEvidence(
  kv: Deno.Kv,
  blobs: BlobStore,
  projectId: string,
): Promise<VexEvidence[]> {
  const records = await listLatestVexEvidence(kv, projectId, MAX_VEX_DOCUMENTS);
  return await Promise.all(records.map(async (record) => ({
    payload: await readPayload(blobs, record.payloadS3Key),
    observedAt: record.observedAt,
    evidenceRecordId: record.id,
  })));
}

async function readPayload(blobs: BlobStore, key: string): Promise<unknown> {
  const bytes = await blobs.get(key);
  if (!bytes) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

async function heartbeatObservation(kv: Deno.Kv, projectId: string): Promise<Observation | null> {
  const seen = (await listCollectorsByProject(kv, projectId))
    .filter((c) => c.status === "active" && c.lastSeenAt !== null)
    .map((c) => c.lastSeenAt!)
    .sort();
  return seen.length ? { at: seen[seen.length - 1], evidenceRecordId: null } : null;
}

/**
 * Evaluates the enabled controls of `projectId` at `at`, without storing anything. `only`
 * narrows it to some of them (`controls`: the project's controls when the caller has read
 * them already): each control is evaluated from its own stream's observation, so only the
 * streams of those are read.
 */
export async function evaluateProject(
  deps: RecomputeDeps,
  projectId: string,
  at: Date,
  options: { controls?: TrustControl[]; only?: (control: TrustControl) => boolean } = {},
): Promise<ControlEvaluationSummary[]> {
  const { kv } = deps;
  let expected: Promise<[SigstoreIdentity[], SubjectRule]> | undefined;
  const signers = () =>
    expected ??= Promise.all([
      getSigstoreIdentities(kv, projectId),
      loadSubjectRule(kv, deps.blobs, projectId),
    ]);
  const enabled = inCatalogOrder(options.controls ?? await listControlsByProject(kv, projectId))
    .filter((c) => c.enabled && (options.only?.(c) ?? true));
  const observations = new Map<string, Promise<Observation | null>>();
  const observe = (control: TrustControl) => {
    const stream = control.evidenceType ?? "collector";
    if (!observations.has(stream)) {
      observations.set(
        stream,
        control.evidenceType
          ? evidenceObservation(deps, projectId, control.evidenceType, signers)
          : heartbeatObservation(kv, projectId),
      );
    }
    return observations.get(stream)!;
  };
  // Every stream's reads start at once (a remote KV answers each after a round trip); a failed
  // one is handled (no unhandled rejection while an earlier one is awaited) and thrown below.
  for (const control of enabled) observe(control).catch(() => {});
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
  return evaluations;
}

function earliestCheck(evaluations: ControlEvaluationSummary[]): string | null {
  const checks = evaluations.map((e) => e.nextCheckAt).filter((t): t is string => t !== null);
  return checks.sort()[0] ?? null;
}

/**
 * Evaluates the enabled controls of `projectId` at `at` and stores the
 * results, whatever the number of controls. Concurrent recomputes of one
 * project all succeed: each stores a whole snapshot, and `changed` is
 * measured against exactly the snapshot it replaced, so a change is reported
 * once. When a recompute evaluated later than `at` was stored meanwhile,
 * that newer one is kept and returned, with no changes reported.
 */
export async function recomputeProject(
  deps: RecomputeDeps,
  projectId: string,
  at: Date,
): Promise<RecomputeResult> {
  const evaluations = await evaluateProject(deps, projectId, at);
  const outcome = await storeEvaluations(deps.kv, projectId, { at, evaluations });
  if (!outcome.stored) {
    const newer = outcome.current.evaluations;
    return { evaluations: newer, changed: [], nextCheckAt: earliestCheck(newer) };
  }
  const before = new Map(outcome.previous.map((e) => [e.trustControlId, e.state]));
  const changed = evaluations
    .filter((e) => before.get(e.trustControlId) !== e.state)
    .map((e) => ({
      key: e.control.key,
      from: before.get(e.trustControlId) ?? null,
      to: e.state,
    }));
  return { evaluations, changed, nextCheckAt: earliestCheck(evaluations) };
}

/** The stored evaluations of a project in catalog order. */
export async function listEvaluations(
  kv: Deno.Kv,
  projectId: string,
): Promise<ControlEvaluationSummary[]> {
  const [controls, stored] = await Promise.all([
    listControlsByProject(kv, projectId),
    readEvaluations(kv, projectId),
  ]);
  const order = new Map(inCatalogOrder(controls).map((c, i) => [c.id, i]));
  return stored.evaluations
    .sort((a, b) => (order.get(a.trustControlId) ?? 1e9) - (order.get(b.trustControlId) ?? 1e9));
}
