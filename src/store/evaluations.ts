/**
 * Stored control evaluations: one per enabled control of a project,
 * replaced as a whole by each recompute.
 */
import type { ControlEvaluationSummary } from "../domain/publish.ts";
import { evaluationKey, evaluationsOfProjectPrefix } from "./keys.ts";

export async function listEvaluationsByProject(
  kv: Deno.Kv,
  projectId: string,
): Promise<Deno.KvEntry<ControlEvaluationSummary>[]> {
  const entries: Deno.KvEntry<ControlEvaluationSummary>[] = [];
  for await (
    const entry of kv.list<ControlEvaluationSummary>({
      prefix: evaluationsOfProjectPrefix(projectId),
    })
  ) entries.push(entry);
  return entries;
}

/**
 * Replaces the project's evaluations with `next` in one atomic, checked
 * against the entries read before (`previous`), so two concurrent
 * recomputes cannot interleave. Returns false when the check failed.
 */
export async function replaceEvaluations(
  kv: Deno.Kv,
  projectId: string,
  previous: Deno.KvEntry<ControlEvaluationSummary>[],
  next: ControlEvaluationSummary[],
): Promise<boolean> {
  const op = kv.atomic();
  const keep = new Set(next.map((e) => e.trustControlId));
  const existed = new Set(previous.map((e) => e.value.trustControlId));
  for (const entry of previous) {
    op.check(entry);
    if (!keep.has(entry.value.trustControlId)) op.delete(entry.key);
  }
  for (const evaluation of next) {
    const key = evaluationKey(projectId, evaluation.trustControlId);
    if (!existed.has(evaluation.trustControlId)) op.check({ key, versionstamp: null });
    op.set(key, evaluation);
  }
  return (await op.commit()).ok;
}
