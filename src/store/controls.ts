/**
 * The per-project control catalog.
 */
import type { TrustControl, UpdateControlRequest } from "../domain/control.ts";
import { conflict } from "../domain/errors.ts";
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

export async function getControl(
  kv: Deno.Kv,
  projectId: string,
  controlId: string,
): Promise<TrustControl | null> {
  return (await kv.get<TrustControl>(controlKey(projectId, controlId))).value;
}

/** Adds a custom control; a taken key is a conflict. */
export async function createControl(
  kv: Deno.Kv,
  projectId: string,
  control: TrustControl,
): Promise<TrustControl> {
  const res = await seedControls(kv.atomic(), projectId, [control]).commit();
  if (!res.ok) throw conflict(`Control key "${control.key}" is already used in this project`);
  return control;
}

/** Applies `patch` to a control, checked against concurrent changes. */
export async function updateControl(
  kv: Deno.Kv,
  projectId: string,
  controlId: string,
  patch: UpdateControlRequest,
): Promise<TrustControl | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await kv.get<TrustControl>(controlKey(projectId, controlId));
    if (!entry.value) return null;
    const defined = Object.entries(patch).filter(([, v]) => v !== undefined);
    const updated = { ...entry.value, ...Object.fromEntries(defined) } as TrustControl;
    const res = await kv.atomic().check(entry).set(entry.key, updated).commit();
    if (res.ok) return updated;
  }
  throw conflict("The control changed while it was being updated; please retry");
}
