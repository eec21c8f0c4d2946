/**
 * The per-project control catalog.
 */
import type { TrustControl } from "../domain/control.ts";
import { DEFAULT_CATALOG } from "../evaluate/catalog.ts";
import { controlByKeyKey, controlKey, controlsOfProjectPrefix } from "./keys.ts";

/** The default catalog as fresh control records for a new project. */
export function defaultControls(now: Date): TrustControl[] {
  return DEFAULT_CATALOG.map((entry) => ({
    id: crypto.randomUUID(),
    key: entry.key,
    category: entry.category,
    publicName: entry.publicName,
    freshnessPolicyJson: entry.freshness,
    degradationPolicyJson: entry.degradation,
    enabled: true,
    createdAt: now.toISOString(),
    evidenceType: entry.evidenceType,
    rule: null,
  }));
}

/** Adds the writes that seed `controls` into `projectId` to an atomic operation. */
export function seedControls(
  op: Deno.AtomicOperation,
  projectId: string,
  controls: TrustControl[],
): Deno.AtomicOperation {
  for (const control of controls) {
    op.check({ key: controlByKeyKey(projectId, control.key), versionstamp: null })
      .set(controlKey(projectId, control.id), control)
      .set(controlByKeyKey(projectId, control.key), control.id);
  }
  return op;
}

/** The project's controls in catalog order (default entries first, then custom by creation). */
export async function listControlsByProject(
  kv: Deno.Kv,
  projectId: string,
): Promise<TrustControl[]> {
  const controls: TrustControl[] = [];
  for await (const entry of kv.list<TrustControl>({ prefix: controlsOfProjectPrefix(projectId) })) {
    controls.push(entry.value);
  }
  const order = new Map(DEFAULT_CATALOG.map((entry, i) => [entry.key, i]));
  return controls.sort((a, b) =>
    (order.get(a.key) ?? order.size) - (order.get(b.key) ?? order.size) ||
    a.createdAt.localeCompare(b.createdAt) || a.key.localeCompare(b.key)
  );
}
