/**
 * The framework criteria members mapped custom controls to, one entry per control key (keys
 * never change, so a publish can join them to the published controls without ids).
 */
import type { CriterionRef, StoredControlCriteria } from "../domain/frameworks.ts";
import { controlCriteriaKey, controlCriteriaPrefix } from "./keys.ts";

/** Every custom mapping of the project, by control key. */
export async function listControlCriteria(
  kv: Deno.Kv,
  projectId: string,
): Promise<Map<string, StoredControlCriteria>> {
  const mappings = new Map<string, StoredControlCriteria>();
  for await (
    const entry of kv.list<StoredControlCriteria>({ prefix: controlCriteriaPrefix(projectId) })
  ) {
    mappings.set(entry.value.key, entry.value);
  }
  return mappings;
}

/** The criteria of each mapped custom control, by key. */
export async function customCriteria(
  kv: Deno.Kv,
  projectId: string,
): Promise<Map<string, CriterionRef[]>> {
  const stored = await listControlCriteria(kv, projectId);
  return new Map([...stored].map(([key, value]) => [key, value.criteria]));
}

export async function getControlCriteria(
  kv: Deno.Kv,
  projectId: string,
  key: string,
): Promise<StoredControlCriteria | null> {
  return (await kv.get<StoredControlCriteria>(controlCriteriaKey(projectId, key))).value;
}

/** Replaces a control's mapping; an empty one is deleted. Returns what is stored (or null). */
export async function putControlCriteria(
  kv: Deno.Kv,
  projectId: string,
  value: StoredControlCriteria,
): Promise<StoredControlCriteria | null> {
  const key = controlCriteriaKey(projectId, value.key);
  const op = value.criteria.length === 0 ? kv.atomic().delete(key) : kv.atomic().set(key, value);
  await op.commit();
  return value.criteria.length === 0 ? null : value;
}
